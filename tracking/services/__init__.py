"""Writes of tracking data, one module per concern: clicks and the deep link a link-borne click
carries (clicks.py), first installs (installs.py, with its plain values in install_types.py),
repeat installs and re-engagements (reengagement.py), re-attribution on an ad network's record
(network_claims.py), fraud verdicts found after the fact (post_attribution.py), event batches
(events.py) and the hot store's click retention (hot_store.py).

Each write publishes its domain events with the fact (see attribution_site/domain_events.py), so
subscribers' rows commit or roll back with it: an install and its rows in one statement (a
WriteBatch), re-engagements and event batches in a transaction. The hot paths' statements,
PostgreSQL's and the fallback for other databases, are in tracking/sql.py; the rules they
apply are in tracking/attribution.py. The names below are what other apps, management commands
and tests call, so they import `tracking.services` whatever module a function lives in.
"""

from tracking.services.clicks import ClickInput, click_record, deep_link_reader_register
from tracking.services.events import EventsOutcome, events_record
from tracking.services.hot_store import HOT_STORE_SLACK, clicks_prune
from tracking.services.install_types import InstallOutcome, InstallReport
from tracking.services.installs import install_record, install_record_decided
from tracking.services.network_claims import (
    GoogleClaim,
    install_reattribute,
    install_reattribute_google,
)
from tracking.services.post_attribution import installs_fraud_relabel

__all__ = [
    "HOT_STORE_SLACK", "ClickInput", "EventsOutcome", "GoogleClaim", "InstallOutcome",
    "InstallReport", "click_record", "clicks_prune", "deep_link_reader_register",
    "events_record", "install_reattribute", "install_reattribute_google", "install_record",
    "install_record_decided", "installs_fraud_relabel",
]
