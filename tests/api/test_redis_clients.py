"""After Redis fails, the process leaves it alone for a while (attribution_site/redis_clients.py):
one slow call per rest, not one per use, and the SDK endpoints keep answering."""

import logging
import os
import uuid

import pytest
import redis
from django.test import override_settings

from attribution_site import local_cache, redis_clients
from delivery.enqueue import deliveries_enqueue
from tests.factories import issue_key


def resting_client(url, timeout=0.3):
    return redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout,
                                **redis_clients.connection_options(url))


def test_a_hung_redis_is_waited_for_once_then_left_alone(hung_redis):
    client = resting_client(hung_redis.url)
    with pytest.raises(redis.RedisError):  # a timeout; its one retry finds Redis at rest
        client.ping()
    assert redis_clients.resting()
    for _ in range(3):
        with pytest.raises(redis.ConnectionError, match="at rest"):
            client.ping()
    assert len(hung_redis.accepted) == 1


def test_a_refusing_redis_puts_it_at_rest():
    client = resting_client("redis://127.0.0.1:1/0")
    with pytest.raises(redis.ConnectionError):
        client.ping()
    assert redis_clients.resting()


@pytest.mark.redis
def test_a_connection_closed_by_redis_is_replaced_without_a_rest():
    client = resting_client(os.environ["REDIS_URL"])
    client.ping()
    client_id = client.client_id()
    redis.Redis.from_url(os.environ["REDIS_URL"]).client_kill_filter(_id=client_id)
    assert client.ping() is True  # the retry reconnected
    assert not redis_clients.resting()


def test_the_rest_ends(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(redis_clients, "time", type("Clock", (), {
        "monotonic": staticmethod(lambda: clock[0])}))
    redis_clients.failed()
    assert redis_clients.resting()
    clock[0] += redis_clients.REST_SECONDS + 0.01
    assert not redis_clients.resting()


@pytest.mark.redis
@pytest.mark.django_db
def test_installs_keep_answering_while_redis_hangs(api, app, hung_redis, settings,
                                                   live_local_caches):
    """The API-key cache and the limiter's count live in Redis: a hang costs the first request
    one timeout, and the others do not wait at all. (The local caches' subscription is up on
    the real Redis first, so that its thread never dials the hung one.)"""
    hung_cache = {"default": {"BACKEND": "attribution_site.cache.ReusingRedisCache",
                              "LOCATION": hung_redis.url,
                              "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    key = issue_key(app, rate_limit=100)  # the limiter goes to Redis on every request
    settings.REDIS_URL = hung_redis.url
    api.credentials(HTTP_X_API_KEY=key)
    statuses = []
    with override_settings(CACHES=hung_cache):
        for _ in range(3):
            local_cache.clear_all()  # every request reads the key through the shared cache
            statuses.append(api.post("/api/v1/installs", {
                "app_id": str(app.id), "platform": "android", "sdk_version": "2.4.0",
                "device_id": str(uuid.uuid4())}, format="json").status_code)
    assert statuses == [201, 201, 201]
    assert len(hung_redis.accepted) == 1


def test_deliveries_are_left_to_the_sweep_while_redis_clientss(caplog):
    redis_clients.failed()
    with caplog.at_level(logging.WARNING, logger="outbox.enqueue"):
        deliveries_enqueue([str(uuid.uuid4())])
    assert "1 left to the sweep (delivery)" in caplog.text
