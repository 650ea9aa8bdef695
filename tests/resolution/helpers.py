from __future__ import annotations

# The capture-heavy grammars are the benchmark's too (benchmarks/capture.py): one definition.
from benchmarks.capture import (
    capture_heavy,  # noqa: F401
)
from tests.factories import proposal_factory

EXAMPLE = "urn:ogf:example:cluster:2009:example.net:42"


def registered(resolvers, name: str = "example", **changes):
    """An approved registration of the demo ``name`` with ``resolvers``."""
    return proposal_factory(name=name, state="approved", resolvers=resolvers, **changes)
