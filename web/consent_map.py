"""A browser's consent as the app's consent is recorded (docs/web.md, "Consent"; consent/).
Pure.

The script sends Google's two consent-mode flags, each true, false or null (not stated), and
`gpc: true` when the browser sends Global Privacy Control. The app's consent row needs both
flags as booleans: a flag not stated is not a grant, so null is stored as false. GPC is
`sharing_filter: "all"`: the visitor is measured, and no partner receives the data. A browser
with GPC that stated no consent still gets a row, so that the filter is on record before the
first postback is due. `gdpr_applies` is true when the site stated consent (it asked, as a
consent banner under GDPR does), false for a GPC-only row.
"""

from __future__ import annotations

from consent.consent_data import MANUAL, SHARING_ALL, Consent
from web.bodies import ConsentFlags


def web_consent(flags: ConsentFlags | None, *, gpc: bool) -> Consent | None:
    if flags is None and not gpc:
        return None
    stated = flags is not None
    flags = flags or ConsentFlags(None, None)
    return Consent(gdpr_applies=stated, ad_user_data=flags.ad_user_data is True,
                   ad_personalization=flags.ad_personalization is True, source=MANUAL,
                   sharing_filter=SHARING_ALL if gpc else "")
