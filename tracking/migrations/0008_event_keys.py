"""Client event ids become keys of their own (`EventKey`), claimed in the transaction that stores
the events, instead of a unique constraint on the events table, which cannot hold one once it
is partitioned by arrival day (0009; docs/decisions.md, "Event ids across day partitions").
The keys of the events stored so far are copied in before the constraint goes.
"""

import django.db.models.deletion
from django.db import migrations, models

BACKFILL = ("INSERT INTO tracking_eventkey (app_id, event_id) "
            "SELECT DISTINCT app_id, event_id FROM tracking_event WHERE event_id IS NOT NULL")


class Migration(migrations.Migration):

    dependencies = [
        ('apps_registry', '0003_app_ios_fingerprinting'),
        ('tracking', '0007_install_att_status_default_apple_ads'),
    ]

    operations = [
        migrations.CreateModel(
            name='EventKey',
            fields=[
                ('pk', models.CompositePrimaryKey('app', 'event_id', blank=True, editable=False, primary_key=True, serialize=False)),
                ('app', models.ForeignKey(db_constraint=False, db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='apps_registry.app')),
                ('event_id', models.CharField(max_length=128)),
            ],
        ),
        migrations.RunSQL(BACKFILL, reverse_sql=migrations.RunSQL.noop),
        migrations.RemoveConstraint(
            model_name='event',
            name='event_unique_client_id',
        ),
    ]
