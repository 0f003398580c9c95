"""A hand-built app whose every analytics figure is worked out by hand in the tests.

Days are relative to today (retention depends on which days are over): day1 = 40 days ago,
day2 = the day after (no data at all), day3 = the day after that. Report currency USD; rates:
1 USD = 0.8 EUR until day3, 0.9 EUR from day3; BRL and JPY have no rate.

Devices and what happened (clicks from the archive; every click is also a touchpoint candidate):
- dev-A: clicks google/g_c1 (day1 - 3 days 10:00), facebook/fb_c2 (day1 - 1 day 12:00),
  facebook/fb_c1 (day1 06:00); installs day1 12:00, attributed facebook/fb_c1 by device id.
  Revenue: 10 USD day1, 8 EUR day3, a refund of -10 USD day3, 5 USD on day3 + 5 (after the
  range: it counts in lifetime value only).
- dev-B: click google/g_c1 day1 08:00; installs day1 09:00, google/g_c1. Revenue 4 EUR day1.
- dev-C: organic install day1 10:00. Revenue 2.50 USD day1, 100 BRL day3 (no rate).
- dev-D: a google click 8 days before its install (outside the window); a click facebook/fb_c2
  with no advertising id day3 14:00; installs day3 15:00, attributed to that click by
  fingerprint. Revenue 20 USD day3.
- dev-E: organic install day3 09:00.
- dev-F: install day3 13:00, google/g_c2 by install referrer, no stored click (touch 11:00).
- ghost: an event of 3 USD day3 linked to no install.
- Clicks that convert nothing: two facebook/fb_c1 day1, one google/g_c1 day3.
Costs: facebook/fb_c1 day1 30 USD; facebook/fb_c2 day3 20 EUR; google/g_c1 day1 10 USD;
google/g_c2 day3 5 JPY (no rate).
"""

from __future__ import annotations

import pytest

from tests.analytics.helpers import (
    Scenario,
    build_scenario,
)


@pytest.fixture
def scenario(app) -> Scenario:
    return build_scenario(app)
