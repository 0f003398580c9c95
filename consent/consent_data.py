"""`consent_data` as the SDK sends it (docs/privacy.md, "Consent"): AppsFlyer's two
server-to-server shapes, checked strictly, and the consent they amount to. Pure.

    {"manual": {"gdpr_applies": bool, "ad_user_data_enabled": bool,
                "ad_personalization_enabled": bool}, "sharing_filter": "all"}
    {"tcf": {"tcstring": str, "gdpr_applies": 0|1, "policy_version": int,
             "cmp_sdk_id": int, "cmp_sdk_version": int}, "sharing_filter": "all"}

A problem raises ConsentDataError naming the field by its dotted path under the caller's
prefix (`consent_data.tcf.tcstring`), which the API answers as a 400.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from consent import google, tcf

MANUAL = "manual"
TCF = "tcf"
SOURCES = (MANUAL, TCF)
SHARING_ALL = "all"  # AppsFlyer's sharing filter: no partner gets this user's data

_MANUAL_KEYS = ("gdpr_applies", "ad_user_data_enabled", "ad_personalization_enabled")
_TCF_KEYS = ("tcstring", "gdpr_applies", "policy_version", "cmp_sdk_id", "cmp_sdk_version")
_TOP_KEYS = (MANUAL, TCF, "sharing_filter")
MAX_TCF_NUMBER = 2**31 - 1


class ConsentDataError(ValueError):
    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class TcfDetails:
    policy_version: int
    cmp_id: int
    purposes_consent: tuple[int, ...]
    vendor_755: bool
    tcstring: str


@dataclass(frozen=True)
class Consent:
    """A user's consent as it stands from some moment on."""

    gdpr_applies: bool
    ad_user_data: bool
    ad_personalization: bool
    source: str  # manual | tcf
    sharing_filter: str = ""  # "" or "all"
    tcf: TcfDetails | None = None  # None for manual consent, and a TCF consent without string


def public(consent: Consent | None) -> dict | None:
    """What the API, exports' readers and webhooks see (never the TC string itself)."""
    if consent is None:
        return None
    details = consent.tcf
    return {
        "gdpr_applies": consent.gdpr_applies, "ad_user_data": consent.ad_user_data,
        "ad_personalization": consent.ad_personalization, "source": consent.source,
        "sharing_filter": consent.sharing_filter or None,
        "tcf": None if details is None else {
            "policy_version": details.policy_version, "cmp_id": details.cmp_id,
            "purposes_consent": list(details.purposes_consent),
            "vendor_755": details.vendor_755},
    }


def parse(raw: Any, *, prefix: str = "consent_data") -> Consent:
    """The consent `raw` (the parsed JSON value of `consent_data`) amounts to."""
    _object(raw, prefix)
    _known_keys(raw, _TOP_KEYS, prefix)
    sharing = raw.get("sharing_filter")
    if sharing is not None and sharing != SHARING_ALL:
        raise ConsentDataError(f"{prefix}.sharing_filter",
                               'Must be "all" (no partner receives this user\'s data) or null.')
    shapes = [name for name in SOURCES if raw.get(name) is not None]
    if len(shapes) != 1:
        raise ConsentDataError(prefix, "Send exactly one of manual or tcf." if shapes else
                               "Required: manual or tcf.")
    parse_shape = _manual if shapes[0] == MANUAL else _tcf
    return parse_shape(raw[shapes[0]], f"{prefix}.{shapes[0]}", sharing or "")


def _manual(raw: Any, path: str, sharing: str) -> Consent:
    _object(raw, path)
    _known_keys(raw, _MANUAL_KEYS, path)
    gdpr_applies = _boolean(raw, "gdpr_applies", path, required=True)
    flags = {name: _boolean(raw, name, path, required=gdpr_applies)
             for name in ("ad_user_data_enabled", "ad_personalization_enabled")}
    signals = google.from_manual(gdpr_applies=gdpr_applies, **flags)
    return Consent(gdpr_applies=gdpr_applies, ad_user_data=signals.ad_user_data,
                   ad_personalization=signals.ad_personalization, source=MANUAL,
                   sharing_filter=sharing)


def _tcf(raw: Any, path: str, sharing: str) -> Consent:
    _object(raw, path)
    _known_keys(raw, _TCF_KEYS, path)
    applies = raw.get("gdpr_applies")
    if type(applies) is not int or applies not in (0, 1):
        raise ConsentDataError(f"{path}.gdpr_applies",
                               "Required: 0 or 1 (the CMP's IABTCF_gdprApplies).")
    for name in ("policy_version", "cmp_sdk_id", "cmp_sdk_version"):
        value = raw.get(name)
        if value is not None and (type(value) is not int or not 0 <= value <= MAX_TCF_NUMBER):
            raise ConsentDataError(f"{path}.{name}", "Must be a non-negative integer.")
    tcstring = raw.get("tcstring")
    details = None
    if tcstring is not None:
        if not isinstance(tcstring, str):
            raise ConsentDataError(f"{path}.tcstring", "Must be a string.")
        try:
            decoded = tcf.decode(tcstring.strip())
        except tcf.TcfError as exc:
            raise ConsentDataError(f"{path}.tcstring", str(exc)) from None
        details = TcfDetails(policy_version=decoded.policy_version, cmp_id=decoded.cmp_id,
                             purposes_consent=decoded.purposes_consent,
                             vendor_755=decoded.vendor_755, tcstring=tcstring.strip())
    signals = google.from_tcf(
        gdpr_applies=bool(applies),
        purposes_consent=details.purposes_consent if details else None,
        vendor_755=details.vendor_755 if details else None)
    return Consent(gdpr_applies=bool(applies), ad_user_data=signals.ad_user_data,
                   ad_personalization=signals.ad_personalization, source=TCF,
                   sharing_filter=sharing, tcf=details)


def _object(raw: Any, path: str) -> None:
    if not isinstance(raw, dict):
        raise ConsentDataError(path, "Must be a JSON object.")


def _known_keys(raw: dict, known: tuple[str, ...], path: str) -> None:
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise ConsentDataError(f"{path}.{unknown[0]}",
                               f"Unknown field; known: {', '.join(known)}.")


def _boolean(raw: dict, name: str, path: str, *, required: bool) -> bool | None:
    value = raw.get(name)
    if value is None:
        if required:
            raise ConsentDataError(f"{path}.{name}", "Required: true or false.")
        return None
    if not isinstance(value, bool):
        raise ConsentDataError(f"{path}.{name}", "Must be true or false.")
    return value
