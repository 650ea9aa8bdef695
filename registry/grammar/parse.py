"""Reading ABNF text (RFC 5234 + RFC 7405) into our IR, linear in the length of the text.

The text is cut into rules (a rule starts at a line that does not begin with
white space) and each rule is parsed on its own, so one typo yields one error
with its line and column and the other rules are still analysed.
"""

from __future__ import annotations

import bisect
import textwrap
from dataclasses import dataclass

from .clip import clip_words
from .ir import Alt, Cat, Lit, Prose, Range, Ref, Rep, RuleDef, alt, cat
from .limits import (
    ALTERNATIVES_MAX,
    CODE_POINT_MAX,
    GRAMMAR_MAX_CHARS,
    GRAMMAR_MAX_RULES,
    LITERAL_MAX_CHARS,
    NESTING_MAX,
    NUMBER_MAX_DIGITS,
    REPEAT_MAX,
    RULE_MAX_CHARS,
    RULE_NAME_MAX_CHARS,
)

#: Real registrations have tens of rules; past this we answer at once.
MAX_RULES = GRAMMAR_MAX_RULES
#: How much of the line a syntax error quotes from where it is (cut at a word's end).
SNIPPET_MAX_CHARS = 24


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


_ALPHA = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_NAME_CHARS = _ALPHA | frozenset("0123456789-")
_DIGITS = {2: frozenset("01"), 10: frozenset("0123456789"), 16: frozenset("0123456789ABCDEFabcdef")}
_ELEMENT_STARTS = _ALPHA | frozenset('([<"%')
_REPETITION_STARTS = _ELEMENT_STARTS | frozenset("0123456789*")


class _SyntaxProblem(Exception):
    """Where a rule stops being readable (an offset into the rule's text) and why."""

    def __init__(self, position: int, what: str, hint: str = ""):
        super().__init__(what)
        self.position, self.what, self.hint = position, what, hint


def _is_rulename(text: str) -> bool:
    return bool(text) and text[0] in _ALPHA and all(c in _NAME_CHARS for c in text)


