"""Deliveries' rows brought to the outbox's common definition (outbox.models.WorkRow): `state`
as long as every kind's, and the sweep's two partial indexes (due pending rows, expired leases)
in place of the one index of open deliveries.

The table is the largest of the service and installs insert into it, so on PostgreSQL the new
indexes are built CONCURRENTLY (installs go on while they build) before the old one is dropped,
and the sweep has an index all along. Lengthening a varchar rewrites nothing.
"""

from django.db import migrations, models


class AddIndexOnline(migrations.AddIndex):
    """AddIndex, CONCURRENTLY on PostgreSQL (outside a transaction); plain elsewhere."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.add_index(model, self.index, concurrently=True)
        else:
            schema_editor.add_index(model, self.index)


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY cannot run in a transaction

    dependencies = [
        ('apps_registry', '0004_app_retention_days'),
        ('delivery', '0007_delivery_install_id'),
    ]

    operations = [
        migrations.AlterField(
            model_name='delivery',
            name='state',
            field=models.CharField(choices=[('pending', 'Pending'), ('sending', 'Sending'), ('succeeded', 'Succeeded'), ('failed', 'Failed'), ('cancelled', 'Cancelled'), ('skipped', 'Skipped')], default='pending', max_length=16),
        ),
        AddIndexOnline(
            model_name='delivery',
            index=models.Index(condition=models.Q(('state', 'pending')), fields=['next_attempt_at'], name='delivery_delivery_due'),
        ),
        AddIndexOnline(
            model_name='delivery',
            index=models.Index(condition=models.Q(('state', 'sending')), fields=['lease_expires_at'], name='delivery_delivery_lease'),
        ),
        migrations.RemoveIndex(
            model_name='delivery',
            name='delivery_open_idx',
        ),
    ]
