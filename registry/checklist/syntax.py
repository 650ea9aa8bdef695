"""Checks of part 2, Syntax: the grammar is executed — parsed, compiled, bounded and compared with its prose."""

from __future__ import annotations

import threading
from collections import OrderedDict

from ..grammar import UrnSyntaxError, is_valid_snid, parse_urn
from ..grammar.analysis import Scope
from ..grammar.compiler import NOT_CHECKED
from ..grammar.samples import character_samples
from .core import FAIL, NOT_RUN, PASS, UNCHECKED, WARNING, Context, Finding, _at, _one, check, grammar_blocker

# --- 2 Syntax: the grammar -----------------------------------------------------------------

_PARSE_KINDS = {"syntax", "redefinition", "empty", "top-rule", "too-complex", "too-large", "too-costly", "disagreement"}


def _issue_item(issue) -> dict:
    item = {"section": "grammar"}
    if issue.line:
        item["line"] = issue.line
    if issue.column:
        item["column"] = issue.column
    if issue.rule:
        item["rule"] = issue.rule
    return item


@check(
    "grammar-present",
    title="Formal syntax given",
    needs=("written:grammar",),
    reference="GFD.191 §6 (2.1)",
    item={"section": "grammar"},
)
def grammar_present(ctx: Context):
    if not ctx.data.grammar.abnf.strip():
        return _one(
            "grammar-present",
            FAIL,
            "Give the formal syntax in ABNF so URNs can be checked by machine (GFD.191 "
            "§5: is the syntax unambiguous?).",
            "GFD.191 §5, §6 (2.1)",
            {"section": "grammar"},
        )
    return _one("grammar-present", PASS, "A formal ABNF grammar is given.", "GFD.191 §6 (2.1)", {"section": "grammar"})


@check("grammar-parses", title="Grammar parses")
def grammar_parses(ctx: Context):
    grammar = ctx.grammar
    if grammar is None:
        return []
    if grammar.not_checked:
        # A fault (the checker was killed or stuck) is not a verdict on the grammar.
        return [
            Finding("grammar-parses", WARNING, i.message, "RFC 5234", {"section": "grammar", UNCHECKED: True})
            for i in grammar.issues
            if i.kind == NOT_CHECKED
        ]
    problems = [i for i in grammar.issues if i.kind in _PARSE_KINDS and i.severity == "error"]
    if problems:
        return [Finding("grammar-parses", FAIL, i.message, "RFC 5234", _issue_item(i)) for i in problems]
    blocker = grammar_blocker(grammar)
    if blocker is not None:
        # The root cause (an undefined rule) is grammar-complete's finding; the comparison
        # with the reference parser needs a complete grammar.
        return _one(
            "grammar-parses",
            NOT_RUN,
            "The grammar reads as ABNF. Not run: the comparison of its validator with the "
            f"reference parser needs every rule it uses to be defined first{_at(blocker)}.",
            "RFC 5234",
            _issue_item(blocker),
        )
    crosscheck = grammar.crosscheck
    checked = crosscheck.checked if crosscheck else 0
    if crosscheck and crosscheck.cut_short:
        # A comparison stopped by a limit proves nothing: say which limit, never pass.
        return _one(
            "grammar-parses",
            WARNING,
            f"The grammar reads as ABNF, but its validator could not be fully compared "
            f"with the reference parser: {grammar.crosscheck.cut_short}. It may still be "
            "right; a simpler grammar can be checked completely.",
            "RFC 5234",
            {"section": "grammar", "limit": "time"},
        )
    if checked == 0:
        why = f" ({crosscheck.skipped})" if crosscheck and crosscheck.skipped else ""
        return _one(
            "grammar-parses",
            WARNING,
            "The grammar reads as ABNF, but its validator could not be compared with the "
            f"reference parser on any string{why}: checked 0 strings.",
            "RFC 5234",
            {"section": "grammar"},
        )
    return _one(
        "grammar-parses",
        PASS,
        f"The grammar reads as ABNF; its validator agrees with the reference parser (checked {checked} test strings).",
        "RFC 5234",
        {"section": "grammar"},
    )


