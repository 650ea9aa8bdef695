"""URN lookup: is it registered, is it valid, what is its normal form.

The registry is read far more than it is written, so each process keeps an
index of the registered SNIDs in memory (one query builds it) and each SNID's
RE2 program is built from the validator stored with its approved version the
first time a URN of that SNID is looked up (one small query). Every later
lookup is a dictionary hit and one RE2 match: no query, no grammar compilation.

The index is invalidated at once in the process that approves a version (or
reserves an SNID), and in every other process within ``STAMP_TTL`` seconds: a
cheap query over the namespace table (its row count and latest change) is the
stamp shared through the database.

While the database cannot be reached (a storage fault, registry/storage.py), the index a
process already holds keeps answering, as the registry stood when the database last
answered, for at most ``REGISTRY_LOOKUP_STALE_SECONDS``: nothing can be approved while the
database is down, and lookups are what machines depend on. What needs a query (a validator
not yet loaded, any page) answers 503 meanwhile; the stamp is tried again every
``STAMP_TTL`` seconds, and the first answer ends it (docs/operations.md).
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Max, Subquery
from django.utils.cache import patch_cache_control
from django.utils.http import http_date

from .enums import NamespaceStatus
from .grammar import (
    PREFIX,
    URN_MAX_LENGTH,
    UrnSyntaxError,
    Validator,
    is_valid_snid,
    normalize,
    parse_urn,
)
from .grammar.compiler import NotChecked
from .models import Namespace, Proposal
from .signals import registry_changed
from .stewardship.models import deprecated_in_force, successor_in_force
from .stewardship.selectors import chain_of
from .storage import storage_fault
from .transparency.models import LogSigned
from .transparency.served import log_served_problem

STAMP_TTL = 1.0  # seconds between checks of the shared stamp
AS_OF_HEADER = "Registry-As-Of"  # on answers given from memory during a database outage
#: On every lookup answer while the log's signer finds the transparency log damaged: what is wrong.
LOG_DAMAGE_HEADER = "Registry-Log-Damage"


#: The route of an SNID's page (registry/views/urls.py ``namespace_detail``, under the site's root):
#: a lookup's answer links it without reversing the name, which imports the whole URL configuration
#: — every view, the API — that a command validating URNs never needs (tests/test_startup.py;
#: tests/api/test_lookup.py holds it equal to ``reverse``).
SNID_PAGE_ROUTE = "urn/<str:snid>/"


class NotAnOgfUrn(ValueError):
    """Input that is not a urn:ogf: URN at all (an API answers 400)."""


@dataclass(slots=True)
class Entry:
    snid: str
    version: int
    url: str  # the SNID's page, absolute (settings.SITE_URL)
    steps: tuple[str, ...]
    proposal_id: int
    #: Deprecated SNIDs stay valid (URNs already issued keep working); the answer says so and names the successor.
    deprecated: bool = False
    successor: str | None = None
    #: The chain of successors, nearest first (``stewardship.selectors.Chain``): B, and C once B is itself
    #: deprecated in favour of C; the last is the live end unless ``dead_end``.
    successors: tuple[str, ...] = ()
    dead_end: bool = False
    _validator: Validator | None = field(default=None, repr=False)
    _loaded: bool = field(default=False, repr=False)
    #: Validators already built for this index, by stored content: SNIDs registered with the
    #: same grammar share one RE2 program (and its memory) instead of one each.
    _shared: dict | None = field(default=None, repr=False)

    @property
    def validator(self) -> Validator | None:
        """The stored validator, read and built on this SNID's first lookup in this process."""
        if not self._loaded:
            # The measured cost comes with it: only a validator proven cheap is matched in
            # this process, any other in the bounded worker (grammar/cost.py).
            data, cost = Proposal.objects.filter(pk=self.proposal_id).values_list(
                "validator", "validator_cost__figures"
            ).first() or (None, None)
            self.adopt(data, cost)
        return self._validator

    def adopt(self, data: dict | None, cost: dict | None) -> None:
        """Take the stored validator and its measured cost (read here or by ``validators_preload``)."""
        if data:
            shared = self._shared if self._shared is not None else {}
            key = json.dumps([data, cost], sort_keys=True)
            self._validator = shared.get(key) or shared.setdefault(key, Validator.from_dict(data, cost))
        self._loaded = True


