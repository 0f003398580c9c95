"""Rollups follow tracking's commit order (a watermark) instead of time cutoffs. The last
cutoff is kept as `data_through`: the first refresh rebuilds every day from it on."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("analytics", "0002_alter_appreportsettings_options"),
        ("tracking", "0003_commit_order_column"),
    ]

    operations = [
        migrations.RenameField(model_name="rollupstate", old_name="cutoff",
                               new_name="data_through"),
        migrations.RemoveField(model_name="rollupstate", name="installs_through"),
        migrations.RemoveField(model_name="rollupstate", name="clicks_through"),
        migrations.RemoveField(model_name="rollupstate", name="events_through_id"),
        migrations.RemoveField(model_name="rollupstate", name="refreshed_at"),
        migrations.AddField(model_name="rollupstate", name="watermark",
                            field=models.JSONField(blank=True, null=True)),
    ]
