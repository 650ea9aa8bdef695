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
from ..grammar.parse import CORE_RULES, KNOWN_PROSE, parse_grammar, prose_key
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
    rejoined: list[int] = field(default_factory=list)  # source lines of rules rejoined from such columns
    undefined: list[str] = field(default_factory=list)  # rule names used but defined nowhere


# Rules that registrations use from the URI and URN standards without defining them.
RFC3986_RULES = frozenset(
    name.casefold()
    for name in (
        "URI",
        "hier-part",
        "URI-reference",
        "absolute-URI",
        "relative-ref",
        "relative-part",
        "scheme",
        "authority",
        "userinfo",
        "host",
        "port",
        "IP-literal",
        "IPvFuture",
        "IPv6address",
        "h16",
        "ls32",
        "IPv4address",
        "dec-octet",
        "reg-name",
        "path",
        "path-abempty",
        "path-absolute",
        "path-noscheme",
        "path-rootless",
        "path-empty",
        "segment",
        "segment-nz",
        "segment-nz-nc",
        "pchar",
        "query",
        "fragment",
        "pct-encoded",
        "unreserved",
        "reserved",
        "gen-delims",
        "sub-delims",
    )
)
RFC8141_RULES = frozenset(
    name.casefold()
    for name in (
        "namestring",
        "assigned-name",
        "NID",
        "ldh",
        "NSS",
        "rq-components",
        "r-component",
        "q-component",
        "f-component",
    )
)


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
        if stripped.startswith(";") or (
            not pending_blank and (continues or indent > rule_column + 1) and _looks_abnf(stripped)
        ):
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
            equals = sum(1 for other in lines[index : index + names + 2] if other.text.strip().endswith("="))
            if equals >= 3:
                return first, lines[min(index + names, len(lines) - 1)].number
        names = 0
    return None


def _rejoin_columns(lines: list[Line]) -> list[Line]:
    """Rules put back together from columns printed one after the other by text extraction:
    a run of bare rule names, as many lone "=" lines, then as many definition lines (in order).
    Each rejoined rule carries the source line of its definition. Runs that do not line up
    (a definition wrapped onto two lines, a name lost) are left out, never guessed."""
    rows = [line for line in lines if line.text.strip()]
    out: list[Line] = []
    index = 0
    while index < len(rows):
        names = []
        while index < len(rows) and _bare_name(rows[index].text.strip()):
            names.append(rows[index].text.strip())
            index += 1
        if len(names) < 3:
            index += 0 if names else 1
            continue
        equals = 0
        while index < len(rows) and rows[index].text.strip() == "=":
            equals += 1
            index += 1
        definitions = rows[index : index + len(names)]
        if (
            equals != len(names)
            or len(definitions) < len(names)
            or not all(_looks_abnf(d.text.strip()) for d in definitions)
        ):
            continue
        for name, definition in zip(names, definitions[: len(names)], strict=True):
            out.append(Line(definition.number, f"{name} = {definition.text.strip()}"))
        index += len(names)
    return out


def _bare_name(text: str) -> bool:
    return bool(text) and text[0] in _NAME_START and all(c in _NAME_CHARS for c in text)


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
    found_blocks = blocks(lines)
    if result.columns:
        rejoined = _rejoin_columns(lines)
        result.rejoined = [line.number for line in rejoined]
        found_blocks += blocks(rejoined)
    out: list[str] = []
    seen_blocks: set[str] = set()
    for block in found_blocks:
        while block and not block[-1][1].strip():
            block.pop()
        text_lines, numbers = _normalise(block, result)
        body = "\n".join(text_lines)
        if body in seen_blocks:
            result.changes.append(
                f"The ABNF block on source lines {block[0][0].number}-{block[-1][0].number} "
                "repeats an earlier block; it was read once."
            )
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
    defined = set(parsed.rules)
    for rule in parsed.rules.values():
        for node in walk(rule.expr):
            if (
                isinstance(node, Ref)
                and node.key not in defined
                and node.key not in CORE_RULES
                and node.name not in result.undefined
            ):
                result.undefined.append(node.name)
    for rule in parsed.rules.values():
        for node in walk(rule.expr):
            if isinstance(node, Prose):
                known = prose_key(node.text) in KNOWN_PROSE
                result.prose.append(
                    f"Rule {rule.name!r} uses the prose value <{node.text}>: "
                    + (
                        "read as RFC 2141's URN characters."
                        if known
                        else "the registry cannot execute it; replace it with ABNF."
                    )
                )
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
            "normalised (each rule at column 1, its continuation lines indented)."
        )
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
            result.top_uncertain = (
                f"{len(roots)} rules are used by no other rule ({', '.join(roots[:6])}); "
                f"the first rule, {first!r}, was taken as the top rule."
            )


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
        if line[position : position + 1] == "/":
            position += 1
        literal, first, last = "", None, position
        while True:
            while position < len(line) and line[position] in " \t":
                position += 1
            token_start = position
            if line[position : position + 2].lower() in ("%s", "%i"):
                position += 2
            if line[position : position + 1] != '"':
                break
            close = line.find('"', position + 1)
            if close < 0:
                break
            literal += line[position + 1 : close]
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
        rest = literal[nid_end + 1 :]
        replacement = f'"urn:ogf:{snid}:' + rest + '"'
        original = line[first:last]
        lines[index] = line[:first] + replacement + line[last:]
        return "\n".join(lines), (
            f"In rule {start[0]!r} the prefix {original.strip()} (namespace urn:{nid}:) "
            f"was replaced by {replacement}, so the grammar describes urn:ogf:{snid}: URNs."
        )
    return None