@dataclass(slots=True)
class Index:
    stamp: tuple
    entries: dict[str, Entry]  # by lower-cased SNID
    reserved: dict[str, str]  # lower-cased SNID -> ISO date or ""
    etag_prefix: str = ""  # changes with the stamp; HTTP ETags start with it
    #: Serialised HTTP answers by query string, valid exactly as long as this index
    #: (registry/views/http.py fills it, bounded by ANSWERS_MAX); dropped with the index.
    answers: dict = field(default_factory=dict)
    #: The value of LOG_DAMAGE_HEADER ("" while the log is sound): the signer's verdict, read with the stamp.
    log_damage: str = ""

    def __post_init__(self):
        self.etag_prefix = hashlib.blake2b(repr(self.stamp).encode(), digest_size=8).hexdigest()
        damage = self.stamp[2] if len(self.stamp) > 2 else ""
        # A header value: one line of ASCII, bounded.
        self.log_damage = " ".join((damage or "").encode("ascii", "replace").decode().split())[:600]


_index: Index | None = None
_checked_at = 0.0
_unreachable_at: float | None = None  # when the stamp last failed with a storage fault
_confirmed_at_wall = 0.0  # time.time() when the database last confirmed the index
#: Set for the request being answered when it was given the index without the database: when
#: (time.time()) the database last confirmed it. ``AnsweredFromMemoryMiddleware`` reads it.
_from_memory: contextvars.ContextVar[float | None] = contextvars.ContextVar("from_memory", default=None)
_lock = threading.Lock()


def _stamp() -> tuple:
    """The namespace table's count and last change, and the log signer's verdict, in one query; and what
    this server finds wrong with the checkpoint the database offers (a row older than it served: read
    with the checkpoint it serves, at most once a second)."""
    row = Namespace.objects.aggregate(
        count=Count("id"),
        changed=Max("updated_at"),
        log_damage=Max(Subquery(LogSigned.objects.filter(pk=1).values("damage")[:1])),
    )
    damage = " ".join(part for part in (row["log_damage"], log_served_problem()) if part)
    return row["count"], row["changed"], damage


def _build(stamp: tuple) -> Index:
    """One query over the namespace table (tuples, not model instances: 10,000 SNIDs stay cheap)."""
    entries, reserved, shared = {}, {}, {}
    # Absolute, from the one configured site URL, and built here once: no per-lookup work.
    page = settings.SITE_URL + "/" + SNID_PAGE_ROUTE.replace("<str:snid>", "{}")
    rows = Namespace.objects.annotate(deprecated=deprecated_in_force(), successor=successor_in_force()).values_list(
        "snid",
        "status",
        "reserved_until",
        "current_id",
        "current__version",
        "current__equivalence",
        "deprecated",
        "successor",
    )
    rows = list(rows)
    successors = {snid: successor for snid, _, _, _, _, _, deprecated, successor in rows if deprecated}
    for snid, status, until, current_id, version, equivalence, deprecated, successor in rows:
        key = snid.lower()
        chain = chain_of(successor, successors) if deprecated else chain_of(None, {})
        if status == NamespaceStatus.REGISTERED and current_id is not None:
            entries[key] = Entry(
                snid,
                version,
                page.format(snid),
                tuple(equivalence or ()),
                current_id,
                bool(deprecated),
                successor,
                chain.snids,
                chain.dead_end,
                _shared=shared,
            )
        elif status == NamespaceStatus.RESERVED:
            reserved[key] = until.isoformat() if until else ""
    return Index(stamp, entries, reserved)


