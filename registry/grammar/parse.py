"""Reading ABNF text (RFC 5234 + RFC 7405) with the ``abnf`` package into our IR.

The text is cut into rules (a rule starts at a line that does not begin with
white space) and each rule is parsed on its own, so one typo yields one error
with its line and column and the other rules are still analysed.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

from abnf.grammars import rfc7405
from abnf.parser import LiteralNode, ParseError

from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep, RuleDef, alt, cat

_ABNF = rfc7405.Rule  # RFC 5234 extended with %s / %i case-sensitivity

#: Real registrations have tens of rules; past this we answer at once instead of
#: spending seconds in the (pure-Python) ABNF parser.
MAX_RULES = 300


@dataclass(frozen=True, slots=True)
class Issue:
    """Something worth telling about a grammar, with where it is.

    ``severity`` is ``error`` (the grammar cannot be used as written),
    ``warning`` (it works, but probably not as meant) or ``info``.
    """

    kind: str
    severity: str
    message: str
    line: int | None = None
    column: int | None = None
    rule: str | None = None

    def as_dict(self) -> dict:
        return {
            "kind": self.kind,
            "severity": self.severity,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
        }


@dataclass(slots=True)
class ParsedGrammar:
    rules: dict[str, RuleDef]  # by casefolded name, in order of first definition
    issues: list[Issue]
    first_rule: str | None  # casefolded


def _chunks(lines: list[str]):
    """Yield (first line number, lines) for each rule of the grammar."""
    start, current = None, []
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        begins_rule = bool(stripped) and not line[0].isspace() and not stripped.startswith(";")
        if begins_rule:
            if current:
                yield start, current
            start, current = number, [line]
        elif current:
            current.append(line)
        elif stripped and not stripped.startswith(";"):
            yield number, [line]  # indented text before any rule: reported as an error
    if current:
        yield start, current


def _first_offset(node) -> int:
    while not isinstance(node, LiteralNode):
        node = node.children[0]
    return node.offset


def _children(node, *names):
    return [child for child in node.children if child.name in names]


class _TreeReader:
    """Turns one rule's parse tree into IR, mapping offsets to grammar lines."""

    def __init__(self, chunk: str, first_line: int, indent: int = 0):
        self.indent = indent  # columns removed by dedenting, added back in messages
        self.line_starts = [0]
        for index, char in enumerate(chunk):
            if char == "\n":
                self.line_starts.append(index + 1)
        self.first_line = first_line

    def line_of(self, offset: int) -> int:
        low, high = 0, len(self.line_starts) - 1
        while low < high:
            mid = (low + high + 1) // 2
            if self.line_starts[mid] <= offset:
                low = mid
            else:
                high = mid - 1
        return self.first_line + low

    def column_of(self, offset: int) -> int:
        return offset - self.line_starts[self.line_of(offset) - self.first_line] + 1 + self.indent

    def alternation(self, node):
        return alt(self.concatenation(child) for child in _children(node, "concatenation"))

    def concatenation(self, node):
        return cat(self.repetition(child) for child in _children(node, "repetition"))

    def repetition(self, node):
        element = self.element(_children(node, "element")[0])
        repeat = _children(node, "repeat")
        if not repeat:
            return element
        text = repeat[0].value
        if "*" in text:
            low, high = text.split("*")
            return Rep(int(low) if low else 0, int(high) if high else None, element)
        return Rep(int(text), int(text), element)

    def element(self, node):
        child = node.children[0]
        if child.name == "rulename":
            return Ref(child.value, self.line_of(_first_offset(child)))
        if child.name == "group":
            return self.alternation(_children(child, "alternation")[0])
        if child.name == "option":
            return Rep(0, 1, self.alternation(_children(child, "alternation")[0]))
        if child.name == "char-val":
            return self.char_val(child.children[0])
        if child.name == "num-val":
            return self.num_val(child.children[1])
        if child.name == "prose-val":
            text = child.value[1:-1]
            line = self.line_of(_first_offset(child))
            try:  # RFC 5234 §2.1: <rulename> may stand for a rule reference
                _ABNF("rulename").parse_all(text)
            except ParseError:
                return Prose(text, line)
            return Ref(text, line)
        raise ValueError(child.name)  # pragma: no cover

    @staticmethod
    def char_val(node):
        quoted = _children(node, "quoted-string")[0].value[1:-1]
        sensitive = node.name == "case-sensitive-string"
        if not any(c.isalpha() for c in quoted):
            sensitive = True  # no letters: case does not matter, say so once
        return Lit(quoted, sensitive)

    @staticmethod
    def num_val(node):
        base = {"b": 2, "d": 10, "x": 16}[node.value[0].lower()]
        body = node.value[1:]
        if "-" in body:
            low, high = body.split("-")
            return Range(int(low, base), int(high, base))
        codes = [int(part, base) for part in body.split(".")]
        return Lit("".join(chr(code) for code in codes), True)


