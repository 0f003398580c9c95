"""What a partner (an ad network's postback, Google or Meta forwarding) may receive about a
user, from the user's consent at the time of the fact (docs/privacy.md, "What consent
changes"). Pure: the one rule every partner delivery applies."""

from __future__ import annotations

from consent.consent_data import SHARING_ALL, Consent

FULL = "full"
NO_IDENTIFIERS = "no_identifiers"
NONE = "none"


def partner_sharing(consent: Consent | None) -> str:
    """`full`, `no_identifiers` (the fact, without anything that identifies the user or the
    device) or `none` (nothing at all). No consent ever sent: `full`, as before consent
    existed; a sharing filter of "all" stops everything; GDPR applying with ad_user_data
    denied (Google's signal for "no user data to advertising partners") strips identifiers."""
    if consent is None:
        return FULL
    if consent.sharing_filter == SHARING_ALL:
        return NONE
    if consent.gdpr_applies and not consent.ad_user_data:
        return NO_IDENTIFIERS
    return FULL
