"""Who may change the exchange rates in the console (docs/analytics.md, "Currencies"). Rates are
instance-wide, so the choice is the operator's (`CURRENCY_RATES_EDITORS`): the roles of any
organization that hold EDIT_RATES (admin, developer, marketer), for the usual instance run by one
company, or only Django staff, for an instance hosting several companies, where one company's
people must not change another's figures. Which roles
count is the permission rule's (attribution_site/capabilities.py, EDIT_RATES). Pure.
"""

from __future__ import annotations

from attribution_site.capabilities import EDIT_RATES, may

ADMINS = "admins"
STAFF = "staff"

WHO = {ADMINS: "an organization's admins, developers and marketers, or a staff user",
       STAFF: "a staff user of this service"}


def may_edit_rates(*, editors: str, role: str, is_staff: bool) -> bool:
    if is_staff:
        return True
    return editors == ADMINS and may(role, EDIT_RATES)


def who_may_edit(editors: str) -> str:
    return WHO[editors]