class _RuleReader:
    """Reads one rule (RFC 5234 §4 with RFC 7405 %s/%i) straight into IR, in linear time.

    A hand-written recursive-descent reader: each character is looked at a
    bounded number of times, so reading time grows with the length of the rule,
    not its square, and every size limit (limits.py) is checked as the text is
    read, before anything is built from it.
    """

    def __init__(self, chunk: str, first_line: int, indent: int = 0):
        self.text = chunk
        self.pos = 0
        self.depth = 0
        self.indent = indent  # columns removed by dedenting, added back in messages
        self.line_starts = [0]
        for index, char in enumerate(chunk):
            if char == "\n":
                self.line_starts.append(index + 1)
        self.first_line = first_line

    # --- positions -----------------------------------------------------------------------

    def line_of(self, offset: int) -> int:
        return self.first_line + bisect.bisect_right(self.line_starts, offset) - 1

    def column_of(self, offset: int) -> int:
        return offset - self.line_starts[self.line_of(offset) - self.first_line] + 1 + self.indent

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def skip_space(self) -> bool:
        """Skip white space, line breaks (a continuation) and comments; whether any was."""
        text, start = self.text, self.pos
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\n":
                self.pos += 1
            elif char == ";":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end == -1 else end
            else:
                break
        return self.pos > start

    # --- the grammar of ABNF ---------------------------------------------------------------

    def rule(self) -> tuple[str, str, object]:
        name = self.rulename()
        self.skip_space()
        if self.text.startswith("=/", self.pos):
            defined_as, self.pos = "=/", self.pos + 2
        elif self.peek() == "=":
            defined_as, self.pos = "=", self.pos + 1
        else:
            raise _SyntaxProblem(self.pos, "expected '=' or '=/' after the rule name")
        self.skip_space()
        if self.peek() not in _REPETITION_STARTS:
            raise _SyntaxProblem(self.pos, "expected the rule's definition here")
        expr = self.alternation()
        self.skip_space()
        if self.pos < len(self.text):
            hint = ""
            if self.peek() in _REPETITION_STARTS:
                hint = " Elements of a concatenation are separated by white space."
            raise _SyntaxProblem(self.pos, "cannot read the grammar from here", hint)
        return name, defined_as, expr

    def rulename(self) -> str:
        start = self.pos
        if self.peek() not in _ALPHA:
            raise _SyntaxProblem(start, "a rule name must start with a letter")
        while self.pos < len(self.text) and self.text[self.pos] in _NAME_CHARS:
            self.pos += 1
        if self.pos - start > RULE_NAME_MAX_CHARS:
            raise _SyntaxProblem(
                start,
                f"the rule name is {self.pos - start:,} characters long; "
                f"the registry reads names of at most {RULE_NAME_MAX_CHARS}",
            )
        return self.text[start : self.pos]

    def alternation(self):
        items = [self.concatenation()]
        while True:
            before = self.pos
            self.skip_space()
            if self.peek() != "/":
                self.pos = before
                return alt(items)
            slash = self.pos
            self.pos += 1
            self.skip_space()
            if self.peek() not in _REPETITION_STARTS:
                raise _SyntaxProblem(slash, "expected an alternative after '/'")
            items.append(self.concatenation())
            if len(items) > ALTERNATIVES_MAX:
                raise _SyntaxProblem(
                    slash,
                    f"more than {ALTERNATIVES_MAX:,} alternatives in one place; the registry reads at most that many",
                )

    def concatenation(self):
        items = [self.repetition()]
        while True:
            before = self.pos
            if self.skip_space() and self.peek() in _REPETITION_STARTS:
                items.append(self.repetition())
            else:
                self.pos = before
                return cat(items)

    def number(self, digits: frozenset, base: int) -> tuple[int, int] | None:
        """(value, number of digits) of the digits at the cursor, or None if there are none."""
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] in digits:
            self.pos += 1
        if self.pos == start:
            return None
        count = self.pos - start
        if count > NUMBER_MAX_DIGITS:
            return 10**NUMBER_MAX_DIGITS, count  # far beyond any limit; never converted whole
        return int(self.text[start : self.pos], base), count

    def repetition(self):
        start = self.pos
        low = self.number(_DIGITS[10], 10)
        star = self.peek() == "*"
        high = None
        if star:
            self.pos += 1
            high = self.number(_DIGITS[10], 10)
        if self.peek() not in _ELEMENT_STARTS:
            raise _SyntaxProblem(self.pos, "expected an element (a rule name, string, value, group or option) here")
        element = self.element()
        if low is None and not star:
            return element
        low_value = low[0] if low else 0
        high_value = (high[0] if high else None) if star else low_value
        if high_value is not None and low_value > high_value:
            raise _SyntaxProblem(
                start,
                f"the repetition {self.text[start : self.pos].split()[0][:30]!r} "
                "asks for more items at least than at most",
            )
        # Counts past the URN length cap cannot change which URNs match: an upper
        # bound there means "no upper bound", a lower bound is kept just past it.
        if high_value is not None and high_value > REPEAT_MAX:
            high_value = None
        return Rep(min(low_value, REPEAT_MAX + 1), high_value, element)

    def element(self):
        char, start = self.peek(), self.pos
        if char in _ALPHA:
            return Ref(self.rulename(), self.line_of(start))
        if char in "([":
            return self.group(char)
        if char == '"':
            return Lit(*self.quoted(sensitive=False))
        if char == "%":
            return self.percent()
        if char == "<":
            end = self.pos + 1
            while end < len(self.text) and self.text[end] != ">" and 0x20 <= ord(self.text[end]) <= 0x7E:
                end += 1
            if end >= len(self.text) or self.text[end] != ">":
                raise _SyntaxProblem(start, "a prose value <...> must end with '>' on the same line")
            text = self.text[start + 1 : end]
            self.pos = end + 1
            if _is_rulename(text):  # RFC 5234 §2.1: <rulename> may stand for a reference
                return Ref(text, self.line_of(start))
            return Prose(text, self.line_of(start))
        raise _SyntaxProblem(start, "expected an element here")  # pragma: no cover

    def group(self, opening: str):
        closing = ")" if opening == "(" else "]"
        start = self.pos
        self.depth += 1
        if self.depth > NESTING_MAX:
            raise _SyntaxProblem(
                start,
                f"groups and options are nested more than {NESTING_MAX} "
                "levels deep; the registry reads at most that many",
            )
        self.pos += 1
        self.skip_space()
        if self.peek() not in _REPETITION_STARTS:
            raise _SyntaxProblem(self.pos, f"expected the contents of the {opening}...{closing} here")
        inner = self.alternation()
        self.skip_space()
        if self.peek() != closing:
            hint = f" Is a closing {closing!r} missing (opened at column {self.column_of(start)})?"
            raise _SyntaxProblem(self.pos, f"expected {closing!r}", hint)
        self.pos += 1
        self.depth -= 1
        return inner if opening == "(" else Rep(0, 1, inner)

    def quoted(self, sensitive: bool) -> tuple[str, bool]:
        start = self.pos
        end = self.pos + 1
        text = self.text
        while end < len(text) and text[end] != '"' and text[end] != "\n":
            if not 0x20 <= ord(text[end]) <= 0x7E:
                raise _SyntaxProblem(end, "cannot read the grammar from here")  # hint: non-ASCII
            end += 1
        if end >= len(text) or text[end] != '"':
            raise _SyntaxProblem(start, "a quoted string must end on the same line", " Is a closing quote missing?")
        quoted = text[start + 1 : end]
        if len(quoted) > LITERAL_MAX_CHARS:
            raise _SyntaxProblem(
                start,
                f"the quoted string is {len(quoted):,} characters long; "
                f"the registry reads strings of at most "
                f"{LITERAL_MAX_CHARS:,} (longer than any URN)",
            )
        self.pos = end + 1
        if not any(c.isalpha() for c in quoted):
            sensitive = True  # no letters: case does not matter, say so once
        return quoted, sensitive

    def percent(self):
        start = self.pos
        kind = self.text[self.pos + 1 : self.pos + 2].lower()
        if kind in ("s", "i") and self.text[self.pos + 2 : self.pos + 3] == '"':
            self.pos += 2
            return Lit(*self.quoted(sensitive=kind == "s"))
        base = {"b": 2, "d": 10, "x": 16}.get(kind)
        if base is None:
            raise _SyntaxProblem(
                start, "'%' must be followed by b, d or x (a numeric value) or by s or i and a quoted string"
            )
        self.pos += 2
        codes = [self.code_point(start, base)]
        if self.peek() == "-":
            self.pos += 1
            high = self.code_point(start, base)
            if high < codes[0]:
                raise _SyntaxProblem(start, "the range ends below where it starts")
            return Range(codes[0], high)
        while self.peek() == ".":
            self.pos += 1
            codes.append(self.code_point(start, base))
            if len(codes) > LITERAL_MAX_CHARS:
                raise _SyntaxProblem(
                    start,
                    f"more than {LITERAL_MAX_CHARS:,} values in one sequence; the registry reads at most that many",
                )
        return Lit("".join(chr(code) for code in codes), True)

    def code_point(self, start: int, base: int) -> int:
        at = self.pos
        number = self.number(_DIGITS[base], base)
        if number is None:
            name = {2: "binary", 10: "decimal", 16: "hexadecimal"}[base]
            raise _SyntaxProblem(at, f"expected {name} digits here")
        value, _ = number
        if value > CODE_POINT_MAX:
            shown = self.text[at : self.pos][:20]
            raise _SyntaxProblem(start, f"the value {shown} is above %x10FFFF, the highest Unicode code point")
        return value