def _syntax_error(chunk: str, reader: _TreeReader) -> Issue:
    """Locate how far a broken rule can be read, and say what stops it there."""
    try:
        name_node, position = _ABNF("rulename").parse(chunk, 0)
    except ParseError:
        return Issue(
            "syntax",
            "error",
            f"Line {reader.first_line}: a rule must start with its name (letters, digits "
            f"and '-', beginning with a letter), found {chunk.split()[0][:20]!r}.",
            reader.first_line,
            1 + reader.indent,
        )
    name = name_node.value
    try:
        _, position = _ABNF("defined-as").parse(chunk, position)
    except ParseError:
        return _issue_at(chunk, reader, position, name, "expected '=' or '=/' after the rule name")
    try:
        _, position = _ABNF("elements").parse(chunk, position)
    except ParseError:
        return _issue_at(chunk, reader, position, name, "expected the rule's definition here")
    return _issue_at(chunk, reader, position, name, "cannot read the grammar from here")


def _issue_at(chunk, reader, position, name, what) -> Issue:
    position = min(position, len(chunk) - 1)
    while position < len(chunk) - 1 and chunk[position] in " \t\r\n":
        position += 1
    rest_of_line = chunk[position:].split("\n")[0].rstrip("\r")
    snippet = rest_of_line[:20]
    strange = next((i for i, c in enumerate(rest_of_line) if not 0x20 <= ord(c) <= 0x7E), None)
    if strange is not None:
        position += strange
    char = chunk[position] if position < len(chunk) else ""
    hint = ""
    if strange is not None:
        hint = (
            f" The character {char!r} (U+{ord(char):04X}) is not ASCII; ABNF quoted strings "
            "hold only printable ASCII (write %x.. for anything else)."
        )
    elif char == '"' and chunk.count('"', 0, position) % 2 == 0:
        hint = " Is a closing quote missing?"
    line, column = reader.line_of(position), reader.column_of(position)
    return Issue(
        "syntax",
        "error",
        f"Line {line}, column {column}, in rule {name!r}: {what}: {snippet!r}.{hint}",
        line,
        column,
        name,
    )


