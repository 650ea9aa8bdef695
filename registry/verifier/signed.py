"""What the checkpoint's signatures say: how fresh it is, and which witnesses cosigned it.

A quorum counts witnesses' keys, not the lines that name them: a key given twice, or under two names,
counts once (and the reader is warned), since a cosignature's signature does not cover the name it is
filed under. A cosignature counts only if it verifies for this checkpoint's text — its origin, size,
root and extension lines — so one copied from another checkpoint, or another log's, does not.
"""

from __future__ import annotations

import datetime as dt

from ..logcore.cosignature import CosignatureVerifier, cosignature_check
from ..logcore.note import TIME_FORMAT
from .report import Report

#: How old a site's checkpoint may be (it signs a new one every minute) before it is reported.
MAX_AGE_SECONDS = 24 * 3600


def judge_freshness(report: Report, checkpoint, state: dict, max_age: float | None) -> None:
    """A frozen or replayed site keeps serving an old, validly signed checkpoint: its signed time says so."""
    signed = checkpoint.time
    if signed is None:
        report.notes.append("the checkpoint carries no time: how fresh it is cannot be told")
        return
    age = (dt.datetime.now(dt.UTC) - signed).total_seconds()
    said = f"signed {signed:%Y-%m-%d %H:%M:%S} UTC ({_age(age)} ago)"
    before = state.get("time")
    if before and signed.strftime(TIME_FORMAT) < before:
        report.problems.append(
            f"the checkpoint was {said}, earlier than the one the last run saw ({before}): "
            "the site is serving an older checkpoint than before"
        )
    elif max_age is not None and age > max_age:
        report.problems.append(
            f"the checkpoint was {said}, over {_age(max_age)}: the site signs a new one "
            "every minute, so it may be frozen or replaying an old answer"
        )
    else:
        report.notes.append(f"the checkpoint was {said}")
    report.signed_at = signed.strftime(TIME_FORMAT)


def _age(seconds: float) -> str:
    seconds = max(0, int(seconds))
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} second{'s' if seconds != 1 else ''}"


def distinct_witnesses(witnesses: list[CosignatureVerifier]) -> tuple[list[list[CosignatureVerifier]], list[str]]:
    """The witnesses given, grouped by key (one group per public key, in the order first given: the names
    that key was given under), and a sentence for each key given more than once."""
    groups: dict[bytes, list[CosignatureVerifier]] = {}
    duplicates = []
    for witness in witnesses:
        group = groups.setdefault(witness.public, [])
        if group:
            first = group[0]
            duplicates.append(
                f"--witness {witness} is given twice; it counts once"
                if witness in group
                else f"--witness {witness} is the key of {first.name} under another name; the two count as one witness"
            )
        if witness not in group:
            group.append(witness)
    return list(groups.values()), duplicates


def witnessed(report: Report, note: str, witnesses: list[CosignatureVerifier], quorum: int) -> int:
    """How many distinct witness keys of ``witnesses`` validly cosigned this checkpoint (fewer than
    ``quorum``: reported). A key given twice or under two names counts once, and is named in a warning."""
    if not witnesses:
        return 0
    groups, duplicates = distinct_witnesses(witnesses)
    report.warnings += duplicates
    valid, missing = [], []
    for names in groups:
        checked = [(witness, *cosignature_check(note, witness)) for witness in names]
        good = [(witness, when) for witness, when, _ in checked if when is not None]
        if good:
            witness, when = good[0]
            valid.append(f"{witness.name} ({dt.datetime.fromtimestamp(when, dt.UTC):%Y-%m-%d %H:%M:%S} UTC)")
        else:
            missing.append(checked[-1][2])
    if valid:
        report.notes.append(f"cosigned by {len(valid)} witness(es): {', '.join(valid)}")
    if len(valid) < quorum:
        report.problems.append(
            f"the checkpoint carries {len(valid)} valid cosignature(s) of the {quorum} required "
            f"(--quorum {quorum}): " + "; ".join(missing)
        )
    return len(valid)
