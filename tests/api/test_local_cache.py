"""Process-local caches: kept while the invalidation channel is up, dropped in every process
when a record changes, never trusted while this process cannot hear about changes."""

import os
import time

import pytest
import redis
from django.conf import settings as django_settings

from attribution_site import local_cache
from attribution_site.local_cache import LocalCache, channel

pytestmark = pytest.mark.redis

cache = LocalCache("test-things", ttl=30.0)


def wait_until(condition, timeout=8.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


class Source:
    """The database, as the cache sees it: a value and how often it was read."""

    def __init__(self, value="v1"):
        self.value, self.reads = value, 0

    def load(self):
        self.reads += 1
        return self.value


@pytest.fixture
def source(live_local_caches):
    return Source()


def test_a_record_is_read_once_and_then_served_from_the_process(source):
    assert [cache.get("k", source.load) for _ in range(3)] == ["v1"] * 3
    assert source.reads == 1


def test_unknown_records_are_never_kept(source):
    missing = Source(value=None)
    cache.get("k", missing.load)
    cache.get("k", missing.load)
    assert missing.reads == 2


def test_a_change_in_this_process_is_seen_at_once_and_published(source):
    listener = redis.Redis.from_url(django_settings.REDIS_URL).pubsub()
    listener.subscribe(channel())
    wait_until(lambda: listener.get_message(timeout=0.1) is not None)  # the confirmation
    cache.get("k", source.load)
    source.value = "v2"
    cache.invalidate("k")
    assert cache.get("k", source.load) == "v2"
    message = None
    while message is None or message["type"] != "message":
        message = listener.get_message(timeout=2)
        assert message is not None, "no invalidation published"
    assert message["data"] == b"test-things:k"
    listener.close()


def test_a_change_in_another_process_drops_the_copy_here(source):
    cache.get("k", source.load)
    source.value = "v2"
    # What another process's invalidate() sends.
    redis.Redis.from_url(django_settings.REDIS_URL).publish(channel(), "test-things:k")
    wait_until(lambda: cache.get("k", source.load) == "v2")
    assert source.reads == 2


def _other_database(url: str) -> str:
    db = int(redis.connection.parse_url(url).get("db") or 0)
    return f"redis://127.0.0.1:6379/{(db + 1) % 16}"


def test_each_redis_database_has_its_own_channel():
    assert channel("redis://h:6379/3") != channel("redis://h:6379/4")
    assert channel("redis://h:6379") == channel("redis://h:6379/0") == channel("redis://h/0")
    assert channel("redis://h:6379/?db=5") == channel("redis://h:6379/5")


def test_another_database_on_the_same_server_does_not_reach_this_process(source):
    """Redis hands a message to every subscriber of the server, whatever database each
    selected: a staging deployment on database 1 would drop production's copies on 0."""
    cache.get("k", source.load)
    client = redis.Redis.from_url(django_settings.REDIS_URL)
    wait_until(lambda: dict(client.pubsub_numsub(channel()))[channel().encode()] >= 1)
    other = channel(_other_database(django_settings.REDIS_URL))
    assert dict(client.pubsub_numsub(other))[other.encode()] == 0
    client.publish(other, "test-things:k")
    client.publish(channel(), "test-things:unrelated")  # heard after the other one, if it were
    time.sleep(0.3)
    assert cache.get("k", source.load) == "v1"
    assert source.reads == 1


def test_a_read_that_raced_a_change_is_not_kept(source):
    def load_while_it_changes():
        value = source.load()
        cache.invalidate("k")  # the change lands while the old value is on its way
        return value

    assert cache.get("k", load_while_it_changes) == "v1"
    cache.get("k", source.load)
    assert source.reads == 2


def test_while_the_subscription_is_down_every_read_goes_to_the_source(source):
    cache.get("k", source.load)
    generation = local_cache._subscription.generation
    server = redis.Redis.from_url(django_settings.REDIS_URL)
    [mine] = [c for c in server.client_list()
              if c["name"] == local_cache.subscriber_name(os.getpid())]
    server.client_kill_filter(_id=mine["id"])
    wait_until(lambda: local_cache._subscription.generation > generation)
    assert source.reads == 1
    cache.get("k", source.load)  # the copy from before the outage is gone
    assert source.reads == 2
    wait_until(local_cache._subscription.trusted)  # it reconnects by itself
    cache.get("k", source.load)
    cache.get("k", source.load)
    assert source.reads <= 3


def test_entries_expire_after_their_ttl(source):
    short = LocalCache("test-short", ttl=0.05)
    short.get("k", source.load)
    time.sleep(0.1)
    short.get("k", source.load)
    assert source.reads == 2


def test_without_redis_nothing_is_kept(settings):
    settings.REDIS_URL = ""
    source = Source()
    cache.get("k", source.load)
    cache.get("k", source.load)
    assert source.reads == 2
