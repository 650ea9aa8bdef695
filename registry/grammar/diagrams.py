"""Railroad (syntax) diagrams of a grammar's rules, as SVG, with ``railroad-diagrams``.

Diagrams are drawn from our IR of the parse tree, one per rule, with rule
references linking to the rule's own diagram (``#rule-<name>``). The library
escapes all text it writes, so grammar text cannot inject markup.
"""

from __future__ import annotations

import railroad

from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep, RuleDef, walk
from .parse import CORE_RULES

#: Past this many items a sequence is stacked so diagrams stay readable on a phone.
STACK_AFTER = 6


def _char(code: int) -> str:
    return chr(code) if 0x21 <= code <= 0x7E else f"%x{code:02X}"


def _node(expr):
    if isinstance(expr, Lit):
        label = f'"{expr.text}"' if all(0x20 <= ord(c) <= 0x7E for c in expr.text) else (
            "%x" + ".".join(f"{ord(c):02X}" for c in expr.text))
        return railroad.Terminal(label, title="case-sensitive" if expr.case_sensitive and any(
            c.isalpha() for c in expr.text) else None)
    if isinstance(expr, Range):
        if expr.lo == expr.hi:
            return railroad.Terminal(_char(expr.lo))
        return railroad.Terminal(f"{_char(expr.lo)}–{_char(expr.hi)}")
    if isinstance(expr, Ref):
        return railroad.NonTerminal(expr.name, href=f"#rule-{expr.name.lower()}")
    if isinstance(expr, Prose):
        return railroad.NonTerminal(f"<{expr.text}>", cls="prose")
    if isinstance(expr, Alt):
        return railroad.Choice(0, *(_node(item) for item in expr.items))
    if isinstance(expr, Cat):
        if not expr.items:
            return railroad.Skip()
        items = [_node(item) for item in expr.items]
        if len(items) > STACK_AFTER:
            rows = [railroad.Sequence(*items[i : i + STACK_AFTER])
                    for i in range(0, len(items), STACK_AFTER)]
            return railroad.Stack(*rows)
        return railroad.Sequence(*items)
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
    parts: list[str] = []
    railroad.Diagram(_node(rule.expr)).writeSvg(parts.append)
    return "".join(parts)


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
