"""Process-local caches of records that rarely change and are read on every SDK request (API
keys, an app's redirect facts and delivery targets), dropped in every process the moment they
change.

Read from Redis or PostgreSQL, each costs the install path a round trip: about a tenth of its
time. Kept in the process they cost nothing, and the work is keeping every process's copy
right:
- a change drops the entry in its own process at once and, once committed, publishes the key
  on one Redis channel that every process listens to (one daemon thread per process), one
  channel per Redis database: Redis delivers a message to every subscriber of the server,
  whatever database it selected, and two deployments often share a server on two databases;
- a process trusts its copies only while its subscription is up and answering pings; when it
  drops, the copies are thrown away and every read goes to the source until it is back;
- a fill that raced an invalidation is not kept (a generation counter);
- entries also expire after a short TTL, the bound on a message lost in some other way.
Who changes a cached record does not call the invalidation: `invalidate_on_write` ties it to
the model's own saves and deletes, whoever writes (services, the admin, a shell, a cascade).
Without Redis (the SQLite first-run default) nothing is cached here. See docs/decisions.md.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Hashable
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models.signals import post_delete, post_save
from redis.connection import parse_url

from attribution_site import redis_clients

logger = logging.getLogger(__name__)

_CHANNEL = "attribution:local-cache:invalidate"
PING_SECONDS = 1.0
SILENCE_SECONDS = 3.5  # no message or pong for this long: the subscription is not trusted
MAX_ENTRIES = 10_000


class _Subscription:
    """This process's subscription to the invalidation channel, started on first use (so after
    gunicorn or Celery forks) and restarted whenever it fails."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pid: int | None = None
        self.generation = 0  # bumped by every invalidation and every (re)connection
        self.heard_at = float("-inf")
        self.caches: dict[str, LocalCache] = {}

    def trusted(self) -> bool:
        return time.monotonic() - self.heard_at < SILENCE_SECONDS

    def ensure_started(self) -> None:
        if self.pid == os.getpid():
            return
        with self.lock:
            if self.pid == os.getpid():
                return
            self.pid = os.getpid()
            self.heard_at = float("-inf")
            # The Redis of the start, kept for every reconnection: a setting repointed later
            # (tests do, to a hung server) must not pull this thread along.
            threading.Thread(target=self._run, args=(self.pid, settings.REDIS_URL), daemon=True,
                             name="local-cache-invalidations").start()

    def invalidated(self, name: str, key: str) -> None:
        self.generation += 1
        cache = self.caches.get(name)
        if cache is not None:
            cache.drop(key)

    def _drop_everything(self) -> None:
        self.generation += 1
        self.heard_at = float("-inf")
        for cache in list(self.caches.values()):
            cache.clear()

    def _run(self, pid: int, url: str) -> None:
        delay = 0.5
        while self.pid == pid:
            try:
                self._listen(pid, url)
            except Exception:  # noqa: BLE001 - any failure: distrust, wait, reconnect
                logger.warning("local cache invalidations interrupted; reading through",
                               exc_info=True)
            self._drop_everything()
            time.sleep(delay)
            delay = min(delay * 2, 30.0)

    def _listen(self, pid: int, url: str) -> None:
        # Its own long-lived connection, plain: this thread is off the request path and waits
        # for messages far longer than a request would wait for an answer.
        client = redis_clients.client(url, resting=False, shared=False, socket_connect_timeout=2,
                                   socket_timeout=10, client_name=subscriber_name(pid))
        pubsub = client.pubsub()
        try:
            pubsub.subscribe(channel(url))
            pinged = 0.0
            while self.pid == pid:
                message = pubsub.get_message(timeout=PING_SECONDS / 2)
                now = time.monotonic()
                if message is not None:
                    kind = message["type"]
                    if kind == "subscribe":  # copies made while we were deaf are dropped
                        self._drop_everything()
                    elif kind == "message":
                        name, _, key = _text(message["data"]).partition(":")
                        self.invalidated(name, key)
                    self.heard_at = now
                if now - pinged >= PING_SECONDS:
                    pubsub.ping()
                    pinged = now
                if now - self.heard_at > SILENCE_SECONDS:
                    raise ConnectionError("no answer to pings on the invalidation channel")
        finally:
            pubsub.close()
            client.close()


def channel(url: str | None = None) -> str:
    """The invalidation channel of the Redis database `url` (REDIS_URL by default) names."""
    return f"{_CHANNEL}:{parse_url(url or settings.REDIS_URL).get('db') or 0}"