def _first_tokens(definition: str) -> list[str]:
    """The first few elements of a rule definition: quoted strings (with a %s/%i prefix dropped)
    and rule names, up to the first operator that is not concatenation."""
    tokens, position = [], 0
    while position < len(definition) and len(tokens) < 4:
        char = definition[position]
        if char in " \t":
            position += 1
            continue
        if (
            definition[position : position + 2].lower() in ("%s", "%i")
            and definition[position + 2 : position + 3] == '"'
        ):
            position += 2
            continue
        if char == '"':
            close = definition.find('"', position + 1)
            if close < 0:
                break
            tokens.append(definition[position : close + 1])
            position = close + 1
            continue
        if char in _NAME_START:
            end = position
            while end < len(definition) and definition[end] in _NAME_CHARS:
                end += 1
            tokens.append(definition[position:end])
            position = end
            continue
        break
    return tokens


def rebase_nid_rule(abnf: str, top: str, snid: str) -> tuple[str, str] | str | None:
    """A top rule written ``"urn:" x-NID ":" x-NSS`` (or ``"urn:" NID NSS`` with ``NID = "x:"``):
    the NID sits in a rule of its own.

    Returns (new ABNF, what changed) when that rule is a single literal (its literal becomes
    ``"ogf:<snid>"``, so the top rule describes urn:ogf:<snid>: URNs); a reason (str) when the
    structure does not allow it; None when the top rule is not of that shape.
    """
    if not top or not snid:
        return None
    rows = abnf.split("\n")
    definitions = {}
    for index, row in enumerate(rows):
        start = rule_start(row)
        if start is not None:
            definitions[start[0].casefold()] = (index, row[row.index("=") + 1 :].lstrip("/"))
    if top.casefold() not in definitions:
        return None
    tokens = _first_tokens(definitions[top.casefold()][1])
    if len(tokens) < 2 or tokens[0].lower() != '"urn:"' or tokens[1].startswith('"'):
        return None
    colon_apart = len(tokens) > 2 and tokens[2] == '":"'  # "urn:" x-NID ":" …, else x-NID = "x:"
    nid_rule = tokens[1]
    if nid_rule.casefold() not in definitions:
        return (
            f"The top rule {top!r} takes its NID from rule {nid_rule!r}, which is not defined; the grammar "
            f"could not be rebased onto urn:ogf:{snid}: URNs."
        )
    index, body = definitions[nid_rule.casefold()]
    literal = body.split(";", 1)[0].strip()
    if literal.lower().startswith(("%s", "%i")):
        literal = literal[2:]
    if (
        not (literal.startswith('"') and literal.endswith('"') and literal.count('"') == 2)
        or not colon_apart
        and not literal.endswith(':"')
    ):
        return (
            f"The top rule {top!r} takes its NID from rule {nid_rule!r}, whose definition ({literal}) is "
            f"not a single string; the grammar could not be rebased onto urn:ogf:{snid}: URNs — "
            f'rewrite the top rule as "urn:ogf:{snid}:" followed by the NSS.'
        )
    row = rows[index]
    position = row.index(literal, row.index("="))
    replacement = f'"ogf:{snid}"' if colon_apart else f'"ogf:{snid}:"'
    rows[index] = row[:position] + replacement + row[position + len(literal) :]
    return "\n".join(rows), (
        f"The top rule {top!r} takes its NID from rule {nid_rule!r}; its value {literal} "
        f"was replaced by {replacement}, so the grammar describes urn:ogf:{snid}: URNs."
    )


def judge(abnf: str, rule: str, snid: str):
    """``accepts(urn)``: whether the document's own grammar accepts an example URN (True or
    False), or None when the grammar cannot tell (it does not parse, uses rules it does not
    define, or cannot be compiled to a linear-time matcher). Asked only to decide whether a URN
    continues on the next line, so the matcher is built on the first question, once.

    A grammar of the string after the NID is applied to that string; one of whole URNs to the
    URN as written and to its ``urn:ogf:<snid>:`` form (the grammar may have been rebased).
    """
    built: list = []

    def accepts(urn: str) -> bool | None:
        if not built:
            built.append(_matcher(abnf, rule))
        matcher = built[0]
        if matcher is None:
            return None
        nid, _, nss = urn[4:].partition(":")
        subjects = [urn, nss, f"urn:ogf:{snid}:{nss}"]
        if nid.lower() == "ogf":
            subjects.append(nss.partition(":")[2])  # the string after the SNID
        try:
            return any(matcher(subject.encode("utf-8")) for subject in subjects)
        except Exception:  # noqa: BLE001 - a matcher fault is no verdict
            return None

    return accepts


def _matcher(abnf: str, rule: str):
    """The grammar as an anchored linear-time matcher, or None when it cannot be one."""
    from ..grammar.analysis import Scope, analyse
    from ..grammar.re2match import PatternError, compile_anchored
    from ..grammar.regex import TooComplex, build_pattern

    if not abnf.strip():
        return None
    try:
        parsed = parse_grammar(abnf)
        analysis = analyse(parsed, rule or None)
        if analysis.top is None or any(i.severity == "error" for i in parsed.issues + analysis.issues):
            return None
        pattern, _ = build_pattern(Scope(parsed.rules), analysis.top, set(analysis.recursive))
        return compile_anchored(pattern)
    except (TooComplex, PatternError, RecursionError, ValueError):
        return None
