"""Apple Ads claims brought to the outbox's common rows (outbox.models): `attempts_made` and an
attempt's `number` as small integers like every kind's (no claim tries more than 8 times; the
values are kept as they are), the sweep's indexes under the common names, and an attempt's
`started_at` defaulting to now (no column change). On PostgreSQL the type change rewrites
`apple_ads_claim` and `apple_ads_attempt`: about a second per million rows, while installs that
bring a token wait.
"""

import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('apple_ads', '0001_initial'),
    ]

    operations = [
        migrations.RenameIndex(
            model_name='claim',
            new_name='apple_ads_claim_due',
            old_name='apple_claim_due_idx',
        ),
        migrations.RenameIndex(
            model_name='claim',
            new_name='apple_ads_claim_lease',
            old_name='apple_claim_lease_idx',
        ),
        migrations.AlterField(
            model_name='attempt',
            name='number',
            field=models.PositiveSmallIntegerField(),
        ),
        migrations.AlterField(
            model_name='attempt',
            name='started_at',
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AlterField(
            model_name='claim',
            name='attempts_made',
            field=models.PositiveSmallIntegerField(default=0),
        ),
    ]