def parse_grammar(text: str) -> ParsedGrammar:
    """Parse a registration's ABNF text into rules plus the problems found."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    # Pasted grammars are often indented as a block; ABNF needs rules at column 1.
    lines = textwrap.dedent(text.expandtabs(8)).split("\n")
    indent = 0
    for original, dedented in zip(text.expandtabs(8).split("\n"), lines, strict=True):
        if dedented.strip():
            indent = len(original) - len(dedented)
            break
    rules: dict[str, RuleDef] = {}
    issues: list[Issue] = []
    first_rule = None
    chunks = list(_chunks(lines))
    if len(chunks) > MAX_RULES:
        issues.append(Issue("too-large", "error",
                            f"The grammar has {len(chunks):,} rules; the registry reads grammars of "
                            f"at most {MAX_RULES:,} rules."))
        return ParsedGrammar(rules, issues, None)
    for first_line, chunk_lines in chunks:
        while chunk_lines and (not chunk_lines[-1].strip() or chunk_lines[-1].strip().startswith(";")):
            chunk_lines.pop()
        chunk = "\r\n".join(chunk_lines) + "\r\n"
        reader = _TreeReader(chunk, first_line, indent)
        try:
            tree = _ABNF("rule").parse_all(chunk)
        except ParseError:
            issues.append(_syntax_error(chunk, reader))
            continue
        except RecursionError:
            issues.append(Issue("syntax", "error",
                                f"Line {first_line}: the rule is nested too deeply to read.",
                                first_line, 1))
            continue
        name = tree.children[0].value
        defined_as = tree.children[1].value.strip()
        expr = reader.alternation(_children(tree.children[2], "alternation")[0])
        key = name.casefold()
        end_line = first_line + len(chunk_lines) - 1
        if first_rule is None:
            first_rule = key
        existing = rules.get(key)
        if defined_as == "=/":
            if existing is None:
                issues.append(Issue(
                    "syntax", "error",
                    f"Line {first_line}: '=/' adds an alternative to rule {name!r}, "
                    "which is not defined above it (RFC 5234 §3.3).",
                    first_line, 1, name))
                rules[key] = RuleDef(name, expr, first_line, end_line)
            else:
                existing.expr = Alt(_alternatives(existing.expr) + _alternatives(expr))
            continue
        if existing is not None:
            issues.append(Issue(
                "redefinition", "error",
                f"Line {first_line}: rule {name!r} is defined a second time (first on line "
                f"{existing.line}); use '=/' to add alternatives. The later definition is used.",
                first_line, 1, name))
        rules[key] = RuleDef(name, expr, first_line, end_line)
    if not rules and not issues:
        issues.append(Issue("empty", "error", "The grammar has no rules."))
    return ParsedGrammar(rules, issues, first_rule)


def _alternatives(expr) -> tuple:
    return expr.items if isinstance(expr, Alt) else (expr,)


# The RFC 5234 appendix B core rules, in our IR, read with the same parser.
CORE_ABNF = r"""
ALPHA  = %x41-5A / %x61-7A
BIT    = "0" / "1"
CHAR   = %x01-7F
CR     = %x0D
CRLF   = CR LF
CTL    = %x00-1F / %x7F
DIGIT  = %x30-39
DQUOTE = %x22
HEXDIG = DIGIT / "A" / "B" / "C" / "D" / "E" / "F"
HTAB   = %x09
LF     = %x0A
LWSP   = *(WSP / CRLF WSP)
OCTET  = %x00-FF
SP     = %x20
VCHAR  = %x21-7E
WSP    = SP / HTAB
"""

CORE_RULES: dict[str, RuleDef] = parse_grammar(CORE_ABNF).rules

# Prose values we can stand in for, by their normalised text. RFC 2141 §2.2's
# <URN chars>; a lone "%" only ever introduces an escape (RFC 2141 §2.3.2).
KNOWN_PROSE_ABNF = {
    "urn chars": 'ALPHA / DIGIT / "(" / ")" / "+" / "," / "-" / "." / ":" / "=" / "@" / ";"'
    ' / "$" / "_" / "!" / "*" / "\'" / "/" / "?" / "#" / ( "%" HEXDIG HEXDIG )',
}


def prose_key(text: str) -> str:
    return " ".join(text.lower().replace("<", " ").replace(">", " ").split())


def _known_prose() -> dict[str, object]:
    known = {}
    for key, body in KNOWN_PROSE_ABNF.items():
        known[key] = parse_grammar(f"x = {body}\n").rules["x"].expr
    return known


KNOWN_PROSE: dict[str, object] = _known_prose()

__all__ = [
    "Alt", "Cat", "CORE_RULES", "Issue", "KNOWN_PROSE", "Lit", "ParsedGrammar", "Prose",
    "Range", "Ref", "Rep", "RuleDef", "parse_grammar", "prose_key",
]