@check(
    "grammar-complete",
    title="Every rule defined",
    needs=("grammar-parsed",),
    reference="RFC 5234",
    item={"section": "grammar"},
)
def grammar_complete(ctx: Context):
    grammar = ctx.grammar
    if grammar is None:
        return []
    status_of = {
        "undefined": FAIL,
        "unreachable": WARNING,
        "prose-unknown": WARNING,
        "recursion": WARNING,
        "recursion-bounded": WARNING,
        "positions-not-given": WARNING,
    }
    findings = []
    for issue in grammar.issues:
        if issue.kind in status_of:
            findings.append(
                Finding("grammar-complete", status_of[issue.kind], issue.message, "RFC 5234", _issue_item(issue))
            )
        elif issue.kind == "core-redefinition" and issue.severity == "warning":
            findings.append(
                Finding("grammar-complete", WARNING, issue.message, "RFC 5234 Appendix B", _issue_item(issue))
            )
    prefix = grammar.analysis.prefix.lower()
    wanted = f"urn:ogf:{ctx.data.snid.lower()}:"
    if grammar.full_urn and not prefix.startswith(wanted) and wanted.startswith(prefix):
        findings.append(
            Finding(
                "grammar-complete",
                WARNING,
                f'The grammar describes whole URNs but does not fix the SNID: it should start with "{wanted}".',
                "GFD.191 §6 (2.1)",
                {"section": "grammar"},
            )
        )
    elif grammar.full_urn and not prefix.startswith(wanted):
        findings.append(
            Finding(
                "grammar-complete",
                FAIL,
                f'The grammar describes URNs starting with "{grammar.analysis.prefix}", not "{wanted}".',
                "GFD.191 §6 (2.1)",
                {"section": "grammar"},
            )
        )
    rules = len(grammar.parsed.rules)
    if not findings and not rules:
        findings.append(
            Finding(
                "grammar-complete",
                WARNING,
                "The grammar has no rules: checked 0 rules.",
                "RFC 5234",
                {"section": "grammar"},
            )
        )
    if not findings:
        findings.append(
            Finding(
                "grammar-complete",
                PASS,
                f"Every rule is defined and used; no free-text (prose) parts "
                f"(checked {rules} rule{'s' if rules != 1 else ''}).",
                "RFC 5234",
                {"section": "grammar"},
            )
        )
    return findings


