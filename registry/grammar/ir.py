"""A small intermediate form of an ABNF grammar, built from the ``abnf`` parse tree.

The ``abnf`` package parses the grammar text; we walk its syntax tree once into
these frozen nodes, which every later stage (analysis, regular-expression
compiler, diagrams, ABNF printer) reads. The package's own combinator objects
are not used for that because they hide their children (its Rust backend
exposes none) and because it refuses core-rule redefinitions that real
registrations contain.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Alt:
    items: tuple


@dataclass(frozen=True, slots=True)
class Cat:
    items: tuple


@dataclass(frozen=True, slots=True)
class Rep:
    min: int
    max: int | None  # None: unbounded
    item: object


@dataclass(frozen=True, slots=True)
class Lit:
    """A quoted string; ABNF strings are case-insensitive unless %s or numeric."""

    text: str
    case_sensitive: bool


@dataclass(frozen=True, slots=True)
class Range:
    """One character from lo..hi (code points), from %x41-5A."""

    lo: int
    hi: int


@dataclass(frozen=True, slots=True)
class Ref:
    name: str
    line: int = field(compare=False, default=0)

    @property
    def key(self) -> str:
        return self.name.casefold()


@dataclass(frozen=True, slots=True)
class Prose:
    """``<free text>``: not machine-readable unless our table knows it."""

    text: str
    line: int = field(compare=False, default=0)


@dataclass(slots=True)
class RuleDef:
    name: str
    expr: object
    line: int
    end_line: int


EMPTY = Cat(())


def walk(expr):
    """Every node of ``expr``, depth first, not following references."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (Alt, Cat)):
            stack.extend(reversed(node.items))
        elif isinstance(node, Rep):
            stack.append(node.item)


def grammar_nodes(rules) -> int:
    """How many IR nodes the rules hold (a measure of what drawing them costs)."""
    return sum(1 for rule in rules.values() for _ in walk(rule.expr))


def diagrams_allowed(rules) -> bool:
    from .limits import DIAGRAM_MAX_NODES

    return grammar_nodes(rules) <= DIAGRAM_MAX_NODES


def alt(items) -> object:
    items = tuple(items)
    return items[0] if len(items) == 1 else Alt(items)


def cat(items) -> object:
    items = tuple(items)
    return items[0] if len(items) == 1 else Cat(items)


# --- printing back to ABNF ----------------------------------------------------------------


def _num(code: int) -> str:
    return f"%x{code:02X}"


def to_abnf(expr, name_of=lambda ref: ref.name, prose=lambda node: f"<{node.text}>") -> str:
    """ABNF text for ``expr``; ``name_of`` renames references, ``prose`` expands prose."""

    def emit(node, nested: bool) -> str:
        if isinstance(node, Alt):
            text = " / ".join(emit(item, True) for item in node.items)
            return f"( {text} )" if nested else text
        if isinstance(node, Cat):
            if not node.items:
                return '""'
            text = " ".join(emit(item, True) for item in node.items)
            return f"( {text} )" if nested and len(node.items) > 1 else text
        if isinstance(node, Rep):
            inner = emit(node.item, True)
            if node.min == 0 and node.max == 1:
                return f"[ {emit(node.item, False)} ]"
            if node.max is not None and node.min == node.max:
                return f"{node.min}{inner}"
            low = str(node.min) if node.min else ""
            high = str(node.max) if node.max is not None else ""
            return f"{low}*{high}{inner}"
        if isinstance(node, Lit):
            if '"' not in node.text and all(0x20 <= ord(c) <= 0x7E for c in node.text):
                if node.case_sensitive and any(c.isalpha() for c in node.text):
                    return f'%s"{node.text}"'
                return f'"{node.text}"'
            return "%x" + ".".join(f"{ord(c):02X}" for c in node.text)
        if isinstance(node, Range):
            return _num(node.lo) if node.lo == node.hi else f"{_num(node.lo)}-{node.hi:02X}"
        if isinstance(node, Ref):
            return name_of(node)
        if isinstance(node, Prose):
            return prose(node)
        raise TypeError(node)  # pragma: no cover

    return emit(expr, False)
