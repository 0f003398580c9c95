"""Google's consent signals (`ad_user_data`, `ad_personalization`, required for EEA users since
March 2024) from what the SDK sent. Pure. The TCF mapping is Google's own
(https://developers.google.com/tag-platform/security/guides/implement-TCF-strings): purpose 1
or 7 denied denies ad_user_data, purpose 3 or 4 denied denies ad_personalization, and Google
is TCF vendor 755, whose missing consent denies both. See docs/privacy.md, "Consent"."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

AD_USER_DATA_PURPOSES = (1, 7)  # store/access information on a device; measure ad performance
AD_PERSONALIZATION_PURPOSES = (3, 4)  # create / use a personalised ads profile


@dataclass(frozen=True)
class GoogleSignals:
    ad_user_data: bool
    ad_personalization: bool


def from_tcf(*, gdpr_applies: bool, purposes_consent: Collection[int] | None,
             vendor_755: bool | None) -> GoogleSignals:
    """`purposes_consent` and `vendor_755` are None when the CMP gave no TC string."""
    if not gdpr_applies:
        return GoogleSignals(ad_user_data=True, ad_personalization=True)
    if purposes_consent is None or not vendor_755:
        # GDPR applies and nothing says the user agreed (no string, or Google not consented).
        return GoogleSignals(ad_user_data=False, ad_personalization=False)
    granted = set(purposes_consent)
    return GoogleSignals(
        ad_user_data=all(p in granted for p in AD_USER_DATA_PURPOSES),
        ad_personalization=all(p in granted for p in AD_PERSONALIZATION_PURPOSES))


def from_manual(*, gdpr_applies: bool, ad_user_data_enabled: bool | None,
                ad_personalization_enabled: bool | None) -> GoogleSignals:
    """The app's own consent screen. Outside the GDPR a flag not sent is granted; a flag sent
    is taken as it is, so an explicit refusal is a refusal everywhere."""
    return GoogleSignals(
        ad_user_data=ad_user_data_enabled if ad_user_data_enabled is not None
        else not gdpr_applies,
        ad_personalization=ad_personalization_enabled if ad_personalization_enabled is not None
        else not gdpr_applies)
