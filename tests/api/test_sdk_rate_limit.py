"""The SDK limiter's shared counter (attribution_site/api/throttling.py): counted in batches,
and when Redis fails, one failed request per rest (attribution_site/redis_clients.py) rather
than one per sync."""

import os
from types import SimpleNamespace

import pytest
import redis

from attribution_site import redis_clients
from attribution_site.api import throttling

NOW = 1_800_000_000.5


@pytest.fixture
def limiter(monkeypatch, settings):
    """A fresh limiter at a fixed instant; `limiter.clock.now` moves it."""
    clock = SimpleNamespace(now=NOW)
    monkeypatch.setattr(throttling, "time", SimpleNamespace(time=lambda: clock.now))
    monkeypatch.setattr(redis_clients, "time", SimpleNamespace(monotonic=lambda: clock.now))
    monkeypatch.setattr(throttling, "_pending", {})
    settings.RATELIMIT_ENABLE = True
    return SimpleNamespace(clock=clock, hit=throttling.fixed_window_hit)


def shared_count(bucket, at=NOW):
    client = redis.Redis.from_url(os.environ["REDIS_URL"])
    value = client.get(f"rl:{bucket}:{int(at)}")
    return int(value) if value is not None else None


@pytest.mark.redis
def test_small_limits_are_exact_across_the_shared_counter(limiter):
    verdicts = [limiter.hit("key:exact", limit=3) for _ in range(5)]
    assert verdicts == [None, None, None, 1, 1]
    assert shared_count("key:exact") == 5


@pytest.mark.redis
def test_large_limits_sync_once_every_hundredth_of_the_limit(limiter):
    for _ in range(25):
        limiter.hit("key:batched", limit=1000)  # syncs every 10th
    assert shared_count("key:batched") == 20


@pytest.mark.redis
def test_a_hung_counter_stalls_one_request_then_each_process_counts_alone(
        limiter, hung_redis, settings):
    settings.REDIS_URL = hung_redis.url
    verdicts = [limiter.hit("key:hung", limit=10) for _ in range(12)]
    assert verdicts == [None] * 10 + [1, 1]  # own count alone: never limits too early
    assert len(hung_redis.accepted) == 1  # the first request tried; the rest left it alone


@pytest.mark.redis
def test_after_the_rest_the_counts_kept_meanwhile_reach_the_shared_counter(
        limiter, hung_redis, settings):
    real_redis = settings.REDIS_URL
    settings.REDIS_URL = hung_redis.url
    for _ in range(4):
        limiter.hit("key:back", limit=100)
    settings.REDIS_URL = real_redis
    limiter.clock.now = NOW + 0.2  # same window, Redis still at rest
    limiter.hit("key:back", limit=100)
    assert shared_count("key:back") is None
    limiter.clock.now = NOW + redis_clients.REST_SECONDS + 0.1  # the rest is over
    limiter.hit("key:back", limit=100)
    later = NOW + redis_clients.REST_SECONDS + 0.1
    assert shared_count("key:back", at=later) == 1  # a new window starts from its own count


@pytest.mark.redis
def test_counts_kept_at_rest_are_added_within_the_same_window(limiter, hung_redis, settings,
                                                              monkeypatch):
    monkeypatch.setattr(redis_clients, "REST_SECONDS", 0.5)
    window_start = int(NOW)
    limiter.clock.now = window_start + 0.1
    real_redis = settings.REDIS_URL
    settings.REDIS_URL = hung_redis.url
    for _ in range(3):
        limiter.hit("key:window", limit=100)
    settings.REDIS_URL = real_redis
    limiter.clock.now = window_start + 0.7  # the rest is over, the window is not
    limiter.hit("key:window", limit=100)
    assert shared_count("key:window") == 4


def test_refused_counter_lets_requests_through(limiter, settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    assert limiter.hit("key:refused", limit=1) is None
    assert limiter.hit("key:refused", limit=1) == 1  # at rest: its own count says over
