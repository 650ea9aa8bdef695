"""Watching resolvers: polite probes, never to private addresses, and a patient verdict.

``check_resolvers`` (the management command, run from a timer) calls ``run``. Each
resolver is probed with the URLs its template gives for the registration's valid
examples (at most ``EXAMPLES_PER_RESOLVER``): HEAD, then GET when HEAD is refused,
with a timeout that bounds each request as a whole (connecting, waiting and reading:
a server that answers one byte at a time cannot hold a run), a User-Agent that says
who asks, one request at a time per host and at most ``REGISTRY_RESOLVER_RUN_CAP``
probes a run. A malformed redirect is a failed probe, never a failed run.

No SSRF: a host name is resolved here and every address it resolves to must lie outside
every block of the IANA IPv4 and IPv6 special-purpose address registries (``addresses``:
a table of them, with multicast and IPv6's non-global space — site-local fec0::/10, the
6to4 relay anycast 192.88.99.0/24, mapped, 6to4 and Teredo addresses included) unless a
network in ``REGISTRY_RESOLVER_ALLOW_PRIVATE`` contains it; the connection goes to the
address that was checked (a second DNS answer cannot move it), and every redirect is
checked the same way before it is followed.

A run succeeds for a resolver that answers (2xx or 3xx) for at least one of its example
URLs; the others' failures are noted with the check. A resolver is "down" only after
``REGISTRY_RESOLVER_DOWN_AFTER`` consecutive failed runs spanning at least
``REGISTRY_RESOLVER_DOWN_SECONDS`` — not on one blip. The registrant and the editors are
mailed once when it goes down and once when it is back (apart: neither sees the other's address).
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from .. import notify
from ..lookup import registry_invalidate
from ..models import Namespace
from ..resolving.addresses import special_block
from ..resolving.expand import ExpandError, resolver_url, urn_parts
from ..stewardship.selectors import current_with_overlay
from .models import Resolver, ResolverCheck, ResolverStatus

USER_AGENT = "urn-ogf-registry-resolver-check/1 (+{site}/urn/; checks that registered resolvers answer)"
EXAMPLES_PER_RESOLVER = 3
MAX_REDIRECTS = 5
WORKERS = 4
BODY_READ = 64 * 1024


class Refused(Exception):
    """The URL may not be fetched (an address the registry must not reach, a bad scheme)."""


@dataclass(slots=True)
class ProbeResult:
    ok: bool
    url: str
    http_code: int | None = None
    latency_ms: int | None = None
    error: str = ""


def _allowed_networks():
    value = settings.REGISTRY_RESOLVER_ALLOW_PRIVATE
    if value is True or str(value).lower() in ("all", "true", "1", "yes"):
        return "all"
    networks = []
    for item in str(value or "").split(","):
        if item.strip():
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
    return networks


def address_allowed(address: str, allowed=None) -> bool:
    """Whether the checker may connect to ``address``: outside every block of the IANA
    special-purpose registries (``addresses``), or inside a network the operator allows."""
    return refusal(address, allowed) is None


def refusal(address: str, allowed=None):
    """The special-purpose block (``addresses.Block``) that keeps the checker from ``address``,
    or None when it may connect (a public address, or one in an allowed network)."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    mapped = getattr(ip, "ipv4_mapped", None)
    allowed = _allowed_networks() if allowed is None else allowed
    if allowed == "all" or any(
        (mapped or ip) in network for network in allowed if network.version == (mapped or ip).version
    ):
        return None
    return special_block(ip)


