"""What the log says the registry publishes now: its leaves replayed in order, one SNID at a time.

Every leaf kind of ``transparency.kinds`` leaves a trace here, so the comparison with the
site (``compare``) covers everything the log holds:

- ``snid-version``: the version's record (the first leaf of each version; a second one is a
  difference of its own) and the SNID's current version (the highest);
- ``administrative-change``: the current record's registrant and digest from then on;
- ``snid-resolvers``: the SNID's resolvers (the last leaf wins);
- ``steward-changed``: who is a steward (added or confirmed, until removed; the registrant's
  stewardship on approval too); ``steward-renamed``: the name a steward is listed under;
- ``snid-deprecated`` / ``snid-undeprecated``: the deprecation in force (the last wins);
- ``reservation-granted`` / ``reservation-ended``: the reservation in force (the last wins).

Each fact keeps the index of the entry it comes from, so a difference names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..logcore.kinds import (
    ADMINISTRATIVE_CHANGE,
    RESERVATION_ENDED,
    RESERVATION_GRANTED,
    SNID_DEPRECATED,
    SNID_RESOLVERS,
    SNID_UNDEPRECATED,
    SNID_VERSION,
    STEWARD_CHANGED,
    STEWARD_RENAMED,
    sha256_hex,
)


@dataclass
class Logged:
    """One SNID as the log has it. ``(index, leaf)`` pairs name the entry each fact comes from."""

    snid: str
    versions: dict[int, tuple[int, dict]] = field(default_factory=dict)
    #: The current record as the log has it: the highest version's record with the administrative
    #: changes made to it since (``record`` None when only its digest was logged).
    current: tuple[int, dict] | None = None
    resolvers: tuple[int, dict] | None = None
    #: steward name -> (index of the last entry about that name, how many stewardships go by it now). Stewards
    #: are counted, not just named: two who chose no public name are both listed under the same words.
    stewards: dict[str, tuple[int, int]] = field(default_factory=dict)
    deprecation: tuple[int, dict] | None = None  # the last snid-deprecated or snid-undeprecated leaf
    reservation: tuple[int, dict] | None = None  # the last reservation-granted or reservation-ended leaf

    @property
    def registered(self) -> bool:
        return bool(self.versions)

    def latest_version(self) -> int | None:
        return max(self.versions) if self.versions else None

    def deprecated(self) -> tuple[int, dict] | None:
        """The deprecation in force, as the log has it."""
        if self.deprecation is not None and self.deprecation[1]["kind"] == SNID_DEPRECATED.name:
            return self.deprecation
        return None


@dataclass
class Replay:
    snids: dict[str, Logged] = field(default_factory=dict)  # keyed by the lower-case SNID
    problems: list[str] = field(default_factory=list)

    def of(self, snid: str) -> Logged:
        key = snid.lower()
        if key not in self.snids:
            self.snids[key] = Logged(snid)
        return self.snids[key]


def replay(decoded: list[dict | None]) -> Replay:
    """The log's leaves (decoded; None for one that could not be, already reported) folded into SNIDs."""
    out = Replay()
    for index, leaf in enumerate(decoded):
        if leaf is None:
            continue
        kind, logged = leaf["kind"], out.of(leaf["snid"])
        if kind == SNID_VERSION.name:
            _version(out, logged, index, leaf)
        elif kind == ADMINISTRATIVE_CHANGE.name:
            _administrative(out, logged, index, leaf)
        elif kind == SNID_RESOLVERS.name:
            logged.resolvers = (index, leaf)
        elif kind == STEWARD_CHANGED.name:
            _steward(out, logged, index, leaf["steward"], -1 if leaf["change"] == "removed" else 1)
        elif kind == STEWARD_RENAMED.name:
            if _steward(out, logged, index, leaf["previous"], -1):
                _steward(out, logged, index, leaf["steward"], 1)
        elif kind in (SNID_DEPRECATED.name, SNID_UNDEPRECATED.name):
            logged.deprecation = (index, leaf)
        elif kind in (RESERVATION_GRANTED.name, RESERVATION_ENDED.name):
            logged.reservation = (index, leaf)
    return out


def _steward(out: Replay, logged: Logged, index: int, name: str, step: int) -> bool:
    """One stewardship more (``step`` 1) or fewer (-1) under ``name``; a removal or rename of a name that
    stewards no longer go by is a problem of the log itself (False)."""
    count = logged.stewards.get(name, (None, 0))[1] + step
    if count < 0:
        out.problems.append(
            f"urn:ogf:{logged.snid}: (log entry {index}): removes or renames the steward "
            f"{name!r}, whom the log does not hold as a steward at that point"
        )
        return False
    logged.stewards[name] = (index, count)
    return True


def _version(out: Replay, logged: Logged, index: int, leaf: dict) -> None:
    name = f"urn:ogf:{leaf['snid']}: version {leaf['version']}"
    if leaf.get("record") is not None and sha256_hex(leaf["record"]) != leaf["record_sha256"]:
        out.problems.append(f"{name} (log entry {index}): its record does not match its own record_sha256")
    if leaf["version"] in logged.versions:
        first = logged.versions[leaf["version"]][0]
        out.problems.append(f"{name} is registered twice in the log: entry {first} and entry {index}")
        return
    logged.versions[leaf["version"]] = (index, leaf)
    if leaf["version"] == logged.latest_version():
        logged.current = (
            index,
            {"version": leaf["version"], "record": leaf.get("record"), "record_sha256": leaf["record_sha256"]},
        )


def _administrative(out: Replay, logged: Logged, index: int, leaf: dict) -> None:
    """An approved administrative change: the version's public record reads so from now on."""
    if "record_sha256" not in leaf:
        return  # a change the record does not show (resolvers: their own leaf says what they are)
    if logged.current is None or logged.current[1]["version"] != leaf["version"]:
        out.problems.append(
            f"urn:ogf:{leaf['snid']}: (log entry {index}): an administrative change of version "
            f"{leaf['version']}, which is not the SNID's current version in the log"
        )
        return
    current = dict(logged.current[1], record_sha256=leaf["record_sha256"])
    if current["record"] is not None:
        current["record"] = {**current["record"], "registrant": leaf["registrant"]}
    logged.current = (index, current)
