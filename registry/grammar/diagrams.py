"""Railroad (syntax) diagrams of a grammar's rules, as SVG, with ``railroad-diagrams``.

Diagrams are drawn from our IR of the parse tree, one per rule, with rule
references linking to the rule's own diagram (``#rule-<name>``). The library
escapes all text it writes, so grammar text cannot inject markup.

Two things keep them readable: alternatives that are single characters
("0" / "1" / … / "f") are drawn as one class box ("0-9 a-f"), and long
sequences wrap onto rows of at most ``WRAP_WIDTH`` so a diagram fits a column.
"""

from __future__ import annotations

import railroad

from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep, RuleDef, walk
from .parse import CORE_RULES

#: Sequences wider than this (in the library's pixels) wrap onto further rows, so a diagram
#: fits a page column and, scaled to a 375 px phone, its text stays readable.
WRAP_WIDTH = 480
#: An alternation of this many single characters or more is drawn as one character class.
CLASS_AFTER = 2


def _char(code: int) -> str:
    return chr(code) if 0x21 <= code <= 0x7E else f"%x{code:02X}"


def _chars_of(expr) -> list[tuple[int, int]] | None:
    """The code-point intervals of an item that is always exactly one character, else None.

    A quoted one-letter string is case-insensitive in ABNF, so "a" is both a and A.
    """
    if isinstance(expr, Range):
        return [(expr.lo, expr.hi)]
    if isinstance(expr, Lit) and len(expr.text) == 1:
        code = ord(expr.text)
        char = expr.text
        if not expr.case_sensitive and char.isascii() and char.isalpha():
            return [(ord(char.lower()), ord(char.lower())), (ord(char.upper()), ord(char.upper()))]
        return [(code, code)]
    return None


