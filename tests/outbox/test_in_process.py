"""The embedded default (no REDIS_URL: `make run`) sends in the process that made the row. A
fresh process, as runserver or gunicorn is, has imported no tasks module when its first install
makes a delivery: the message must still find its task and the postback arrive at once, not
wait for a sweep that `make run` does not run. (A webhook: it goes for organic installs too.)"""

import json
import os
import subprocess
import sys
import textwrap

from django.conf import settings

from tests.delivery.receivers import Receiver

SCRIPT = textwrap.dedent("""
    import json, sys
    import django
    django.setup()
    from django.core.management import call_command
    call_command("migrate", verbosity=0)
    from attribution_site.celery import app as celery_app
    assert "delivery.send" not in celery_app.tasks, "the web process had the task already"
    from django.test import Client
    web = Client(HTTP_HOST="localhost")
    def ok(response, status):
        assert response.status_code == status, response.content
        return response.json()["data"]
    token = ok(web.post("/api/v1/auth/signup", {"email": "me@example.com",
        "password": "long-enough-pw", "name": "Me", "company_name": "Acme"},
        content_type="application/json"), 201)["token"]
    jwt = {"HTTP_AUTHORIZATION": "Bearer " + token}
    app = ok(web.post("/api/v1/apps", {"name": "Runner", "platform": "android",
        "package_name": "com.acme.runner"}, content_type="application/json", **jwt), 201)
    app_id = app["app"]["id"]
    key = ok(web.post(f"/api/v1/apps/{app_id}/keys", {"name": "sdk"},
        content_type="application/json", **jwt), 201)["key"]["full_key"]
    ok(web.post("/api/v1/webhooks", {"app_id": app_id, "url": sys.argv[1],
        "events": ["install"]}, content_type="application/json", **jwt), 201)
    ok(web.post("/api/v1/installs", {"app_id": app_id, "platform": "android",
        "sdk_version": "1.0", "device_id": "38400000-8cf0-11bd-b23e-10b96e40000d"},
        content_type="application/json", HTTP_X_API_KEY=key), 201)
    print(json.dumps({"ok": True}))
""")


def test_a_fresh_process_without_a_broker_sends_its_webhook_at_once(tmp_path):
    receiver = Receiver().start()
    try:
        env = {name: value for name, value in os.environ.items()
               if not name.startswith(("DATABASE_", "REDIS_"))}
        env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'run.sqlite3'}", DEBUG="1",
                   SECRET_KEY=settings.SECRET_KEY,
                   DJANGO_SETTINGS_MODULE="attribution_site.settings",
                   OUTBOUND_ALLOW_PRIVATE_NETWORKS="1", PYTHONPATH=str(settings.BASE_DIR))
        done = subprocess.run([sys.executable, "-c", SCRIPT, receiver.url("/hook")],
                              env=env, cwd=settings.BASE_DIR, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, done.stderr[-3000:]
        assert json.loads(done.stdout.strip().splitlines()[-1]) == {"ok": True}
        [request] = receiver.wait_for(1, timeout=5)
        assert request.path == "/hook"
        assert json.loads(request.body)["data"]["device_id"] == (
            "38400000-8cf0-11bd-b23e-10b96e40000d")
    finally:
        receiver.stop()

