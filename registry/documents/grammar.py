"""ABNF out of a document: every rule of every block, indentation normalised, prefix rebased.

A block is a run of lines where a rule starts (``name =``, ``name =/``) followed
by its continuation lines: lines indented deeper than the rule, lines after a
line ending in ``/``, ``=`` or ``(``, and lines starting with an ABNF operator or
a quoted string. Blank lines inside a block are kept; a block ends at the first
line that is none of these. Each rule is moved to column 1 and its continuation
lines to a uniform indentation, because ABNF gives meaning to indentation
(RFC 5234 §4) and documents indent their grammars in every way.

The rules of all blocks, in document order, make the grammar; every source line
of it is remembered, so a parse problem names the source line and column.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..grammar.ir import Prose, Ref, walk
from ..grammar.parse import KNOWN_PROSE, parse_grammar, prose_key
from .text import Line

_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_NAME_CHARS = _NAME_START | frozenset("0123456789-")
_CONTINUATION_START = tuple('/"(%;[*<') + tuple("0123456789")
_FENCES = ("```", "~~~")


@dataclass(slots=True)
class Extracted:
    abnf: str = ""
    rules: list[str] = field(default_factory=list)  # rule names in order of definition
    top: str = ""
    lines: list[int] = field(default_factory=list)  # source line of each grammar line
    blocks: list[tuple[int, int]] = field(default_factory=list)  # (first, last) source line of each block
    problems: list[str] = field(default_factory=list)  # parse problems, with source line and column
    changes: list[str] = field(default_factory=list)  # what was changed from the source (indentation, prefix)
    prose: list[str] = field(default_factory=list)  # prose values and whether they are understood
    top_uncertain: str = ""  # why the top rule is a guess
    bnf_lines: list[int] = field(default_factory=list)  # "<a> ::= …" lines: BNF, not ABNF
    columns: tuple[int, int] | None = None  # rule names and "=" split into columns by text extraction


def _clean(text: str) -> str:
    return text.replace("`", " ").replace("\t", "        ").rstrip()


def rule_start(text: str) -> tuple[str, int] | None:
    """(rule name, column of the name) if ``text`` starts an ABNF rule."""
    stripped = text.lstrip()
    column = len(text) - len(stripped)
    if not stripped or stripped[0] not in _NAME_START:
        return None
    end = 1
    while end < len(stripped) and stripped[end] in _NAME_CHARS:
        end += 1
    rest = stripped[end:].lstrip()
    if not rest.startswith("="):
        return None
    if rest.startswith("=="):
        return None
    after = rest[2:] if rest.startswith("=/") else rest[1:]
    if after and not after[0].isspace() and after[0] not in '"%(<[*0123456789':
        return None  # "a=b" in prose or a URL query
    return stripped[:end], column


def _is_bnf(text: str) -> bool:
    stripped = text.strip()
    return stripped.startswith("<") and "::=" in stripped[:80]


def blocks(lines: list[Line]) -> list[list[tuple[Line, str]]]:
    """The ABNF blocks of ``lines``: for each, (source line, cleaned text) pairs."""
    found: list[list[tuple[Line, str]]] = []
    current: list[tuple[Line, str]] = []
    rule_column = 0
    pending_blank: list[tuple[Line, str]] = []
    for line in lines:
        text = _clean(line.text)
        stripped = text.strip()
        if stripped.startswith(_FENCES):
            if current:
                found.append(current)
            current, pending_blank = [], []
            continue
        start = rule_start(text)
        if start is not None:
            current.append((line, text))
            pending_blank = []
            rule_column = start[1]
            continue
        if not current:
            continue
        if not stripped:
            pending_blank.append((line, ""))
            continue
        indent = len(text) - len(text.lstrip())
        previous = current[-1][1].rstrip()
        dangling = previous.endswith(("/", "=", "("))
        continues = (dangling or stripped.startswith(_CONTINUATION_START)) and (indent > 0 or dangling)
        if stripped.startswith(";") or (not pending_blank and (continues or indent > rule_column + 1)
                                        and _looks_abnf(stripped)):
            current.append((line, text))  # blank lines inside a grammar carry no meaning
            pending_blank = []
            continue
        if pending_blank and stripped.startswith(_CONTINUATION_START) and indent > rule_column:
            current.append((line, text))  # blank lines inside a grammar carry no meaning
            pending_blank = []
            continue
        found.append(current)
        current, pending_blank = [], []
    if current:
        found.append(current)
    return found


def _split_columns(lines: list[Line]) -> tuple[int, int] | None:
    """(first, last) source line of a grammar whose rule names, "=" signs and definitions were
    extracted as separate columns: three or more bare rule names, then as many lone "=" lines."""
    names, first = 0, None
    for index, line in enumerate(lines):
        stripped = line.text.strip()
        if stripped and stripped[0] in _NAME_START and all(c in _NAME_CHARS for c in stripped):
            names, first = names + 1, first if names else line.number
            continue
        if names >= 3 and stripped.endswith("="):
            equals = sum(1 for other in lines[index:index + names + 2] if other.text.strip().endswith("="))
            if equals >= 3:
                return first, lines[min(index + names, len(lines) - 1)].number
        names = 0
    return None


def _looks_abnf(stripped: str) -> bool:
    """A continuation line holds ABNF elements, not a sentence."""
    words = stripped.replace('"', " ").split()
    if not words:
        return False
    if stripped[0] in '/"(%;[*<' or stripped[0].isdigit():
        return True
    prose_words = sum(1 for w in words if w.lower() in {"the", "a", "of", "is", "and", "where", "are", "to", "in"})
    return prose_words == 0


def extract(lines: list[Line]) -> Extracted:
    """Every rule of every ABNF block of ``lines``, normalised and parsed."""
    result = Extracted()
    result.bnf_lines = [line.number for line in lines if _is_bnf(line.text)]
    result.columns = _split_columns(lines)
    out: list[str] = []
    seen_blocks: set[str] = set()
    for block in blocks(lines):
        while block and not block[-1][1].strip():
            block.pop()
        text_lines, numbers = _normalise(block, result)
        body = "\n".join(text_lines)
        if body in seen_blocks:
            result.changes.append(f"The ABNF block on source lines {block[0][0].number}-{block[-1][0].number} "
                                  "repeats an earlier block; it was read once.")
            continue
        seen_blocks.add(body)
        if out:
            out.append("")
            result.lines.append(block[0][0].number)
        out.extend(text_lines)
        result.lines.extend(numbers)
        result.blocks.append((block[0][0].number, block[-1][0].number))
    if not out:
        return result
    result.abnf = "\n".join(out) + "\n"
    parsed = parse_grammar(result.abnf)
    result.rules = [rule.name for rule in parsed.rules.values()]
    for issue in parsed.issues:
        if issue.severity != "error":
            continue
        where = ""
        if issue.line and 0 < issue.line <= len(result.lines):
            where = f" (source line {result.lines[issue.line - 1]}"
            where += f", column {issue.column})" if issue.column else ")"
        result.problems.append(issue.message + where)
    _top(parsed, result)
    for rule in parsed.rules.values():
        for node in walk(rule.expr):
            if isinstance(node, Prose):
                known = prose_key(node.text) in KNOWN_PROSE
                result.prose.append(
                    f"Rule {rule.name!r} uses the prose value <{node.text}>: "
                    + ("read as RFC 2141's URN characters." if known
                       else "the registry cannot execute it; replace it with ABNF."))
    return result


def _normalise(block: list[tuple[Line, str]], result: Extracted) -> tuple[list[str], list[int]]:
    """Rules to column 1, continuation lines indented by at least two spaces."""
    texts, numbers = [], []
    rule_column = 0
    moved = False
    for line, text in block:
        start = rule_start(text)
        if start is not None:
            rule_column = start[1]
            texts.append(text.lstrip())
        elif not text.strip():
            texts.append("")
        else:
            indent = len(text) - len(text.lstrip())
            relative = indent - rule_column
            if relative < 2:
                moved = True
                relative = 4
            texts.append(" " * relative + text.lstrip())
        numbers.append(line.number)
    columns = {len(t) - len(t.lstrip()) for (_, t) in block if rule_start(t)}
    if len(columns) > 1 or moved:
        result.changes.append(
            f"The indentation of the ABNF on source lines {block[0][0].number}-{block[-1][0].number} was "
            "normalised (each rule at column 1, its continuation lines indented).")
    return texts, numbers


def _top(parsed, result: Extracted) -> None:
    """The top rule: the one rule no other rule refers to (else the first rule, said so)."""
    if not parsed.rules:
        return
    referenced = set()
    for rule in parsed.rules.values():
        for node in walk(rule.expr):
            if isinstance(node, Ref):
                referenced.add(node.name.casefold())
    roots = [rule.name for key, rule in parsed.rules.items() if key not in referenced]
    first = parsed.rules[parsed.first_rule].name if parsed.first_rule else next(iter(parsed.rules.values())).name
    if len(roots) == 1:
        result.top = roots[0]
    else:
        result.top = first
        if len(roots) > 1:
            result.top_uncertain = (f"{len(roots)} rules are used by no other rule ({', '.join(roots[:6])}); "
                                    f"the first rule, {first!r}, was taken as the top rule.")


def rebase(abnf: str, top: str, snid: str) -> tuple[str, str] | None:
    """If the top rule starts with another NID's literal prefix, the grammar rebased onto urn:ogf:<snid>:.

    Returns (new ABNF, what changed) or None. Only the leading quoted strings of the top
    rule are looked at (``"urn:gsma:"`` or ``"urn:" "gsma" ":"``, with ``%s``/``%i``).
    """
    if not top or not snid:
        return None
    lines = abnf.split("\n")
    for index, line in enumerate(lines):
        start = rule_start(line)
        if start is None or start[0].casefold() != top.casefold():
            continue
        equals = line.index("=")
        position = equals + 1
        if line[position:position + 1] == "/":
            position += 1
        literal, first, last = "", None, position
        while True:
            while position < len(line) and line[position] in " \t":
                position += 1
            token_start = position
            if line[position:position + 2].lower() in ("%s", "%i"):
                position += 2
            if line[position:position + 1] != '"':
                break
            close = line.find('"', position + 1)
            if close < 0:
                break
            literal += line[position + 1:close]
            first = token_start if first is None else first
            position = last = close + 1
            if literal.lower().count(":") >= 2:
                break
        lowered = literal.lower()
        if first is None or not lowered.startswith("urn:") or lowered.count(":") < 2:
            return None
        nid_end = lowered.index(":", 4)
        nid = literal[4:nid_end]
        if nid.lower() == "ogf" or not nid:
            return None
        rest = literal[nid_end + 1:]
        replacement = f'"urn:ogf:{snid}:' + rest + '"'
        original = line[first:last]
        lines[index] = line[:first] + replacement + line[last:]
        return "\n".join(lines), (f"In rule {start[0]!r} the prefix {original.strip()} (namespace urn:{nid}:) "
                                  f"was replaced by {replacement}, so the grammar describes urn:ogf:{snid}: URNs.")
    return None