def _merge(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for lo, hi in sorted(intervals):
        if merged and lo <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return [(lo, hi) for lo, hi in merged]


def class_label(intervals: list[tuple[int, int]]) -> str:
    """'0–9 a–f' style text for a set of characters (runs of three or more as a range, with an
    en dash so a range is never mistaken for the character '-')."""
    parts = []
    for lo, hi in _merge(intervals):
        if hi - lo >= 2:
            parts.append(f"{_char(lo)}–{_char(hi)}")
        else:
            parts.extend(_char(code) for code in range(lo, hi + 1))
    return " ".join(parts)


def _choice(items: tuple):
    """Alternatives, with single-character ones collapsed into one class where the first stood."""
    singles = [_chars_of(item) for item in items]
    chars = [intervals for intervals in singles if intervals is not None]
    nodes = []
    placed = False
    for intervals, item in zip(singles, items, strict=True):
        if intervals is not None and len(chars) >= CLASS_AFTER:
            if not placed:
                label = class_label([pair for group in chars for pair in group])
                nodes.append(railroad.Terminal(label, title="one character of: " + label, cls="char-class"))
                placed = True
            continue
        nodes.append(_node(item))
    return nodes[0] if len(nodes) == 1 else railroad.Choice(0, *nodes)


def _sequence(items: list):
    """A sequence, wrapped onto rows that keep the whole diagram within WRAP_WIDTH."""
    row_width = WRAP_WIDTH - 80  # what a stack and the diagram's start and end add
    rows: list[list] = [[]]
    for item in items:
        if rows[-1] and railroad.Sequence(*rows[-1], item).width > row_width:
            rows.append([])
        rows[-1].append(item)
    if len(rows) == 1:
        return railroad.Sequence(*items)
    return railroad.Stack(*(railroad.Sequence(*row) for row in rows))


def _node(expr):
    if isinstance(expr, Lit):
        label = (
            f'"{expr.text}"'
            if all(0x20 <= ord(c) <= 0x7E for c in expr.text)
            else ("%x" + ".".join(f"{ord(c):02X}" for c in expr.text))
        )
        return railroad.Terminal(
            label, title="case-sensitive" if expr.case_sensitive and any(c.isalpha() for c in expr.text) else None
        )
    if isinstance(expr, Range):
        if expr.lo == expr.hi:
            return railroad.Terminal(_char(expr.lo))
        return railroad.Terminal(class_label([(expr.lo, expr.hi)]))
    if isinstance(expr, Ref):
        return railroad.NonTerminal(expr.name, href=f"#rule-{expr.name.lower()}")
    if isinstance(expr, Prose):
        return railroad.NonTerminal(f"<{expr.text}>", cls="prose")
    if isinstance(expr, Alt):
        return _choice(expr.items)
    if isinstance(expr, Cat):
        if not expr.items:
            return railroad.Skip()
        return _sequence([_node(item) for item in expr.items])
    if isinstance(expr, Rep):
        item = _node(expr.item)
        low, high = expr.min, expr.max
        if (low, high) == (0, 1):
            return railroad.Optional(item)
        if (low, high) == (0, None):
            return railroad.ZeroOrMore(item)
        if (low, high) == (1, None):
            return railroad.OneOrMore(item)
        if high is None:
            label = f"at least {low} times"
        elif low == high:
            label = f"{low} times"
        else:
            label = f"{low} to {high} times"
        repeated = railroad.OneOrMore(item, railroad.Comment(label))
        return railroad.Optional(repeated) if low == 0 else repeated
    raise TypeError(expr)  # pragma: no cover


def rule_svg(rule: RuleDef) -> str:
    """One rule's diagram. The SVG keeps its natural size as width/height and gets a viewBox,
    so a page can scale it to the column (CSS) without cutting it off."""
    parts: list[str] = []
    diagram = railroad.Diagram(_node(rule.expr))
    diagram.writeSvg(parts.append)
    svg = "".join(parts)
    width, height = diagram.attrs.get("width"), diagram.attrs.get("height")
    if width and height and "viewBox" not in svg[:300]:
        svg = svg.replace("<svg ", f'<svg viewBox="0 0 {width} {height}" ', 1)
    return svg


#: What each RFC 5234 core rule means, for the legend under a grammar's own diagrams.
CORE_MEANINGS = {
    "alpha": "RFC 5234 core rule: a letter, A-Z or a-z",
    "bit": "RFC 5234 core rule: 0 or 1",
    "char": "RFC 5234 core rule: any 7-bit character except NUL",
    "cr": "RFC 5234 core rule: carriage return",
    "crlf": "RFC 5234 core rule: Internet newline",
    "ctl": "RFC 5234 core rule: a control character",
    "digit": "RFC 5234 core rule: a digit, 0-9",
    "dquote": 'RFC 5234 core rule: the double quote "',
    "hexdig": "RFC 5234 core rule: a hexadecimal digit, 0-9 or A-F (any case)",
    "htab": "RFC 5234 core rule: horizontal tab",
    "lf": "RFC 5234 core rule: line feed",
    "lwsp": "RFC 5234 core rule: linear white space",
    "octet": "RFC 5234 core rule: any 8-bit byte",
    "sp": "RFC 5234 core rule: a space",
    "vchar": "RFC 5234 core rule: a visible (printing) character",
    "wsp": "RFC 5234 core rule: space or tab",
}


def _core_svg(rule: RuleDef) -> str:
    parts: list[str] = []
    meaning = CORE_MEANINGS.get(rule.name.casefold(), "RFC 5234 core rule")
    railroad.Diagram(railroad.Stack(railroad.Comment(meaning), _node(rule.expr))).writeSvg(parts.append)
    return "".join(parts)


def grammar_diagrams(rules: dict[str, RuleDef]) -> list[tuple[str, str]]:
    """(rule name, SVG) for each rule, in grammar order, then a legend entry for each
    RFC 5234 core rule the diagrams link to (so every ``#rule-…`` link has a target)."""
    diagrams = [(rule.name, rule_svg(rule)) for rule in rules.values()]
    used: list[str] = []
    stack = [rule.expr for rule in rules.values()]
    while stack:
        for node in walk(stack.pop()):
            if isinstance(node, Ref) and node.key not in rules and node.key in CORE_RULES and node.key not in used:
                used.append(node.key)
                stack.append(CORE_RULES[node.key].expr)
    order = list(CORE_RULES)
    return diagrams + [(CORE_RULES[key].name, _core_svg(CORE_RULES[key])) for key in sorted(used, key=order.index)]
