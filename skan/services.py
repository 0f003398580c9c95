"""Receiving Apple's postback copies (docs/apple.md, "Postbacks: verify, then count once"):
parse, verify, route to the app, store once; and the per-app ad network names.

`postback_receive` never raises for anything a sender controls: every body ends as a stored
postback, a duplicate of one, or a refused-postback row with its reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone

from apps_registry.models import App
from skan import parse, verify
from skan.keys import AAK_DEVELOPMENT_KIDS
from skan.models import AppAdNetworkName, CampaignMapping, Postback, RefusedPostback, Verdict

STORED = "stored"
DUPLICATE = "duplicate"
REFUSED = "refused"


@dataclass(frozen=True)
class Outcome:
    status: str  # STORED, DUPLICATE or REFUSED
    reason: str = ""  # a RefusalReason value when refused
    detail: str = ""
    postback_id: str = ""


def postback_receive(*, framework: str, raw_body: bytes, accept_development: bool,
                     received_at: datetime | None = None, truncated: bool = False) -> Outcome:
    """Count one postback copy from Apple, or keep it apart with the reason it was refused."""
    received_at = received_at or timezone.now()
    text = raw_body.decode("utf-8", errors="replace")
    try:
        if truncated:
            raise parse.malformed("The body is larger than a postback can be.")
        body = parse.json_object(raw_body)
        postback = (parse.skadnetwork(body) if framework == parse.SKADNETWORK
                    else parse.adattributionkit(body))
        verdict = _verdict(postback, accept_development=accept_development)
        app = _app_for(postback)
    except parse.Refusal as refusal:
        _refuse(framework=framework, refusal=refusal, raw=text, received_at=received_at)
        return Outcome(REFUSED, reason=refusal.reason, detail=refusal.detail)
    return _store(postback=postback, app=app, verdict=verdict, raw=text,
                  received_at=received_at)


def _verdict(postback: parse.Postback, *, accept_development: bool) -> str:
    hint = {"app_store_id": postback.app_store_id, "transaction_id": postback.transaction_id}
    if postback.framework == parse.SKADNETWORK:
        if not verify.verify_skadnetwork(postback.signed):
            raise parse.Refusal("bad_signature", "Apple's signature does not verify.", **hint)
        return Verdict.VERIFIED
    if not verify.verify_jws(postback.signed):
        raise parse.Refusal("bad_signature", "The JWS does not verify with Apple's key for its "
                            "kid.", **hint)
    if postback.signed.header["kid"] in AAK_DEVELOPMENT_KIDS:
        if not accept_development:
            # Apple's development keys sign test postbacks anyone can make on a device; they
            # count only where the operator said so (SKAN_ACCEPT_DEVELOPMENT_POSTBACKS).
            raise parse.Refusal("development_key", "Signed with Apple's development key.",
                                **hint)
        return Verdict.VERIFIED_DEVELOPMENT
    return Verdict.VERIFIED


def _app_for(postback: parse.Postback) -> App:
    hint = {"app_store_id": postback.app_store_id, "transaction_id": postback.transaction_id}
    apps = list(App.objects.filter(apple_app_id=postback.app_store_id).only("id")[:2])
    if not apps:
        raise parse.Refusal("unknown_app", "No app has this App Store id.", **hint)
    if len(apps) > 1:
        raise parse.Refusal("ambiguous_app", "More than one app has this App Store id.", **hint)
    return apps[0]


def _store(*, postback: parse.Postback, app: App, verdict: str, raw: str,
           received_at: datetime) -> Outcome:
    fields = {name: getattr(postback, name) for name in (
        "framework", "version", "ad_network_id", "transaction_id", "postback_sequence_index",
        "source_identifier", "campaign_id", "source_app_id", "source_domain", "fidelity_type",
        "interaction_type", "redownload", "did_win", "fine_value", "coarse_value",
        "country_code", "conversion_type", "marketplace")}
    try:
        # The savepoint keeps an outer transaction (a test's, a caller's) usable after the
        # duplicate's IntegrityError.
        with transaction.atomic():
            row = Postback.objects.create(app=app, verdict=verdict, raw_body=raw,
                                          received_at=received_at, **fields)
    except IntegrityError:
        # Apple retries until it gets a 200 and Apple counts on us to drop repeats: the unique
        # (transaction id, sequence index) constraint decides, so two racing copies store once.
        existing = Postback.objects.filter(
            transaction_id=postback.transaction_id,
            postback_sequence_index=postback.postback_sequence_index).values_list(
                "id", flat=True).first()
        return Outcome(DUPLICATE, postback_id=str(existing or ""))
    return Outcome(STORED, postback_id=str(row.id))


def _refuse(*, framework: str, refusal: parse.Refusal, raw: str, received_at: datetime) -> None:
    RefusedPostback.objects.create(
        framework=framework, reason=refusal.reason, detail=_kept(refusal.detail),
        app_store_id=_kept(refusal.app_store_id)[:32],
        transaction_id=_kept(refusal.transaction_id)[:64],
        raw_body=_kept(raw)[:RefusedPostback.RAW_BODY_LIMIT], received_at=received_at)


def _kept(text: str) -> str:
    """Text a refused body brought, storable: PostgreSQL refuses NUL in text, and a refusal
    must be kept whatever the sender put in it (a NUL byte, or one in a quoted field)."""
    return text.replace("\x00", "\ufffd")


def ad_network_name_set(*, app: App, network_id: str, name: str) -> AppAdNetworkName:
    """The app's own media source name for an ad network id (replaces an earlier one)."""
    row, _ = AppAdNetworkName.objects.update_or_create(
        app=app, network_id=network_id.strip().lower(),
        defaults={"name": name.strip(), "updated_at": timezone.now()})
    return row


def ad_network_name_clear(*, app: App, network_id: str) -> bool:
    deleted, _ = AppAdNetworkName.objects.filter(
        app=app, network_id=network_id.strip().lower()).delete()
    return bool(deleted)


@dataclass(frozen=True)
class Mapping:
    media_source: str
    source_identifier: str
    campaign_id: str


def campaign_mappings_replace(*, app_id, mappings: list[Mapping]) -> list[CampaignMapping]:
    """The app's SKAN campaign mappings become exactly `mappings` (a PUT of the whole set:
    a list a marketer keeps in a spreadsheet is sent again whole, never merged by guess)."""
    now = timezone.now()
    rows = [CampaignMapping(app_id=app_id, media_source=m.media_source,
                            source_identifier=m.source_identifier, campaign_id=m.campaign_id,
                            updated_at=now) for m in mappings]
    with transaction.atomic():
        CampaignMapping.objects.filter(app_id=app_id).delete()
        CampaignMapping.objects.bulk_create(rows)
    return rows
