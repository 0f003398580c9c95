"""`manage.py delivery_health [--timeout SECONDS]`: are postbacks and webhooks being sent?
(docs/delivery.md, "Overdue deliveries").

Prints how many deliveries are overdue and, with a broker, the messages waiting in each queue
and the workers consuming it. Exits 1 when a delivery is overdue, no worker consumes the
`delivery` queue or the broker cannot be reached, so a cron job, a container health check or a
monitoring agent can act on it; exits 0 otherwise.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from attribution_site.celery import app as celery_app
from delivery import watch


class Command(BaseCommand):
    help = "Report overdue deliveries and which workers consume the queues; exit 1 on trouble."

    def add_arguments(self, parser):
        parser.add_argument("--timeout", type=float, default=2.0,
                            help="seconds to wait for workers to answer (default 2)")

    def handle(self, *args, timeout: float, **options):
        problems: list[str] = []
        overdue = watch.overdue_now()
        self.stdout.write(f"overdue deliveries: {watch.describe(overdue)}")
        if overdue.count:
            problems.append("deliveries are overdue")
        if celery_app.conf.task_always_eager:
            self.stdout.write("broker: none (REDIS_URL unset); deliveries are sent in-process "
                              "and retried by the sweep under beat")
        else:
            try:
                queues = watch.queues_state(timeout=timeout)
            except Exception as exc:  # noqa: BLE001 - any broker failure is the answer
                queues = []
                problems.append(f"the broker cannot be reached ({exc})")
            for queue in queues:
                workers = ", ".join(queue.workers) or "no worker"
                self.stdout.write(f"queue {queue.name}: {queue.messages} messages waiting, "
                                  f"consumed by {workers}")
                if queue.name == watch.DELIVERY_QUEUE and not queue.workers:
                    problems.append(f"no worker consumes the {queue.name!r} queue (start "
                                    "`celery -A attribution_site worker`, which consumes "
                                    "every queue)")
        if problems:
            raise CommandError("; ".join(problems))
        self.stdout.write("ok")
