"""Railroad diagrams drawn once per grammar text and kept, content-addressed.

Drawing and sanitising a grammar's diagrams costs tens of milliseconds; the
same grammar text always gives the same SVG, so the key is a hash of the text
and of the drawing code itself (a new release of diagrams.py or of the SVG
allow-list gives new keys, never stale pictures). Kept in the shared cache (all
instances benefit) and in a small per-process table in front of it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from pathlib import Path

from cachetools import LRUCache
from django.core.cache import cache
from django.utils.safestring import SafeString

from . import markdown
from .grammar import diagrams as drawing
from .grammar.ir import diagrams_allowed
from .grammar.parse import parse_grammar

SHARED_SECONDS = 30 * 24 * 3600
LOCAL_MAX = 32
_RENDERER = hashlib.blake2b(
    Path(drawing.__file__).read_bytes() + Path(markdown.__file__).read_bytes(), digest_size=8
).hexdigest()
_local: LRUCache[str, list[tuple[str, SafeString]]] = LRUCache(maxsize=LOCAL_MAX)
_lock = threading.Lock()


def diagram_key(abnf: str) -> str:
    digest = hashlib.blake2b(abnf.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"registry:diagrams:{_RENDERER}:{digest}"


def cached_diagrams(abnf: str, rules: Callable[[], dict] | None = None) -> list[tuple[str, SafeString]]:
    """(rule name, sanitised SVG) for every rule of ``abnf``; ``rules`` gives parsed rules if at hand."""
    if not abnf.strip():
        return []
    key = diagram_key(abnf)
    with _lock:
        found = _local.get(key)
    if found is not None:
        return found
    diagrams = cache.get(key)
    if diagrams is None:
        parsed = rules() if rules is not None else parse_grammar(abnf).rules
        # Drawing is not bounded by a job budget: grammars above a size get no diagrams.
        diagrams = (
            [(name, markdown.render_svg(svg)) for name, svg in drawing.grammar_diagrams(parsed)]
            if diagrams_allowed(parsed)
            else []
        )
        cache.set(key, diagrams, SHARED_SECONDS)
    with _lock:
        _local[key] = diagrams
    return diagrams


def local_clear() -> None:
    """Forget this process's table (benchmarks measure a cold start with it)."""
    with _lock:
        _local.clear()
