"""networks/migrations/0001 on a database that the apps networks/ replaced (integrations,
google_ads) had migrated: their tables and rows are adopted as they are and their content types
handed over; a database older than their last migrations is refused rather than half-adopted.
Runs on SQLite and on PostgreSQL."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder
from django.utils import timezone

from networks import services
from networks.models import GoogleClaim, GoogleClaimAttempt, MetaConfig

pytestmark = pytest.mark.django_db(transaction=True)

OLD_APPS = [("integrations", "0001_meta_and_google_ads_configs"), ("google_ads", "0001_claims"),
            ("google_ads", "0002_outbox_rows")]


def _executor() -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


@pytest.fixture
def old_install():
    """The database as the previous release left it: the tables are there (unapplying networks
    leaves them), the old apps' migrations are recorded, networks' is not."""
    leaves = _executor().loader.graph.leaf_nodes()
    _executor().migrate([("networks", None)])
    recorder = MigrationRecorder(connection)
    for app, name in OLD_APPS:
        recorder.record_applied(app, name)
    yield recorder
    _executor().migrate(leaves)
    for app, name in OLD_APPS:
        recorder.record_unapplied(app, name)


def test_an_old_install_keeps_its_integrations_claims_and_content_types(app, old_install):
    services.meta_integration_set(app_id=app.id, meta_app_id="1234567", decryption_key="ab" * 32)
    claim = GoogleClaim.objects.create(app_id=app.id, install_id=uuid.uuid4(),
                                       platform="android", installed_at=timezone.now(),
                                       state="attributed", attempts_made=3, ad_event_id="AE-1")
    GoogleClaimAttempt.objects.create(claim=claim, number=3, status_code=200)
    ContentType.objects.filter(app_label="networks", model="googleclaim").delete()
    old_type = ContentType.objects.create(app_label="google_ads", model="claim")

    _executor().migrate(_executor().loader.graph.leaf_nodes())

    assert MetaConfig.objects.get().meta_app_id == "1234567"
    adopted = GoogleClaim.objects.get()
    assert (adopted.id, adopted.attempts_made, adopted.attempts.get().number) == (claim.id, 3, 3)
    ContentType.objects.clear_cache()
    assert ContentType.objects.get_for_model(GoogleClaim).id == old_type.id


def test_a_database_older_than_the_old_apps_last_migration_is_refused(old_install):
    old_install.record_unapplied("google_ads", "0002_outbox_rows")
    with pytest.raises(RuntimeError, match="google_ads 0002_outbox_rows is not applied"):
        _executor().migrate(_executor().loader.graph.leaf_nodes())
    old_install.record_applied("google_ads", "0002_outbox_rows")
