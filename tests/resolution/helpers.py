from __future__ import annotations

# The capture-heavy grammars are the benchmark's too (benchmarks/capture.py): one definition.
from benchmarks.capture import CAPTURE_HEAVY, CAPTURE_TEMPLATES, LADDER, capture_heavy, costliest_accepted, long_urn
from tests.factories import proposal_factory

__all__ = [
    "CAPTURE_HEAVY",
    "CAPTURE_TEMPLATES",
    "LADDER",
    "capture_heavy",
    "costliest_accepted",
    "long_urn",
    "EXAMPLE",
    "registered",
]

EXAMPLE = "urn:ogf:example:cluster:2009:example.net:42"


def registered(resolvers, name: str = "example", **changes):
    """An approved registration of the demo ``name`` with ``resolvers``."""
    return proposal_factory(name=name, state="approved", resolvers=resolvers, **changes)
