"""The shared cache as an optimisation, never a dependency.

Redis makes pages, throttles and compiled grammars shared between web processes;
losing it must only make the site slower. ``ResilientCache`` is the Django cache
backend the settings use when REDIS_URL is set. It talks to Redis through
django-redis with short socket timeouts, and the first error (Redis stopped,
full under ``noeviction``, frozen, or unreachable) opens a circuit breaker: for
``BREAKER_SECONDS`` every call goes to this process's own bounded memory
(Django's LocMemCache, least recently used out first) instead, and after that one
call at a time probes Redis again. A throttle then counts per process, which is
a looser but still real limit; a cached page is simply rendered again.

Every entry expires: ``timeout=None`` ("for ever") is read as ``MAX_TIMEOUT``,
and no timeout is longer than that, so nothing fills Redis for good.

Keys are never deleted to invalidate anything (pages and API answers carry the
registry stamp, Markdown and grammars a hash of their text), so what Redis held
before an outage is never stale after it.
"""

from __future__ import annotations

import logging
import socket
import threading
import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache
from django.core.cache.backends.locmem import LocMemCache

logger = logging.getLogger(__name__)

#: Defaults of the OPTIONS the backend reads (settings: REGISTRY_CACHE_*; docs/operations.md).
SOCKET_TIMEOUT = 0.25  # seconds for one Redis command (and for connecting)
BREAKER_SECONDS = 30.0  # seconds on local memory after a Redis error before probing again
MAX_TIMEOUT = 7 * 24 * 3600  # no entry lives longer than this
LOCAL_MAX_ENTRIES = 2000  # entries in the per-process fallback


def _redis_errors() -> tuple[type[BaseException], ...]:
    from django_redis.exceptions import ConnectionInterrupted
    from redis.exceptions import RedisError

    return (ConnectionInterrupted, RedisError, OSError, socket.timeout)


class _Breaker:
    """Whether Redis is asked, shared by every thread of the process (Django makes one cache
    object per thread; a breaker per thread would pay the time-out once in each)."""

    def __init__(self):
        self.open_until = 0.0  # monotonic time until which Redis is not asked; 0: closed
        self.lock = threading.Lock()


_breakers: dict[str, _Breaker] = {}
_breakers_lock = threading.Lock()


def _breaker(location: str) -> _Breaker:
    with _breakers_lock:
        return _breakers.setdefault(location, _Breaker())


class ResilientCache(BaseCache):
    """Redis while it answers; this process's bounded memory while it does not."""

    def __init__(self, server, params):
        super().__init__(params)
        from django_redis.cache import RedisCache

        options = dict(params.get("OPTIONS") or {})
        self.socket_timeout = float(options.pop("SOCKET_TIMEOUT", SOCKET_TIMEOUT))
        self.breaker_seconds = float(options.pop("BREAKER_SECONDS", BREAKER_SECONDS))
        self.max_timeout = int(options.pop("MAX_TIMEOUT", MAX_TIMEOUT))
        local_entries = int(options.pop("LOCAL_MAX_ENTRIES", LOCAL_MAX_ENTRIES))
        redis_options = {
            "CLIENT_CLASS": "django_redis.client.DefaultClient",
            "SOCKET_CONNECT_TIMEOUT": self.socket_timeout,
            "SOCKET_TIMEOUT": self.socket_timeout,
            **options,
        }
        shared = {key: value for key, value in params.items() if key != "OPTIONS"}
        self.redis = RedisCache(server, {**shared, "OPTIONS": redis_options})
        # One fallback table per process and location, shared by its threads (LocMemCache
        # keeps its data by name), so a local throttle counts every thread's requests.
        self.local = LocMemCache(f"registry-fallback:{server}", {**shared, "OPTIONS": {"MAX_ENTRIES": local_entries}})
        self._errors = _redis_errors()
        self._breaker = _breaker(str(server))

    # --- the breaker ---------------------------------------------------------------------

    @property
    def redis_in_use(self) -> bool:
        """Whether calls go to Redis now (False while the breaker is open)."""
        return self._breaker.open_until == 0.0

    def _try_redis(self) -> bool:
        breaker = self._breaker
        if breaker.open_until == 0.0:
            return True
        with breaker.lock:
            if breaker.open_until == 0.0:
                return True
            now = time.monotonic()
            if now < breaker.open_until:
                return False
            # Half-open: this call probes; the others keep to local memory meanwhile.
            breaker.open_until = now + self.breaker_seconds
            return True

    def _call(self, name: str, *args, **kwargs):
        if self._try_redis():
            try:
                result = getattr(self.redis, name)(*args, **kwargs)
            except ValueError:
                raise  # incr/decr of a missing key: an answer, not a fault
            except self._errors as exc:
                with self._breaker.lock:
                    was_closed = self._breaker.open_until == 0.0
                    self._breaker.open_until = time.monotonic() + self.breaker_seconds
                if was_closed:
                    logger.warning(
                        "shared cache unavailable (%s); using this process's memory for %g s", exc, self.breaker_seconds
                    )
            else:
                if self._breaker.open_until != 0.0:
                    with self._breaker.lock:
                        self._breaker.open_until = 0.0
                    logger.warning("shared cache available again")
                return result
        return getattr(self.local, name)(*args, **kwargs)

    def _timeout(self, timeout):
        if timeout is DEFAULT_TIMEOUT:
            timeout = self.default_timeout
        if timeout is None:
            return self.max_timeout
        return min(timeout, self.max_timeout)

    # --- Django's cache interface --------------------------------------------------------

    def get(self, key, default=None, version=None):
        return self._call("get", key, default, version=version)

    def get_many(self, keys, version=None):
        return self._call("get_many", keys, version=version)

    def has_key(self, key, version=None):
        return self._call("has_key", key, version=version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("set", key, value, self._timeout(timeout), version=version)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("add", key, value, self._timeout(timeout), version=version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        result = self._call("set_many", data, self._timeout(timeout), version=version)
        return result or []

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._call("touch", key, self._timeout(timeout), version=version)

    def delete(self, key, version=None):
        return self._call("delete", key, version=version)

    def delete_many(self, keys, version=None):
        return self._call("delete_many", keys, version=version)

    def incr(self, key, delta=1, version=None):
        return self._call("incr", key, delta, version=version)

    def decr(self, key, delta=1, version=None):
        return self._call("decr", key, delta, version=version)

    def clear(self):
        self.local.clear()
        return self._call("clear")

    def close(self, **kwargs):
        try:
            self.redis.close(**kwargs)
        except self._errors:  # closing a lost connection is not a fault either
            pass
