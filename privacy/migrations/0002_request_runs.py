"""Privacy requests' runs become an outbox kind (docs/privacy.md, "When a run fails"): a run
row per request, under the request's id, with its attempts; a request may now end `failed`. The
status callbacks are brought to the outbox's common rows: `state` as long as every kind's
(lengthening a varchar rewrites nothing), the sweep's indexes under the common names, an
attempt's `started_at` defaulting to now (no column change).

Every request filed before gets its run, as the old worker left it: a pending request a pending
run, due since it was received; one in progress a pending run, due when the old worker's
30-minute lease would have ended (so a worker still running it finishes undisturbed, and one
lost is run again); a completed one a run that succeeded on its one try; a cancelled one a
cancelled run.
"""

import django.db.models.deletion
import django.utils.timezone
from datetime import timedelta

from django.db import migrations, models

OLD_RUN_LEASE = timedelta(minutes=30)
BATCH = 1000


def runs_for_requests(apps, schema_editor):
    SubjectRequest = apps.get_model("privacy", "SubjectRequest")
    RequestRun = apps.get_model("privacy", "RequestRun")
    batch = []
    for request in SubjectRequest.objects.order_by("received_time").iterator(chunk_size=BATCH):
        batch.append(_run_of(RequestRun, request))
        if len(batch) >= BATCH:
            RequestRun.objects.bulk_create(batch)
            batch = []
    RequestRun.objects.bulk_create(batch)


def _run_of(RequestRun, request):
    if request.status == "pending":
        return RequestRun(request_id=request.id, state="pending",
                          next_attempt_at=request.received_time, updated_at=request.updated_at)
    if request.status == "in_progress":
        started = request.started_at or request.received_time
        return RequestRun(request_id=request.id, state="pending",
                          next_attempt_at=started + OLD_RUN_LEASE, updated_at=started)
    if request.status == "completed":
        return RequestRun(request_id=request.id, state="succeeded", attempts_made=1,
                          updated_at=request.updated_at, completed_at=request.completed_at)
    return RequestRun(request_id=request.id, state="cancelled", updated_at=request.updated_at,
                      completed_at=request.completed_at)


class Migration(migrations.Migration):

    dependencies = [
        ('privacy', '0001_subject_requests_and_callbacks'),
    ]

    operations = [
        migrations.CreateModel(
            name='RequestRun',
            fields=[
                ('attempts_made', models.PositiveSmallIntegerField(default=0)),
                ('next_attempt_at', models.DateTimeField(blank=True, null=True)),
                ('lease_expires_at', models.DateTimeField(blank=True, null=True)),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('completed_at', models.DateTimeField(blank=True, null=True)),
                ('request', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='run', serialize=False, to='privacy.subjectrequest')),
                ('state', models.CharField(choices=[('pending', 'Pending'), ('sending', 'Sending'), ('succeeded', 'Succeeded'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='pending', max_length=16)),
                ('last_error', models.TextField(blank=True, default='')),
            ],
            options={
                'abstract': False,
            },
        ),
        migrations.CreateModel(
            name='RequestRunAttempt',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('number', models.PositiveSmallIntegerField()),
                ('started_at', models.DateTimeField(default=django.utils.timezone.now)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('error_message', models.TextField(blank=True, default='')),
            ],
        ),
        migrations.RenameIndex(
            model_name='statuscallback',
            new_name='privacy_statuscallback_due',
            old_name='privacy_callback_due_idx',
        ),
        migrations.RenameIndex(
            model_name='statuscallback',
            new_name='privacy_statuscallback_lease',
            old_name='privacy_callback_lease_idx',
        ),
        migrations.AlterField(
            model_name='statuscallback',
            name='state',
            field=models.CharField(choices=[('pending', 'Pending'), ('sending', 'Sending'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='pending', max_length=16),
        ),
        migrations.AlterField(
            model_name='statuscallbackattempt',
            name='started_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AlterField(
            model_name='subjectrequest',
            name='status',
            field=models.CharField(choices=[('pending', 'Pending'), ('in_progress', 'In Progress'), ('completed', 'Completed'), ('cancelled', 'Cancelled'), ('failed', 'Failed')], default='pending', max_length=16),
        ),
        migrations.AddIndex(
            model_name='requestrun',
            index=models.Index(condition=models.Q(('state', 'pending')), fields=['next_attempt_at'], name='privacy_requestrun_due'),
        ),
        migrations.AddIndex(
            model_name='requestrun',
            index=models.Index(condition=models.Q(('state', 'sending')), fields=['lease_expires_at'], name='privacy_requestrun_lease'),
        ),
        migrations.AddField(
            model_name='requestrunattempt',
            name='run',
            field=models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='attempts', to='privacy.requestrun'),
        ),
        migrations.AddConstraint(
            model_name='requestrunattempt',
            constraint=models.UniqueConstraint(fields=('run', 'number'), name='privacy_run_attempt_unique'),
        ),
        migrations.RunPython(runs_for_requests, migrations.RunPython.noop),
    ]