def _issue_at(chunk, reader, position, name, what, hint="") -> Issue:
    position = max(0, min(position, len(chunk) - 1))
    while position < len(chunk) - 1 and chunk[position] in " \t\r\n":
        position += 1
    end = chunk.find("\n", position)
    rest_of_line = chunk[position : end if end != -1 else len(chunk)]
    snippet = clip_words(rest_of_line, SNIPPET_MAX_CHARS)
    strange = next((i for i, c in enumerate(rest_of_line) if not 0x20 <= ord(c) <= 0x7E), None)
    if strange is not None:
        position += strange
    char = chunk[position] if position < len(chunk) else ""
    if strange is not None:
        hint = (
            f" The character {char!r} (U+{ord(char):04X}) is not ASCII; ABNF quoted strings "
            "hold only printable ASCII (write %x.. for anything else)."
        )
    line, column = reader.line_of(position), reader.column_of(position)
    where = f"in rule {name!r}" if name else "at the start of a rule"
    return Issue(
        "syntax", "error", f"Line {line}, column {column}, {where}: {what}: {snippet!r}.{hint}", line, column, name
    )


def _read_rule(chunk: str, reader: _RuleReader):
    """(name, defined-as, expr) of one rule, or the Issue saying where it cannot be read."""
    try:
        return reader.rule()
    except _SyntaxProblem as problem:
        if problem.position == 0 and problem.what.startswith("a rule name"):
            return Issue(
                "syntax",
                "error",
                f"Line {reader.first_line}: a rule must start with its name (letters, digits "
                f"and '-', beginning with a letter), found {chunk.split()[0][:20]!r}.",
                reader.first_line,
                1 + reader.indent,
            )
        name = reader.text[: next((i for i, c in enumerate(chunk) if c not in _NAME_CHARS), len(chunk))]
        return _issue_at(
            chunk, reader, problem.position, name[:RULE_NAME_MAX_CHARS] or None, problem.what, problem.hint
        )


