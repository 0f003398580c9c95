"""A postback body to a plain `Postback` dataclass of every field Apple sends (docs/apple.md,
"Postbacks: verify, then count once"). Pure: no ORM, no clock, no signature check (skan/verify.py
does that, on the same values).

Parsing is strict about the fields a version requires and their JSON types (Apple sends
integers for ids, booleans for flags, strings for the rest), and ignores fields it does not
know, since Apple adds fields in new versions. Anything wrong raises `Refusal` with the reason
the refused-postback row records.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from skan import verify

SKADNETWORK = "skadnetwork"
ADATTRIBUTIONKIT = "adattributionkit"

SUPPORTED_VERSIONS = tuple(verify.FIELD_ORDER)
COARSE_VALUES = ("low", "medium", "high")
INTERACTION_TYPES = ("click", "view")
_SOURCE_IDENTIFIER = re.compile(r"[0-9]{2,4}")
_COUNTRY = re.compile(r"[A-Z]{2}")
_MAX_TEXT = 255
_MAX_ID = 64


class Refusal(Exception):
    """Why a postback is not counted: `reason` is a models.RefusalReason value."""

    def __init__(self, reason: str, detail: str, *, app_store_id: str = "",
                 transaction_id: str = ""):
        super().__init__(detail)
        self.reason = reason
        self.detail = detail[:255]
        self.app_store_id = app_store_id
        self.transaction_id = transaction_id


def malformed(detail: str) -> Refusal:
    return Refusal("malformed", detail)


@dataclass(frozen=True)
class Postback:
    framework: str
    version: str  # SKAdNetwork "2.0".."4.0"; "" for AdAttributionKit (it has none)
    app_store_id: str  # the advertised app: `app-id` / `advertised-item-identifier`
    ad_network_id: str
    transaction_id: str  # `transaction-id` / `postback-identifier`
    postback_sequence_index: int
    source_identifier: str
    campaign_id: int | None
    source_app_id: str
    source_domain: str
    fidelity_type: int | None
    interaction_type: str
    redownload: bool | None
    did_win: bool | None
    fine_value: int | None
    coarse_value: str
    country_code: str
    conversion_type: str
    marketplace: str
    # What verify.py checks: the SKAdNetwork body itself, or the AdAttributionKit JWS.
    signed: Any


def json_object(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise malformed("The body is not UTF-8 JSON.") from None
    if not isinstance(body, dict):
        raise malformed("The body is not a JSON object.")
    return body


# Field readers: each returns the value or raises `malformed` naming the field.

def _int(body: dict, name: str, *, low: int = 0, high: int = 2**53, required: bool = True
         ) -> int | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise malformed(f"`{name}` must be an integer from {low} to {high}.")
    return value


def _text(body: dict, name: str, *, limit: int = _MAX_TEXT, required: bool = True) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value or len(value) > limit:
        raise malformed(f"`{name}` must be a non-empty string of at most {limit} characters.")
    return value


def _bool(body: dict, name: str, *, required: bool = True) -> bool | None:
    value = body.get(name)
    if value is None and not required:
        return None
    if not isinstance(value, bool):
        raise malformed(f"`{name}` must be true or false.")
    return value


def _choice(body: dict, name: str, choices: tuple[str, ...]) -> str:
    value = body.get(name)
    if value is None:
        return ""
    if value not in choices:
        raise malformed(f"`{name}` must be one of {', '.join(choices)}.")
    return value


def _country(body: dict) -> str:
    value = body.get("country-code")
    if value is None:
        return ""
    if not isinstance(value, str) or not _COUNTRY.fullmatch(value):
        raise malformed("`country-code` must be two capital letters.")
    return value


def _app_id_hint(body: dict, name: str) -> str:
    value = body.get(name)
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else ""


def skadnetwork(body: dict[str, Any]) -> Postback:
    version = body.get("version")
    hint = {"app_store_id": _app_id_hint(body, "app-id"),
            "transaction_id": str(body.get("transaction-id", ""))[:_MAX_ID]}
    if version not in SUPPORTED_VERSIONS:
        shown = version if isinstance(version, str) else json.dumps(version)[:20]
        raise Refusal("unsupported_version", f"SKAdNetwork version {shown} is not supported.",
                      **hint)
    try:
        return _skadnetwork(body, version)
    except Refusal as refusal:
        raise Refusal(refusal.reason, refusal.detail, **hint) from None


def _skadnetwork(body: dict[str, Any], version: str) -> Postback:
    v4 = version == "4.0"
    _text(body, "attribution-signature", limit=512)
    source_app = _int(body, "source-app-id", required=False)
    source_domain = _text(body, "source-domain", required=False) if v4 else ""
    if source_app is not None and source_domain:
        raise malformed("A postback names a source app or a source domain, not both.")
    if v4:
        source_identifier = _text(body, "source-identifier", limit=4)
        if not _SOURCE_IDENTIFIER.fullmatch(source_identifier):
            raise malformed("`source-identifier` must be two to four digits.")
        campaign_id = None
    else:
        campaign_id = _int(body, "campaign-id", high=32767)
        source_identifier = str(campaign_id)
    fidelity = _int(body, "fidelity-type", high=1) if version >= "2.2" else None
    fine = _int(body, "conversion-value", high=63, required=False)
    coarse = _choice(body, "coarse-conversion-value", COARSE_VALUES) if v4 else ""
    return Postback(
        framework=SKADNETWORK, version=version,
        app_store_id=str(_int(body, "app-id", low=1)),
        ad_network_id=_text(body, "ad-network-id").lower(),
        transaction_id=_text(body, "transaction-id", limit=_MAX_ID),
        postback_sequence_index=_int(body, "postback-sequence-index", high=2) if v4 else 0,
        source_identifier=source_identifier, campaign_id=campaign_id,
        source_app_id="" if source_app is None else str(source_app),
        source_domain=source_domain,
        fidelity_type=fidelity,
        interaction_type={None: "", 0: "view", 1: "click"}[fidelity],
        redownload=_bool(body, "redownload"),
        did_win=_bool(body, "did-win") if version >= "3.0" else None,
        fine_value=fine, coarse_value=coarse,
        country_code=_country(body),
        conversion_type="", marketplace="",
        signed=body,
    )


def adattributionkit(body: dict[str, Any]) -> Postback:
    jws = _text(body, "jws-string", limit=8192)
    try:
        parts = verify.jws_split(jws)
    except verify.JwsMalformed as exc:
        raise malformed(f"`jws-string` is not a compact JWS: {exc}.") from None
    payload = parts.payload
    hint = {"app_store_id": _app_id_hint(payload, "advertised-item-identifier"),
            "transaction_id": str(payload.get("postback-identifier", ""))[:_MAX_ID]}
    if not isinstance(parts.header.get("kid"), str) or parts.header.get("alg") != "ES256":
        raise Refusal("malformed", "The JWS header must name an ES256 `kid`.", **hint)
    try:
        return _adattributionkit(body, payload, parts)
    except Refusal as refusal:
        raise Refusal(refusal.reason, refusal.detail, **hint) from None


def _adattributionkit(body: dict, payload: dict, parts: verify.JwsParts) -> Postback:
    source_identifier = _text(payload, "source-identifier", limit=4)
    if not _SOURCE_IDENTIFIER.fullmatch(source_identifier):
        raise malformed("`source-identifier` must be two to four digits.")
    conversion_type = _text(payload, "conversion-type", limit=16)
    # 0 and absent both mean "no publisher app" (Apple's own example sends 0).
    publisher = _int(payload, "publisher-item-identifier", required=False)
    return Postback(
        framework=ADATTRIBUTIONKIT, version="",
        app_store_id=str(_int(payload, "advertised-item-identifier", low=1)),
        ad_network_id=_text(payload, "ad-network-identifier").lower(),
        transaction_id=_text(payload, "postback-identifier", limit=_MAX_ID),
        postback_sequence_index=_int(payload, "postback-sequence-index", high=2),
        source_identifier=source_identifier, campaign_id=None,
        source_app_id=str(publisher) if publisher else "",
        source_domain=_text(payload, "source-domain", required=False),
        fidelity_type=None,
        interaction_type=_choice(body, "ad-interaction-type", INTERACTION_TYPES),
        redownload=conversion_type == "redownload",
        did_win=_bool(payload, "did-win"),
        fine_value=_int(body, "conversion-value", high=63, required=False),
        coarse_value=_choice(body, "coarse-conversion-value", COARSE_VALUES),
        country_code=_country(body),
        conversion_type=conversion_type,
        marketplace=_text(payload, "marketplace-identifier", required=False),
        signed=parts,
    )