def checked_address(url: str) -> tuple[str, int, str, str]:
    """(scheme, port, host, address to connect to) for ``url``, or Refused."""
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:  # a bad port or IPv6 literal, e.g. in a redirect's Location
        raise Refused(f"not a well-formed URL ({exc}): {url[:100]}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise Refused(f"not an http(s) URL: {url[:100]}")
    if parts.username or parts.password:
        raise Refused("URLs with user information are not followed")
    try:
        infos = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise Refused(f"{parts.hostname}: cannot be resolved ({exc.strerror})") from None
    addresses = list(dict.fromkeys(info[4][0] for info in infos))
    if not addresses:
        raise Refused(f"{parts.hostname} resolves to nothing")
    allowed = _allowed_networks()
    for address in addresses:
        if (block := refusal(address, allowed)) is not None:
            raise Refused(
                f"{parts.hostname} resolves to {address}, in {block.describe()}: an address the "
                "registry does not connect to"
            )
    return parts.scheme, port, parts.hostname, addresses[0]


class _Deadline:
    """A connection to the checked address that is cut when its time is up.

    A socket timeout bounds each wait, not the request: a server sending one byte every
    few seconds would never trip it. A timer shuts the socket down at the deadline, which
    ends whatever read is waiting (plain or TLS)."""

    _address: str
    _raw = None
    _expired = False

    def _open(self):
        if self._expired:
            raise TimeoutError("no time left")
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self._raw = raw
        if self._expired:  # the timer fired while connecting
            raw.close()
            raise TimeoutError("no time left")
        return raw

    def cut(self):
        self._expired = True
        if self._raw is not None:
            try:
                self._raw.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Pinned(_Deadline, http.client.HTTPConnection):
    def __init__(self, host, port, address, timeout):
        http.client.HTTPConnection.__init__(self, host, port, timeout=timeout)
        self._address = address

    def connect(self):
        self.sock = self._open()


class _PinnedTLS(_Deadline, http.client.HTTPSConnection):
    def __init__(self, host, port, address, timeout):
        http.client.HTTPSConnection.__init__(self, host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self):
        self.sock = self._context.wrap_socket(self._open(), server_hostname=self.host)


def _request(method: str, url: str, seconds: float) -> tuple[int, str]:
    """(status, Location) of one request that takes at most ``seconds`` in all."""
    scheme, port, host, address = checked_address(url)
    kind = _PinnedTLS if scheme == "https" else _Pinned
    connection = kind(host, port, address, seconds)
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    watchdog = threading.Timer(seconds, connection.cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        connection.request(
            method, target, headers={"User-Agent": USER_AGENT.format(site=settings.SITE_URL), "Accept": "*/*"}
        )
        response = connection.getresponse()
        if method == "GET":
            response.read(BODY_READ)
        if not connection._expired:  # a cut answer may parse as a short one: it is not one
            return response.status, response.getheader("Location") or ""
    except (OSError, http.client.HTTPException):
        if not connection._expired:
            raise
    finally:
        watchdog.cancel()
        connection.close()
    raise TimeoutError(f"no complete answer within {round(seconds, 1):g} s")


def probe(url: str, timeout: float | None = None, deadline: float | None = None) -> ProbeResult:
    """HEAD (then GET if HEAD is refused) ``url``, following checked redirects.

    Each request takes at most ``timeout`` seconds in all; ``deadline`` (a
    ``time.monotonic()`` value) bounds the whole probe, redirects included."""
    timeout = timeout or settings.REGISTRY_RESOLVER_TIMEOUT
    started = time.monotonic()
    current = url

    def seconds() -> float:
        left = timeout if deadline is None else min(timeout, deadline - time.monotonic())
        if left <= 0:
            raise TimeoutError("the probe's time was spent")
        return left

    try:
        for _ in range(MAX_REDIRECTS + 1):
            status, location = _request("HEAD", current, seconds())
            if status in (405, 501) or status >= 400:
                status, location = _request("GET", current, seconds())
            if status in (301, 302, 303, 307, 308) and location:
                current = urljoin(current, location)
                continue
            latency = int((time.monotonic() - started) * 1000)
            return ProbeResult(status < 400, url, status, latency, "" if status < 400 else f"HTTP {status}")
        return ProbeResult(False, url, None, None, f"more than {MAX_REDIRECTS} redirects")
    except Refused as exc:
        return ProbeResult(False, url, None, None, f"refused: {exc}"[:500])
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return ProbeResult(
            False, url, None, int((time.monotonic() - started) * 1000), f"{type(exc).__name__}: {exc}"[:500]
        )


def _urls(resolver: Resolver) -> list[str]:
    current = resolver.namespace.current
    urls = []
    for example in current.examples_valid[:EXAMPLES_PER_RESOLVER]:
        parts = urn_parts(example, current.equivalence)
        if parts is None:
            continue
        try:
            urls.append(resolver_url(resolver.as_data(), resolver.program, *parts))
        except ExpandError:
            continue
    return urls


def run(now=None, cap: int | None = None) -> list[tuple[Resolver, ProbeResult]]:
    """Probe every current resolver once (bounded: never checked first, then the longest unchecked);
    record and judge; return what was seen."""
    cap = settings.REGISTRY_RESOLVER_RUN_CAP if cap is None else cap
    resolvers = list(
        Resolver.objects.current()
        .filter(namespace__current__isnull=False)
        .select_related("namespace", "namespace__current")
        .order_by(F("last_checked_at").asc(nulls_first=True), "id")
    )
    jobs, budget = [], cap
    for resolver in resolvers:
        urls = _urls(resolver)[: max(budget, 0)]
        if urls:
            jobs.append((resolver, urls))
            budget -= len(urls)
    host_locks: dict[str, threading.Lock] = defaultdict(threading.Lock)

    def probe_all(urls: list[str]) -> ProbeResult:
        results = []
        for url in urls:
            with host_locks[urlsplit(url).hostname or ""]:
                results.append(probe(url))
        # A resolver that answers for any example is up: registrations' examples are often made
        # up, and one the provider does not hold must not take it out of resolution. The failures
        # are kept in the check's note.
        answered = [r for r in results if r.ok]
        failed = [r for r in results if not r.ok]
        if not answered:
            return failed[0]
        if failed:
            answered[0].error = (
                f"{len(answered)} of {len(results)} example URLs answered; {failed[0].url} gave {failed[0].error}"
            )[:500]
        return answered[0]

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        outcomes = list(pool.map(lambda job: probe_all(job[1]), jobs))
    seen = []
    for (resolver, _urls_probed), result in zip(jobs, outcomes, strict=True):
        record(resolver, result, now=now)
        seen.append((resolver, result))
    return seen


@transaction.atomic
def record(resolver: Resolver, result: ProbeResult, now=None) -> Resolver:
    """Add the check to the history and move the resolver's status; mail on down / back up."""
    now = now or timezone.now()
    locked = Resolver.objects.select_for_update().get(pk=resolver.pk)
    locked.namespace = Namespace.objects.select_related("current").get(pk=locked.namespace_id)
    check = ResolverCheck.objects.create(
        resolver=locked,
        checked_at=now,
        ok=result.ok,
        http_code=result.http_code,
        latency_ms=result.latency_ms,
        url=result.url[:2000],
        error=result.error[:500],
    )
    before = locked.status
    if result.ok:
        locked.status, locked.consecutive_failures, locked.failing_since = ResolverStatus.UP, 0, None
    else:
        locked.consecutive_failures += 1
        locked.failing_since = locked.failing_since or now
        spanned = (now - locked.failing_since).total_seconds()
        if (
            locked.consecutive_failures >= settings.REGISTRY_RESOLVER_DOWN_AFTER
            and spanned >= settings.REGISTRY_RESOLVER_DOWN_SECONDS
        ):
            locked.status = ResolverStatus.DOWN
        elif locked.status != ResolverStatus.DOWN:
            locked.status = ResolverStatus.FAILING
    locked.last_checked_at = now
    locked.save()
    if locked.status != before:
        Namespace.objects.filter(pk=locked.namespace_id).update(updated_at=timezone.now())
        transaction.on_commit(registry_invalidate)
    went = (
        "resolver_down"
        if locked.status == ResolverStatus.DOWN != before
        else "resolver_up"
        if before == ResolverStatus.DOWN and locked.status == ResolverStatus.UP
        else ""
    )
    if went:
        # Two mails, so nobody learns another's address: the registrant's address in force
        # (a steward may have changed it since approval) and the editors'.
        registrant = current_with_overlay(locked.namespace).registrant_email
        context = {"resolver": locked, "snid": locked.namespace.snid, "check": check}
        notify.later(went, [registrant], context)
        notify.later(went, lambda: [e for e in notify.editors_emails() if e != registrant], context)
    return locked
