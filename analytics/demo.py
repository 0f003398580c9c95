"""A realistic demo app for `manage.py seed_demo` (and the analytics benchmark): installs,
clicks, events with revenue in several currencies, ad costs and currency rates over N days.

Deterministic for a given seed. The shape: 60% of installs are paid; each paid install has 1 to
3 clicks on its device in the 7 days before it (the last one is the click the waterfall chose,
and the earlier ones often come from other sources); the rest of the clicks convert nothing.
Events belong to random installs, most of them in the first days after the install; about 4%
are purchases (USD, EUR, GBP, and some BRL, which deliberately has no rate) and a few are
refunds with negative amounts. Rows are written in time order, as the service would have
recorded them, through tracking.reporting.demo_load.bulk_load.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from tracking.reporting import demo_load

SOURCES = {
    "google_ads": (["search_brand", "search_generic", "uac_install"], 0.35),
    "facebook_ads": (["lookalike_1pct", "retargeting", "broad_us"], 0.30),
    "tiktok_ads": (["spark_ads", "topview"], 0.15),
    "unity_ads": (["rewarded_video"], 0.10),
    "applovin": (["playable_q3", "interstitial"], 0.10),
}
CAMPAIGNS = [(source, campaign) for source, (campaigns, _) in SOURCES.items()
             for campaign in campaigns]
CAMPAIGN_WEIGHTS = [weight / len(campaigns) for _, (campaigns, weight) in SOURCES.items()
                    for _ in campaigns]
# (name, share of events)
EVENT_NAMES = [("session_start", 0.62), ("level_complete", 0.2), ("tutorial_complete", 0.1),
               ("add_to_cart", 0.04)]
PURCHASE_SHARE = 0.04
REFUND_SHARE = 0.002
PRICES = ["0.99", "1.99", "4.99", "9.99", "19.99", "49.99"]
CURRENCIES = [("USD", 0.70), ("EUR", 0.18), ("GBP", 0.09), ("BRL", 0.03)]
RATES = {"EUR": Decimal("0.92"), "GBP": Decimal("0.79")}  # BRL: no rate, on purpose
PAID_SHARE = 0.6
UNLINKED_EVENT_SHARE = 0.005
BATCH = 5_000
INSTALL_COLUMNS = ("id", "app_id", "device_id", "platform", "sdk_version", "installed_at",
                   "match_type", "confidence", "is_organic", "media_source", "campaign_id",
                   "click_id", "attributed_touch_time")
CLICK_COLUMNS = ("id", "app_id", "media_source", "campaign_id", "advertising_id", "clicked_at")
EVENT_COLUMNS = ("app_id", "install_id", "device_id", "event_name", "properties", "session_id",
                 "occurred_at", "received_at", "revenue_amount", "revenue_currency")


@dataclass(frozen=True)
class Sizes:
    installs: int
    events: int
    clicks: int
    days: int


@dataclass(frozen=True)
class Loaded:
    installs: int
    clicks: int
    events: int


def _uuid(rng: random.Random) -> uuid.UUID:
    return uuid.UUID(int=rng.getrandbits(128), version=4)


def seed(*, app_id: uuid.UUID, sizes: Sizes, now: datetime, seed: int,
         progress: Callable[[str, int, int], None]) -> Loaded:
    """Write the demo rows; `progress(stage, done, total)` is called every batch."""
    rng = random.Random(seed)
    start = now.timestamp() - sizes.days * 86_400
    span = sizes.days * 86_400 - 3_600  # nothing in the last hour: it is still being rolled up
    install_times = sorted(start + rng.random() * span for _ in range(sizes.installs))
    paid = [rng.random() < PAID_SHARE for _ in install_times]
    touches = [1 + (rng.random() < 0.35) + (rng.random() < 0.15) if p else 0 for p in paid]
    budget = sizes.clicks
    for index, count in enumerate(touches):  # fewer clicks asked than touchpoints: trim
        touches[index] = min(count, budget)
        budget -= touches[index]
    install_ids = [_uuid(rng) for _ in install_times]
    devices = [str(_uuid(rng)) for _ in install_times]
    # touch clicks come up to a week before their install
    demo_load.days_prepare(since=datetime.fromtimestamp(start, UTC) - timedelta(days=8),
                           now=now)

    def install_and_click_rows() -> tuple[Iterator[tuple], Iterator[tuple]]:
        clicks: list[tuple] = []

        def installs_() -> Iterator[tuple]:
            for index, moment in enumerate(install_times):
                installed_at = datetime.fromtimestamp(moment, UTC)
                if not paid[index] or touches[index] == 0:
                    yield (install_ids[index], app_id, devices[index], "android", "2.3.0",
                           installed_at, "organic", 0.0, True, None, None, None, None)
                    continue
                source, campaign = rng.choices(CAMPAIGNS, CAMPAIGN_WEIGHTS)[0]
                by_fingerprint = rng.random() < 0.1
                last_click = _uuid(rng)
                last_at = installed_at - timedelta(seconds=rng.uniform(60, 2 * 86_400))
                clicks.append((last_click, app_id, source, campaign,
                               None if by_fingerprint else devices[index], last_at))
                for _ in range(touches[index] - 1):
                    other = rng.choices(CAMPAIGNS, CAMPAIGN_WEIGHTS)[0]
                    clicks.append((_uuid(rng), app_id, *other, devices[index],
                                   last_at - timedelta(seconds=rng.uniform(60, 5 * 86_400))))
                yield (install_ids[index], app_id, devices[index], "android", "2.3.0",
                       installed_at, "fingerprint" if by_fingerprint else "device_id",
                       70.0 if by_fingerprint else 100.0, False, source, campaign, last_click,
                       last_at)

        return installs_(), clicks

    installs, touch_clicks = install_and_click_rows()
    loaded_installs = demo_load.bulk_load(
        table="installs", columns=INSTALL_COLUMNS,
        rows=_counted(installs, sizes.installs, lambda n, t: progress("installs", n, t)))

    noise = sizes.clicks - len(touch_clicks)
    noise_times = sorted(start + rng.random() * span for _ in range(noise))

    def click_rows() -> Iterator[tuple]:
        yield from touch_clicks
        for moment in noise_times:
            source, campaign = rng.choices(CAMPAIGNS, CAMPAIGN_WEIGHTS)[0]
            yield (_uuid(rng), app_id, source, campaign,
                   str(_uuid(rng)) if rng.random() < 0.5 else None,
                   datetime.fromtimestamp(moment, UTC))

    loaded_clicks = demo_load.bulk_load(
        table="click_archive", columns=CLICK_COLUMNS,
        rows=_counted(click_rows(), sizes.clicks, lambda n, t: progress("clicks", n, t)))

    loaded_events = demo_load.bulk_load(
        table="events", columns=EVENT_COLUMNS,
        rows=_counted(_event_rows(rng, app_id=app_id, sizes=sizes, now=now.timestamp(),
                                  install_times=install_times, install_ids=install_ids,
                                  devices=devices),
                      sizes.events, lambda n, t: progress("events", n, t)))
    demo_load.analyze_tables()
    return Loaded(installs=loaded_installs, clicks=loaded_clicks, events=loaded_events)


def _event_rows(rng: random.Random, *, app_id, sizes: Sizes, now: float,
                install_times: list[float], install_ids: list[uuid.UUID],
                devices: list[str]) -> Iterator[tuple]:
    # Each event is packed into one int (time in ms, then the install index) so ten million of
    # them sort quickly and take little memory; rows then come out in time order.
    shift = max(len(install_times), 1).bit_length() + 1
    unlinked = (1 << shift) - 1
    keys = []
    for _ in range(sizes.events):
        if not install_times or rng.random() < UNLINKED_EVENT_SHARE:
            moment = now - 3_600 - rng.random() * (sizes.days * 86_400 - 3_600)
            keys.append((int(moment * 1000) << shift) | unlinked)
            continue
        index = rng.randrange(len(install_times))
        installed = install_times[index]
        moment = installed + rng.expovariate(1 / (6 * 86_400)) + rng.uniform(0, 600)
        if moment > now - 3_600:
            moment = installed + rng.random() * max(now - 3_600 - installed, 0)
        keys.append((int(moment * 1000) << shift) | index)
    keys.sort()
    names = [name for name, _ in EVENT_NAMES]
    weights = [share for _, share in EVENT_NAMES]
    currencies = [code for code, _ in CURRENCIES]
    currency_weights = [share for _, share in CURRENCIES]
    for key in keys:
        index = key & unlinked
        occurred_at = datetime.fromtimestamp((key >> shift) / 1000, UTC)
        received_at = occurred_at + timedelta(seconds=rng.randint(1, 30))
        if index == unlinked:
            install_id, device = None, str(_uuid(rng))
        else:
            install_id, device = install_ids[index], devices[index]
        roll = rng.random()
        if roll < PURCHASE_SHARE + REFUND_SHARE:
            refund = roll < REFUND_SHARE
            price = rng.choice(PRICES)
            amount = f"-{price}" if refund else price
            currency = rng.choices(currencies, currency_weights)[0]
            yield (app_id, install_id, device, "refund" if refund else "purchase",
                   {"amount": amount, "currency": currency, "sku": f"pack_{price}"},
                   _uuid(rng), occurred_at, received_at, Decimal(amount), currency)
        else:
            yield (app_id, install_id, device, rng.choices(names, weights)[0], {},
                   _uuid(rng), occurred_at, received_at, None, None)


def _counted(rows: Iterator[tuple], total: int, report) -> Iterator[tuple]:
    done = 0
    for row in rows:
        yield row
        done += 1
        if done % BATCH == 0:
            report(done, total)
    if done % BATCH:
        report(done, total)


def costs(*, sizes: Sizes, today: date, seed: int) -> list:
    """Daily spend per campaign: roughly a CPI of 1.5 to 4 USD (Facebook's spend in EUR)."""
    from analytics.services import CostRow

    rng = random.Random(seed + 1)
    paid_per_day = sizes.installs * PAID_SHARE / max(sizes.days, 1)
    rows = []
    for offset in range(sizes.days, -1, -1):
        day = today - timedelta(days=offset)
        for (source, campaign), weight in zip(CAMPAIGNS, CAMPAIGN_WEIGHTS, strict=True):
            cpi = Decimal(str(round(rng.uniform(1.5, 4.0), 2)))
            spend = (cpi * Decimal(paid_per_day * weight)).quantize(Decimal("0.01"))
            currency = "EUR" if source == "facebook_ads" else "USD"
            if currency == "EUR":
                spend = (spend * RATES["EUR"]).quantize(Decimal("0.01"))
            rows.append(CostRow(day=day, media_source=source, campaign_id=campaign,
                                cost=spend, currency=currency))
    return rows


def rates(*, sizes: Sizes, today: date, seed: int) -> list:
    """A rate per currency per day, wandering a little around RATES."""
    from analytics.services import RateRow

    rng = random.Random(seed + 2)
    rows = []
    for currency, base in RATES.items():
        for offset in range(sizes.days, -1, -1):
            wobble = Decimal(str(round(rng.uniform(-0.01, 0.01), 4)))
            rows.append(RateRow(day=today - timedelta(days=offset), currency=currency,
                                units_per_usd=base + wobble))
    return rows
