"""The networks app takes over the models of `integrations` (MetaConfig, GoogleAdsConfig) and
`google_ads` (Claim and Attempt, now GoogleClaim and GoogleClaimAttempt), keeping their tables
(docs/decisions.md, "One networks/ app").

The state is created here as if new; the database is only touched where a table is missing.
A fresh database gets the four tables; a database the two old apps migrated keeps its tables and
rows as they are (adopted), and the old apps' content types (and with them admin history and
permissions) are handed to networks. Adopting needs the old apps' last migrations
(integrations 0001, google_ads 0002): a database older than that is refused with a message,
since those migrations no longer ship. Unapplying leaves the tables: nothing is dropped.
"""


import django.core.validators
import django.db.models.deletion
import django.utils.timezone
import networks.google.policy
import uuid
from django.db import migrations, models

# The old app's last migration each table needs, by table.
ADOPTED_FROM = {
    "integrations_googleadsconfig": ("integrations", "0001_meta_and_google_ads_configs"),
    "integrations_metaconfig": ("integrations", "0001_meta_and_google_ads_configs"),
    "google_ads_claim": ("google_ads", "0002_outbox_rows"),
    "google_ads_attempt": ("google_ads", "0002_outbox_rows"),
}
# (old app label, old model name) -> new model name, for content types and permissions.
RENAMED = {
    ("integrations", "metaconfig"): "metaconfig",
    ("integrations", "googleadsconfig"): "googleadsconfig",
    ("google_ads", "claim"): "googleclaim",
    ("google_ads", "attempt"): "googleclaimattempt",
}
MODELS = ("GoogleAdsConfig", "MetaConfig", "GoogleClaim", "GoogleClaimAttempt")


def create_missing_tables(apps, schema_editor):
    connection = schema_editor.connection
    existing = set(connection.introspection.table_names())
    with connection.cursor() as cursor:
        applied = set()
        if "django_migrations" in existing:
            cursor.execute("SELECT app, name FROM django_migrations")
            applied = set(cursor.fetchall())
    for name in MODELS:
        model = apps.get_model("networks", name)
        table = model._meta.db_table
        if table not in existing:
            schema_editor.create_model(model)
        elif ADOPTED_FROM[table] not in applied:
            app, migration = ADOPTED_FROM[table]
            raise RuntimeError(
                f"The table {table} exists but its migration {app} {migration} is not applied: "
                f"run `manage.py migrate` with the previous release first, then this one.")


