"""What a partner may receive (consent/sharing.py): the one rule postbacks and the later
Google and Meta forwarding apply. Pure, a table."""

import pytest

from consent.consent_data import Consent
from consent.sharing import FULL, NO_IDENTIFIERS, NONE, partner_sharing


def consent(*, gdpr_applies=True, ad_user_data=True, ad_personalization=True,
            sharing_filter=""):
    return Consent(gdpr_applies=gdpr_applies, ad_user_data=ad_user_data,
                   ad_personalization=ad_personalization, source="manual",
                   sharing_filter=sharing_filter)


@pytest.mark.parametrize(("given", "expected"), [
    (None, FULL),  # no consent ever sent: as before consent existed
    (consent(), FULL),
    (consent(ad_personalization=False), FULL),  # personalisation is the network's concern
    (consent(ad_user_data=False), NO_IDENTIFIERS),
    (consent(ad_user_data=False, ad_personalization=False), NO_IDENTIFIERS),
    (consent(gdpr_applies=False, ad_user_data=False), FULL),  # outside the GDPR
    (consent(sharing_filter="all"), NONE),
    (consent(gdpr_applies=False, sharing_filter="all"), NONE),
    (consent(ad_user_data=False, sharing_filter="all"), NONE),
])
def test_partner_sharing(given, expected):
    assert partner_sharing(given) == expected