def parse_grammar(text: str) -> ParsedGrammar:
    """Parse a registration's ABNF text into rules plus the problems found."""
    if len(text) > GRAMMAR_MAX_CHARS:
        return ParsedGrammar(
            {},
            [
                Issue(
                    "too-large",
                    "error",
                    f"The grammar is {len(text):,} characters long; the registry reads grammars of at "
                    f"most {GRAMMAR_MAX_CHARS:,} characters.",
                )
            ],
            None,
        )
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
        issues.append(
            Issue(
                "too-large",
                "error",
                f"The grammar has {len(chunks):,} rules; the registry reads grammars of at most {MAX_RULES:,} rules.",
            )
        )
        return ParsedGrammar(rules, issues, None)
    for first_line, chunk_lines in chunks:
        while chunk_lines and (not chunk_lines[-1].strip() or chunk_lines[-1].strip().startswith(";")):
            chunk_lines.pop()
        chunk = "\n".join(chunk_lines)
        if len(chunk) > RULE_MAX_CHARS:
            issues.append(
                Issue(
                    "too-large",
                    "error",
                    f"Line {first_line}: the rule is {len(chunk):,} characters long; the "
                    f"registry reads rules of at most {RULE_MAX_CHARS:,} characters.",
                    first_line,
                    1 + indent,
                )
            )
            continue
        reader = _RuleReader(chunk, first_line, indent)
        read = _read_rule(chunk, reader)
        if isinstance(read, Issue):
            issues.append(read)
            continue
        name, defined_as, expr = read
        key = name.casefold()
        end_line = first_line + len(chunk_lines) - 1
        if first_rule is None:
            first_rule = key
        existing = rules.get(key)
        if defined_as == "=/":
            if existing is None:
                issues.append(
                    Issue(
                        "syntax",
                        "error",
                        f"Line {first_line}: '=/' adds an alternative to rule {name!r}, "
                        "which is not defined above it (RFC 5234 §3.3).",
                        first_line,
                        1,
                        name,
                    )
                )
                rules[key] = RuleDef(name, expr, first_line, end_line)
            else:
                existing.expr = Alt(_alternatives(existing.expr) + _alternatives(expr))
            continue
        if existing is not None:
            issues.append(
                Issue(
                    "redefinition",
                    "error",
                    f"Line {first_line}: rule {name!r} is defined a second time (first on line "
                    f"{existing.line}); use '=/' to add alternatives. The later definition is used.",
                    first_line,
                    1,
                    name,
                )
            )
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
    "Alt",
    "Cat",
    "CORE_RULES",
    "Issue",
    "KNOWN_PROSE",
    "Lit",
    "ParsedGrammar",
    "Prose",
    "Range",
    "Ref",
    "Rep",
    "RuleDef",
    "parse_grammar",
    "prose_key",
]