def hand_over_content_types(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    for (old_app, old_model), new_model in RENAMED.items():
        old = ContentType.objects.filter(app_label=old_app, model=old_model).first()
        if old is None or ContentType.objects.filter(app_label="networks",
                                                     model=new_model).exists():
            continue
        old.app_label, old.model = "networks", new_model
        old.save(update_fields=["app_label", "model"])
        if new_model != old_model:
            for permission in Permission.objects.filter(content_type=old):
                action = permission.codename.rsplit("_", 1)[0]
                permission.codename = f"{action}_{new_model}"
                permission.save(update_fields=["codename"])



class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('apps_registry', '0004_app_retention_days'),
        ('auth', '0012_alter_user_first_name_max_length'),
        ('contenttypes', '0002_remove_content_type_name'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(state_operations=[
                migrations.CreateModel(
                    name='GoogleAdsConfig',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('link_id_encrypted', models.TextField()),
                        ('link_id_last4', models.CharField(max_length=4)),
                        ('event_mapping', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('app', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='google_ads_integration', to='apps_registry.app')),
                    ],
                    options={
                        'verbose_name': 'Google Ads integration',
                        'db_table': 'integrations_googleadsconfig',
                    },
                ),
                migrations.CreateModel(
                    name='GoogleClaim',
                    fields=[
                        ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                        ('attempts_made', models.PositiveSmallIntegerField(default=0)),
                        ('next_attempt_at', models.DateTimeField(blank=True, null=True)),
                        ('lease_expires_at', models.DateTimeField(blank=True, null=True)),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('completed_at', models.DateTimeField(blank=True, null=True)),
                        ('install_id', models.UUIDField(unique=True)),
                        ('platform', models.CharField(max_length=16)),
                        ('rdid', models.CharField(blank=True, default='', max_length=64)),
                        ('gclid', models.CharField(blank=True, default='', max_length=512)),
                        ('gbraid', models.CharField(blank=True, default='', max_length=512)),
                        ('os_version', models.CharField(blank=True, default='', max_length=64)),
                        ('sdk_version', models.CharField(blank=True, default='', max_length=64)),
                        ('ip', models.GenericIPAddressField(blank=True, null=True)),
                        ('user_agent', models.CharField(blank=True, default='', max_length=1024)),
                        ('installed_at', models.DateTimeField()),
                        ('step', models.CharField(choices=[('first_open', 'first_open'), ('cross_network', 'cross_network')], default=networks.google.policy.Step['FIRST_OPEN'], max_length=16)),
                        ('step_offset', models.PositiveIntegerField(default=0)),
                        ('state', models.CharField(choices=[('pending', 'pending'), ('sending', 'sending'), ('attributed', 'attributed'), ('not_attributed', 'not_attributed'), ('rejected', 'rejected'), ('failed', 'failed'), ('skipped', 'skipped')], default='pending', max_length=16)),
                        ('received_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('last_error', models.TextField(blank=True, default='')),
                        ('answer', models.JSONField(blank=True, null=True)),
                        ('ad_event_id', models.CharField(blank=True, default='', max_length=255)),
                        ('reattributed', models.BooleanField(default=False)),
                        ('cross_network', models.CharField(blank=True, default='', max_length=8)),
                        ('app', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='apps_registry.app')),
                    ],
                    options={
                        'verbose_name': 'Google Ads claim',
                        'db_table': 'google_ads_claim',
                    },
                ),
                migrations.CreateModel(
                    name='GoogleClaimAttempt',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('number', models.PositiveSmallIntegerField()),
                        ('started_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('error_message', models.TextField(blank=True, default='')),
                        ('status_code', models.PositiveSmallIntegerField(blank=True, null=True)),
                        ('response_body', models.TextField(blank=True, default='')),
                        ('duration_ms', models.PositiveIntegerField(blank=True, null=True)),
                        ('step', models.CharField(default=networks.google.policy.Step['FIRST_OPEN'], max_length=16)),
                        ('url', models.TextField(blank=True, default='')),
                        ('reading', models.CharField(blank=True, default='', max_length=16)),
                        ('claim', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='attempts', to='networks.googleclaim')),
                    ],
                    options={
                        'verbose_name': 'Google Ads claim attempt',
                        'db_table': 'google_ads_attempt',
                    },
                ),
                migrations.CreateModel(
                    name='MetaConfig',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('meta_app_id', models.CharField(max_length=32)),
                        ('decryption_key_encrypted', models.TextField()),
                        ('decryption_key_last4', models.CharField(max_length=4)),
                        ('access_token_encrypted', models.TextField(blank=True, default='')),
                        ('access_token_last4', models.CharField(blank=True, default='', max_length=4)),
                        ('event_mapping', models.JSONField(blank=True, default=dict)),
                        ('view_window_hours', models.PositiveIntegerField(default=24, validators=[django.core.validators.MinValueValidator(1), django.core.validators.MaxValueValidator(168)])),
                        ('created_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('updated_at', models.DateTimeField(default=django.utils.timezone.now)),
                        ('app', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='meta_integration', to='apps_registry.app')),
                    ],
                    options={
                        'verbose_name': 'Meta integration',
                        'db_table': 'integrations_metaconfig',
                    },
                ),
                migrations.AddIndex(
                    model_name='googleclaim',
                    index=models.Index(condition=models.Q(('state', 'pending')), fields=['next_attempt_at'], name='google_ads_claim_due'),
                ),
                migrations.AddIndex(
                    model_name='googleclaim',
                    index=models.Index(condition=models.Q(('state', 'sending')), fields=['lease_expires_at'], name='google_ads_claim_lease'),
                ),
                migrations.AddConstraint(
                    model_name='googleclaimattempt',
                    constraint=models.UniqueConstraint(fields=('claim', 'number'), name='google_attempt_unique'),
                ),
        ], database_operations=[]),
        migrations.RunPython(create_missing_tables, migrations.RunPython.noop),
        migrations.RunPython(hand_over_content_types, migrations.RunPython.noop),
    ]
