"""Helpers shared by the analytics tests and the tests that build on them.

Imported by name; conftest.py keeps the fixtures pytest finds by itself.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from django.utils import timezone

from analytics import rollups
from analytics.models import CampaignCost, CurrencyRate
from tracking.models import ClickArchive, Event, Install


def at(day: date, hour: int, minute: int = 0) -> datetime:
    return datetime.combine(day, time(hour, minute), tzinfo=UTC)


def click(app, when: datetime, media_source: str, campaign_id: str,
          advertising_id: str | None = None) -> ClickArchive:
    return ClickArchive.objects.create(app=app, clicked_at=when, media_source=media_source,
                                       campaign_id=campaign_id, advertising_id=advertising_id)


def install(app, when: datetime, device_id: str | None, *, source: str | None = None,
            campaign: str | None = None, match_type: str = "device_id",
            click_id: uuid.UUID | None = None, touch: datetime | None = None) -> Install:
    organic = source is None
    return Install.objects.create(
        app=app, device_id=device_id, platform="android", sdk_version="1.0.0",
        installed_at=when, match_type="organic" if organic else match_type,
        confidence=0 if organic else 100, is_organic=organic, media_source=source,
        campaign_id=campaign, click_id=click_id, attributed_touch_time=touch)


def event(app, when: datetime, device_id: str | None, name: str = "open", *,
          install_row: Install | None = None, amount: str | None = None,
          currency: str | None = None, received_at: datetime | None = None) -> Event:
    properties = {} if amount is None else {"amount": amount, "currency": currency}
    return Event.objects.create(
        app=app, install=install_row, device_id=device_id, event_name=name,
        properties=properties, session_id=uuid.uuid4(), occurred_at=when,
        received_at=received_at or when + timedelta(seconds=5),
        revenue_amount=None if amount is None else Decimal(amount), revenue_currency=currency)


@dataclass
class Scenario:
    app: object
    day1: date
    day2: date
    day3: date
    installs: dict[str, Install]

    @property
    def range(self) -> dict[str, str]:
        return {"app_id": str(self.app.id), "start_date": self.day1.isoformat(),
                "end_date": self.day3.isoformat()}


def build_scenario(app) -> Scenario:
    day1 = timezone.now().date() - timedelta(days=40)
    day2, day3 = day1 + timedelta(days=1), day1 + timedelta(days=2)
    CurrencyRate.objects.create(currency="EUR", day=day1 - timedelta(days=10),
                                units_per_usd=Decimal("0.8"))
    CurrencyRate.objects.create(currency="EUR", day=day3, units_per_usd=Decimal("0.9"))

    click(app, at(day1 - timedelta(days=3), 10), "google", "g_c1", "dev-A")
    click(app, at(day1 - timedelta(days=1), 12), "facebook", "fb_c2", "dev-A")
    a_click = click(app, at(day1, 6), "facebook", "fb_c1", "dev-A")
    b_click = click(app, at(day1, 8), "google", "g_c1", "dev-B")
    click(app, at(day3 - timedelta(days=8), 12), "google", "g_c1", "dev-D")
    d_click = click(app, at(day3, 14), "facebook", "fb_c2", None)
    click(app, at(day1, 7), "facebook", "fb_c1", "someone-else")
    click(app, at(day1, 20), "facebook", "fb_c1", None)
    click(app, at(day3, 16), "google", "g_c1", "another-one")

    installs = {
        "A": install(app, at(day1, 12), "dev-A", source="facebook", campaign="fb_c1",
                     click_id=a_click.id, touch=a_click.clicked_at),
        "B": install(app, at(day1, 9), "dev-B", source="google", campaign="g_c1",
                     click_id=b_click.id, touch=b_click.clicked_at),
        "C": install(app, at(day1, 10), "dev-C"),
        "D": install(app, at(day3, 15), "dev-D", source="facebook", campaign="fb_c2",
                     match_type="fingerprint", click_id=d_click.id, touch=d_click.clicked_at),
        "E": install(app, at(day3, 9), "dev-E"),
        "F": install(app, at(day3, 13), "dev-F", source="google", campaign="g_c2",
                     match_type="install_referrer", touch=at(day3, 11)),
    }
    a, b, c, d = (installs[k] for k in "ABCD")
    event(app, at(day1, 12, 5), "dev-A", "open", install_row=a)
    event(app, at(day1, 13), "dev-A", "purchase", install_row=a, amount="10.00", currency="USD")
    event(app, at(day3, 10), "dev-A", "purchase", install_row=a, amount="8.00", currency="EUR")
    event(app, at(day3, 11), "dev-A", "refund", install_row=a, amount="-10.00", currency="USD")
    event(app, at(day3 + timedelta(days=5), 10), "dev-A", "purchase", install_row=a,
          amount="5.00", currency="USD")
    event(app, at(day1, 9, 30), "dev-B", "purchase", install_row=b, amount="4.00",
          currency="EUR")
    event(app, at(day1, 11), "dev-C", "purchase", install_row=c, amount="2.50", currency="USD")
    event(app, at(day3, 12), "dev-C", "purchase", install_row=c, amount="100.00",
          currency="BRL")
    event(app, at(day3, 16), "dev-D", "purchase", install_row=d, amount="20.00",
          currency="USD")
    event(app, at(day3, 17), "ghost", "purchase", amount="3.00", currency="USD")

    for day, source, campaign, cost, currency in [
            (day1, "facebook", "fb_c1", "30.00", "USD"),
            (day3, "facebook", "fb_c2", "20.00", "EUR"),
            (day1, "google", "g_c1", "10.00", "USD"),
            (day3, "google", "g_c2", "5", "JPY")]:
        CampaignCost.objects.create(app=app, day=day, media_source=source, campaign_id=campaign,
                                    cost=Decimal(cost), currency=currency)
    rollups.rebuild_app(app_id=app.id)
    return Scenario(app=app, day1=day1, day2=day2, day3=day3, installs=installs)


__all__ = [
    "at",
    "build_scenario",
    "click",
    "event",
    "install",
]