def _printable(text: str) -> str:
    """``text`` with characters that cannot be shown (controls, lone surrogates) escaped."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


@check(
    "grammar-charset",
    title="Characters allowed in URNs",
    needs=("grammar",),
    reference="RFC 2141 §2.2, RFC 6453 §2.4, GFD.191 §3",
    item={"section": "grammar"},
)
def grammar_charset(ctx: Context):
    grammar = ctx.grammar
    if grammar is None or not grammar.ok:
        return []
    ref, item = "RFC 2141 §2.2, RFC 6453 §2.4, GFD.191 §3", {"section": "grammar"}
    samples, complete = _samples(grammar)
    snid = ctx.data.snid if is_valid_snid(ctx.data.snid) else "x"
    checked, counter = 0, None
    for text in samples:
        if text.isascii() and not grammar.matches(text):
            continue  # not in the language after all (a bounded recursion): not evidence
        checked += 1
        urn = text if grammar.full_urn else f"urn:ogf:{snid}:{text}"
        try:
            parse_urn(urn)
        except UrnSyntaxError as exc:
            counter = counter or (urn, exc.message)
    outside = grammar.analysis.outside_urn_chars
    if counter:
        urn, why = (_printable(part) for part in counter)
        message = f"The grammar admits strings that are not valid urn:ogf: URNs, for example {urn!r}: {why}"
        if outside:
            message += (
                " Characters it allows that may not appear in a URN unencoded: "
                f"{', '.join(outside[:12])}{' …' if len(outside) > 12 else ''}."
            )
        return _one(
            "grammar-charset",
            FAIL,
            message + f" (Checked {_strings(checked)} generated from the grammar.)",
            ref,
            {**item, "counter_example": urn},
        )
    if outside:
        return _one(
            "grammar-charset",
            FAIL,
            "The grammar allows characters that may not appear in a URN: "
            f"{', '.join(outside[:12])}{' …' if len(outside) > 12 else ''}. They must be "
            "percent-encoded.",
            ref,
            item,
        )
    if checked == 0:
        return _one(
            "grammar-charset",
            WARNING,
            "No string could be generated from the grammar, so what it admits was not checked: checked 0 strings.",
            ref,
            item,
        )
    if not complete:
        return _one(
            "grammar-charset",
            WARNING,
            f"Checked {_strings(checked)} generated from the grammar, all valid urn:ogf: URNs, "
            "but the grammar is too large to try every kind of character it allows (work "
            "limit reached): not a pass.",
            ref,
            item,
        )
    return _one(
        "grammar-charset",
        PASS,
        f"Checked {_strings(checked)} generated from the grammar, one or more for each kind "
        "of character it allows: all are valid urn:ogf: URNs.",
        ref,
        item,
    )


_SAMPLES: OrderedDict[tuple[str, str | None], tuple[list[str], bool]] = OrderedDict()
_SAMPLES_LOCK = threading.Lock()


def _samples(grammar) -> tuple[list[str], bool]:
    """Strings generated from a grammar, kept by its text (the same for every proposal using it)."""
    key = (grammar.abnf, grammar.rule)
    with _SAMPLES_LOCK:
        cached = _SAMPLES.get(key)
    if cached is None:
        cached = character_samples(Scope(grammar.parsed.rules), grammar.analysis.top, grammar.analysis.charset)
        with _SAMPLES_LOCK:
            _SAMPLES[key] = cached
            while len(_SAMPLES) > 256:
                _SAMPLES.popitem(last=False)
    return cached


def _strings(count: int) -> str:
    return f"{count} string{'s' if count != 1 else ''}"


@check(
    "reserved-characters",
    title="Reserved characters",
    needs=("grammar",),
    reference="GFD.191 §3",
    item={"section": "grammar"},
)
def reserved_characters(ctx: Context):
    grammar = ctx.grammar
    if grammar is None or not grammar.ok:
        return []
    reserved = grammar.analysis.reserved
    if not grammar.analysis.charset:
        return _one(
            "reserved-characters",
            WARNING,
            "The grammar produces no characters: checked 0 characters.",
            "GFD.191 §3",
            {"section": "grammar"},
        )
    if reserved:
        return _one(
            "reserved-characters",
            WARNING,
            f"The grammar admits the reserved character(s) {' '.join(reserved)}. GFD.191 "
            "RECOMMENDS forbidding % / ? # in assigned URNs; if they are allowed, say so "
            "and why in 2.3 Encoding.",
            "GFD.191 §3, §6 (2.3)",
            {"section": "encoding"},
        )
    count = sum(hi - lo + 1 for lo, hi in grammar.analysis.charset)
    return _one(
        "reserved-characters",
        PASS,
        f"No reserved characters (% / ? #) are admitted (checked the {count} characters the grammar allows).",
        "GFD.191 §3",
        {"section": "grammar"},
    )


@check(
    "max-length",
    title="Maximum length",
    needs=("written:grammar", "grammar"),
    reference="GFD.191 §5",
    item={"section": "grammar"},
)
def max_length(ctx: Context):
    grammar, declared = ctx.grammar, ctx.data.max_length
    ref = "GFD.191 §5"
    findings = []
    if grammar is not None and grammar.ok and grammar.analysis.bounded:
        longest = int(grammar.analysis.max_length)
        what = "URN" if grammar.full_urn else "string after the SNID"
        if longest == 0:
            findings.append(
                Finding(
                    "max-length",
                    FAIL,
                    f"The grammar bounds the {what} to 0 characters (length bound 0): it admits no URN.",
                    ref,
                    {"section": "grammar"},
                )
            )
        else:
            findings.append(
                Finding(
                    "max-length",
                    PASS,
                    f"The grammar bounds the {what} to {longest} characters (length bound {longest}).",
                    ref,
                    {"section": "grammar"},
                )
            )
    elif declared:
        findings.append(
            Finding(
                "max-length",
                PASS,
                f"A maximum length of {declared} characters is declared (length bound {declared}).",
                ref,
                {"section": "max_length"},
            )
        )
    else:
        findings.append(
            Finding(
                "max-length",
                WARNING,
                "The grammar has no upper bound and no maximum length is declared: "
                "what is the longest URN a receiver must accept?",
                ref,
                {"section": "max_length"},
            )
        )
    if declared:
        for line, example in enumerate(ctx.data.examples.valid, start=1):
            if len(example) > declared:
                findings.append(
                    Finding(
                        "max-length",
                        FAIL,
                        f"The example is {len(example)} characters long, over the declared maximum of {declared}.",
                        ref,
                        {"example": example, "list": "valid", "example_line": line},
                    )
                )
    return findings
