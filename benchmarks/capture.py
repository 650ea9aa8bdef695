"""Capture-heavy registrations: the costliest kind of resolver set, for the benchmark and the tests.

A grammar of many overlapping alternatives under a repetition, whose rules ten templates
name, costs little to validate and much to capture (registry/resolving/cost.py). ``LADDER``
goes from cheap to costly; ``costliest_accepted`` measures each as the review does and
returns the costliest one within the resolution budget. No Django needed.
"""

from __future__ import annotations

#: Characters other than 'a' (and the quote) for the overlapping classes below.
_OTHERS = [chr(c) for c in range(0x21, 0x7F) if chr(c) not in 'aA"']


def capture_heavy(count: int = 10, rep: int = 50) -> str:
    """A grammar whose validator is cheap and whose capture is not: ten rules ``c1`` … ``c10`` (each
    the next, so each matches the whole string and every template is filled) over
    ``*("a" / "b") "a" (x1 / … / xN)``, each ``xi = rep("a" / three other characters)`` — many
    alternatives of character classes that all contain 'a', under a repetition. Ten templates
    name c1 … c10."""
    rules, names = [], []
    for i in range(1, count + 1):
        extra = sorted(
            {_OTHERS[i % len(_OTHERS)], _OTHERS[(i * 7) % len(_OTHERS)], _OTHERS[(i // len(_OTHERS)) % len(_OTHERS)]}
        )
        rules.append(f'x{i} = {rep}("a" / ' + " / ".join(f"%x{ord(c):02X}" for c in extra) + ")")
        names.append(f"x{i}")
    chain = ["sss = c1"] + [f"c{i} = c{i + 1}" for i in range(1, 10)]
    chain.append('c10 = *("a" / "b") "a" (' + " / ".join(names) + ")")
    return "\n".join(chain + rules) + "\n"


CAPTURE_HEAVY = capture_heavy()
CAPTURE_TEMPLATES = [
    {"name": f"provider {i}", "template": f"https://data{i}.example.org/{{c{i}}}"} for i in range(1, 11)
]


def long_urn(snid: str = "example") -> str:
    """A URN of the capture-heavy grammars of the maximum length (4,096 characters)."""
    head = f"urn:ogf:{snid}:"
    return head + "a" * (4096 - len(head))


#: Capture-heavy grammars from cheap to costly: the review accepts the first few.
LADDER = ((10, 2), (10, 4), (12, 4), (13, 4), (10, 5), (10, 6), (14, 4), (10, 8))


def costliest_accepted():
    """(count, rep, cost) of the costliest capture-heavy grammar the review accepts (measured now,
    as the review measures it)."""
    from registry.grammar import grammar_compile
    from registry.resolving.cost import measure_resolution
    from registry.resolving.expand import program_of

    templates = [t["template"] for t in CAPTURE_TEMPLATES]
    best = None
    for count, rep in LADDER:
        compiled = grammar_compile(capture_heavy(count, rep))
        if not compiled.ok:
            continue
        cost = measure_resolution(compiled, templates, program_of(compiled, templates))
        if cost.cheap and (best is None or cost.total_ms > best[2].total_ms):
            best = (count, rep, cost)
    assert best is not None, "no capture-heavy grammar accepted at all"
    return best