def subscriber_name(pid: int) -> str:
    """The name a process's subscription shows in Redis' CLIENT LIST."""
    return f"attribution-local-cache-{pid}"


def _text(data: Any) -> str:
    return data.decode() if isinstance(data, bytes) else str(data)


_subscription = _Subscription()


def _publish(name: str, key: str) -> None:
    try:
        # Plain, not resting: a revocation must reach the other processes even while this one
        # leaves Redis alone after a failure.
        publisher = redis_clients.client(resting=False, socket_connect_timeout=1, socket_timeout=1)
        publisher.publish(channel(), f"{name}:{key}")
    except Exception:  # noqa: BLE001 - other processes keep their copy for at most the TTL
        logger.error("could not publish the invalidation of %s %s", name, key, exc_info=True)


class LocalCache:
    """Values by key, loaded by the caller's function and kept at most `ttl` seconds."""

    def __init__(self, name: str, *, ttl: float):
        if ":" in name:
            raise ValueError("a cache name cannot contain ':'")
        self.name = name
        self.ttl = ttl
        # The module that made it (each cache is a module-level value), for the map.
        self.owner = sys._getframe(1).f_globals.get("__name__", "")
        self._entries: dict[str, tuple[float, Any]] = {}
        _subscription.caches[name] = self

    def get(self, key: Hashable, load: Callable[[], Any]) -> Any:
        """The cached value, or `load()`; None is never kept (unknown keys stay unknown)."""
        if not settings.REDIS_URL:
            return load()
        _subscription.ensure_started()
        key = str(key)
        now = time.monotonic()
        if _subscription.trusted():
            entry = self._entries.get(key)
            if entry is not None and entry[0] > now:
                return entry[1]
        generation = _subscription.generation
        value = load()
        if (value is not None and _subscription.trusted()
                and _subscription.generation == generation):
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[key] = (now + self.ttl, value)
        return value

    def invalidate(self, key: Hashable) -> None:
        """The record changed: drop it here and (after the change commits) everywhere."""
        key = str(key)
        _subscription.invalidated(self.name, key)
        if settings.REDIS_URL:
            _publish(self.name, key)

    def drop(self, key: str) -> None:
        self._entries.pop(key, None)

    def clear(self) -> None:
        self._entries.clear()


# Each model whose writes invalidate, and the module that tied it (an app's apps.py), for the map.
_watched: dict[str, str] = {}


def invalidate_on_write(model: type[models.Model],
                        changed: Callable[[models.Model, bool], None]) -> None:
    """Call `changed(row, deleted)` for every row of `model` saved or deleted, by any writer.

    Django sends these signals for each row an instance or a queryset saves or deletes, the
    admin's change and delete pages and its delete-selected action included, and for each row
    a deleted parent takes with it (the collector loads such rows instead of deleting them
    blind once a receiver listens). QuerySet.update(), bulk_create and raw SQL send nothing: a
    writer that changes a cached field that way calls `changed` itself (docs/decisions.md,
    "Cache invalidation follows the model")."""
    label = model._meta.label
    _watched[label] = changed.__module__

    def saved(sender, instance, **kwargs):
        changed(instance, False)

    def deleted(sender, instance, **kwargs):
        changed(instance, True)

    post_save.connect(saved, sender=model, weak=False, dispatch_uid=f"local-cache:{label}:save")
    post_delete.connect(deleted, sender=model, weak=False,
                        dispatch_uid=f"local-cache:{label}:delete")


def describe() -> list[dict[str, str]]:
    """The process's caches, as the map lists them (docs/architecture.md): each one's name, the
    module that keeps it and how long an entry may live."""
    return [{"name": cache.name, "app": cache.owner.split(".")[0], "module": cache.owner,
             "ttl": f"{cache.ttl:g} s"}
            for cache in sorted(_subscription.caches.values(), key=lambda cache: cache.name)]


def describe_watched() -> list[dict[str, str]]:
    """The models whose every save and delete invalidates (`invalidate_on_write`), and the app
    whose start-up tied them, as the map lists them (docs/architecture.md)."""
    return [{"model": label, "app": module.split(".")[0]}
            for label, module in sorted(_watched.items())]


def clear_all() -> None:
    """Forget every local copy in this process (tests start from a clean slate)."""
    _subscription.generation += 1
    for cache in list(_subscription.caches.values()):
        cache.clear()
