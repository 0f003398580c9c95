"""The install path's plain values (spec: Attribution endpoints, `POST /api/v1/installs`):
`InstallReport`, an install as the SDK reported it, and `InstallOutcome`, what the path answers
for a first install, a repeat and a re-engagement alike. They sit apart from installs.py so the
repeat path (reengagement.py) answers in the same shape without importing the module that
calls it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from consent.consent_data import Consent
from tracking import fraud_gate
from tracking.models import Install, Reengagement
from tracking.waterfall_inputs import MetaInstallReferrer


@dataclass(frozen=True)
class InstallReport:
    """An install as the SDK reported it, with the request's address and User-Agent."""

    app_id: uuid.UUID
    platform: str
    sdk_version: str
    device_id: str | None = None
    install_referrer: str = ""
    screen_resolution: str = ""
    timezone: str = ""
    language: str = ""
    os_version: str = ""
    device_model: str = ""
    ip: str | None = None
    user_agent: str = ""
    att_status: str = ""  # App Tracking Transparency on iOS; "" when the SDK did not say
    attribution_token: str = ""  # Apple's AdServices token, exchanged after the install
    consent: Consent | None = None  # `consent_data` as sent with the install
    customer_user_id: str | None = None  # the app's own user id (AppsFlyer's CUID)
    # Meta's install referrer, read by the SDK from the Facebook or Instagram app.
    meta_install_referrer: MetaInstallReferrer | None = None
    play: fraud_gate.PlaySignals = fraud_gate.PlaySignals()  # Play's Install Referrer times
    signature_problem: str | None = None  # a signature the app reports on but does not enforce


@dataclass(frozen=True)
class InstallOutcome:
    install: Install
    created: bool
    reengagement: Reengagement | None = None
    # The deep link of the re-engagement's click, when it came through a link (read now: the
    # re-engagement is answered once, so nothing needs to keep it).
    reengagement_deep_link: dict | None = None
