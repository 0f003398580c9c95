"""Export runs brought to the outbox's common rows (outbox.models): `state` as long as every
kind's (lengthening a varchar rewrites nothing), the sweep's indexes under the common names, and
an attempt's `started_at` defaulting to now (no column change).
"""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('raw_export', '0001_destinations_and_runs'),
    ]

    operations = [
        migrations.RenameIndex(
            model_name='run',
            new_name='raw_export_run_due',
            old_name='raw_export_run_due_idx',
        ),
        migrations.RenameIndex(
            model_name='run',
            new_name='raw_export_run_lease',
            old_name='raw_export_run_lease_idx',
        ),
        migrations.AlterField(
            model_name='run',
            name='state',
            field=models.CharField(choices=[('pending', 'Pending'), ('sending', 'Sending'), ('succeeded', 'Succeeded'), ('failed', 'Failed')], default='pending', max_length=16),
        ),
        migrations.AlterField(
            model_name='runattempt',
            name='started_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
    ]