def registry_index() -> Index:
    global _index, _checked_at, _unreachable_at, _confirmed_at_wall
    now = time.monotonic()
    index = _index
    if index is not None and now - _checked_at < STAMP_TTL:
        return index
    with _lock:
        if _unreachable_at is not None and now - _unreachable_at < STAMP_TTL and _may_outlive(now):
            _from_memory.set(_confirmed_at_wall)
            return _index  # tried within STAMP_TTL: the database is not asked at every request
        try:
            stamp = _stamp()
        except DatabaseError as exc:
            if storage_fault(exc) is None or not _may_outlive(now):
                raise
            _unreachable_at = now
            _from_memory.set(_confirmed_at_wall)
            return _index
        _unreachable_at = None
        if _index is None or _index.stamp != stamp:
            _index = _build(stamp)
        _checked_at, _confirmed_at_wall = now, time.time()
        return _index


class AnsweredFromMemoryMiddleware:
    """An answer given from the index in memory while the database cannot be reached says so.

    It is the registry as it stood when the database last answered (nothing can be approved
    meanwhile), which is right for a lookup or a redirect, but a client should be able to tell:
    ``Registry-As-Of`` carries that time (an HTTP date, exposed to browsers by CORS), and
    ``no-cache`` added to its Cache-Control keeps caches from serving it as fresh once the
    database is back (the ETag is unchanged, so revalidating costs a 304).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        token = _from_memory.set(None)
        try:
            response = self.get_response(request)
            since = _from_memory.get()
        finally:
            _from_memory.reset(token)
        if since is not None and response.status_code < 500:
            response[AS_OF_HEADER] = http_date(since)
            patch_cache_control(response, no_cache=True)  # what was private or no-store stays so
        return response


def validators_preload(index: Index, deadline: float | None = None, batch: int = 500) -> int:
    """Read and build the validators of ``index``'s SNIDs now, a batch per query, until ``deadline``
    (``time.monotonic()``): a worker's start (registry/warmup.py), so no SNID's first lookup after a
    restart waits for its query and its RE2 compilation. How many were loaded."""
    waiting = [entry for entry in index.entries.values() if not entry._loaded]
    loaded = 0
    for start in range(0, len(waiting), batch):
        if deadline is not None and time.monotonic() >= deadline:
            break
        chunk = waiting[start : start + batch]
        stored = {
            pk: (data, cost)
            for pk, data, cost in Proposal.objects.filter(pk__in=[entry.proposal_id for entry in chunk]).values_list(
                "pk", "validator", "validator_cost__figures"
            )
        }
        for entry in chunk:
            if not entry._loaded:
                entry.adopt(*stored.get(entry.proposal_id, (None, None)))
                loaded += 1
    return loaded


def _may_outlive(now: float) -> bool:
    """Whether the index in memory may answer while the database cannot be reached."""
    return _index is not None and now - _checked_at <= settings.REGISTRY_LOOKUP_STALE_SECONDS


def fresh_index() -> Index | None:
    """The index when it may be used without a query (stamp checked within STAMP_TTL), else None."""
    index = _index
    if index is not None and time.monotonic() - _checked_at < STAMP_TTL:
        return index
    return None


def answerable_without_query(urn: str, index: Index) -> bool:
    """Whether ``lookup_urn(urn, index)`` runs no query: the SNID is unknown or its validator is loaded."""
    entry = index.entries.get(urn[len(PREFIX) :].split(":", 1)[0].lower())
    return entry is None or entry._loaded


def registry_invalidate() -> None:
    global _index, _unreachable_at
    with _lock:
        _index, _unreachable_at = None, None


def _registry_changed(sender, **kwargs) -> None:
    registry_invalidate()


# Rooms below the lookup (stewardship) say they changed the registry by a signal, not by importing it.
registry_changed.connect(_registry_changed, dispatch_uid="registry.lookup.registry_invalidate")


def lookup_urn(urn: str, index: Index | None = None) -> dict:
    """The lookup answer for one URN (the API's lookup object).

    Raises NotAnOgfUrn for input that is not a urn:ogf: URN at all or is over
    the length cap; every other problem is an answer with ``valid: false``.
    A batch passes one ``index`` for all its URNs.
    """
    if len(urn) > URN_MAX_LENGTH:
        raise NotAnOgfUrn(f"The URN is {len(urn):,} characters long; the limit is {URN_MAX_LENGTH:,}.")
    if urn[: len(PREFIX)].lower() != PREFIX:
        raise NotAnOgfUrn(f"{urn[:60]!r} is not a urn:ogf: URN: it must start with 'urn:ogf:'.")
    try:
        parsed = parse_urn(urn)
    except UrnSyntaxError as exc:
        rest = urn[len(PREFIX) :]
        snid = rest.split(":", 1)[0] if ":" in rest else None
        entry = (index or registry_index()).entries.get(snid.lower()) if snid and is_valid_snid(snid) else None
        if entry is None:
            return _answer(urn, None, snid, False, [_located(exc)])
        return _answer(urn, None, entry.snid, True, [_located(exc)], _registration(entry))
    index = index or registry_index()
    entry = index.entries.get(parsed.snid_key)
    if entry is None:
        if parsed.snid_key in index.reserved:
            until = index.reserved[parsed.snid_key]
            why = (
                f"urn:ogf:{parsed.snid}: is reserved{' until ' + until if until else ''} but not "
                "yet registered; URNs without an assigned SNID are invalid (RFC 6453 §2.12)."
            )
        else:
            why = (
                f"urn:ogf:{parsed.snid}: is not a registered SNID; URNs without an assigned SNID "
                "are invalid (RFC 6453 §2.12)."
            )
        return _answer(urn, normalize(parsed), parsed.snid, False, [why])
    validator = entry.validator
    checked = validator is not None
    try:
        errors = validator.check(parsed) if validator is not None else []
    except NotChecked as exc:
        # Not a verdict on the URN: the answer says it was not checked against the grammar.
        errors, checked = [exc.message], False
    return _answer(urn, normalize(parsed, entry.steps), entry.snid, True, errors, _registration(entry), checked)


def _registration(entry: Entry) -> dict:
    if entry.deprecated:
        return {
            "snid": entry.snid,
            "version": entry.version,
            "url": entry.url,
            "status": "deprecated",
            "successor": entry.successor,
            "successors": list(entry.successors),
            "successor_current": entry.successors[-1] if entry.successors and not entry.dead_end else None,
        }
    return {
        "snid": entry.snid,
        "version": entry.version,
        "url": entry.url,
        "status": "registered",
        "successor": None,
        "successors": [],
        "successor_current": None,
    }


def refused(urn: str, message: str) -> dict:
    """The answer for input that is not a urn:ogf: URN, where one bad item must not fail the rest."""
    return _answer(urn[:200], None, None, False, [message])


def lookup_for_snid(urn: str, snid: str) -> dict:
    """``lookup_urn`` for one SNID's check form: a URN of another SNID is not valid there."""
    try:
        answer = lookup_urn(urn)
    except NotAnOgfUrn as exc:
        return refused(urn, str(exc))
    if answer["snid"] and answer["snid"].lower() != snid.lower():
        answer = {
            **answer,
            "valid": False,
            "valid_elsewhere": answer["valid"],
            "errors": [f"The URN belongs to urn:ogf:{answer['snid']}:, not urn:ogf:{snid}:."],
        }
    return answer


def _located(exc: UrnSyntaxError) -> str:
    return (
        exc.message
        if exc.position is None or f"haracter {exc.position}" in exc.message
        else (f"{exc.message} (at character {exc.position})")
    )


def _answer(urn, normalized, snid, registered, errors, registration=None, grammar_checked=False):
    return {
        "urn": urn,
        "normalized": normalized,
        "snid": snid,
        "registered": registered,
        "valid": registered and not errors,
        "grammar_checked": grammar_checked,
        "errors": errors,
        "registration": registration,
    }
