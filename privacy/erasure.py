"""Who erases and who lists what for one data subject: each app that holds personal data owns
an `erase(app_id, *, install_ids, device_ids) -> {table: rows}` and a
`records_for(app_id, *, install_ids, device_ids) -> {name: [rows]}` over its own tables, and
this is the one place that names them all (docs/privacy.md, "What an erasure removes").
"""

from __future__ import annotations

from apple_ads import erasure as apple_ads_erasure
from attribution_site.docstrings import summary
from consent import erasure as consent_erasure
from delivery import erasure as delivery_erasure
from links import erasure as links_erasure
from networks.google import erasure as google_ads_erasure
from tracking import erasure as tracking_erasure
from web import erasure as web_erasure
from web_to_app import erasure as web_to_app_erasure

# Order matters only for tracking, which finds the clicks through the installs: it goes first.
ERASERS = (
    tracking_erasure.erase,
    delivery_erasure.erase,
    links_erasure.erase,
    apple_ads_erasure.erase,
    google_ads_erasure.erase,
    consent_erasure.erase,
    web_to_app_erasure.erase,  # before web's: it finds web ids through web's installs
    web_erasure.erase,
)
COLLECTORS = (
    tracking_erasure.records_for,
    delivery_erasure.records_for,
    links_erasure.records_for,
    apple_ads_erasure.records_for,
    google_ads_erasure.records_for,
    consent_erasure.records_for,
    web_to_app_erasure.records_for,
    web_erasure.records_for,
)


def describe() -> list[dict[str, str]]:
    """The erasers in the order they run, as the map lists them (docs/architecture.md): the app,
    its module, and what an erasure does to its tables."""
    return [{"app": erase.__module__.split(".")[0], "module": erase.__module__,
             "does": summary(erase)} for erase in ERASERS]
