"""Checks of parts 2.3 and 2.4: how URNs of the namespace are written and compared — percent-encoding,
Unicode normalisation, lexical equivalence — each said in the prose and executed on the examples."""

from __future__ import annotations

import re2

from .. import wording
from ..grammar import EQUIVALENCE_STEPS, UrnSyntaxError, normalize, parse_urn
from .core import EDITOR, FAIL, PASS, WARNING, Context, Finding, _one, check, grammar_blocker

_PERCENT_WORDS = re2.compile(r"(?i)percent|%|escap")


@check(
    "percent-encoding",
    title="Percent-encoding described",
    needs=("written:encoding",),
    reference="GFD.191 §5, §6 (2.3)",
    item={"section": "encoding"},
)
def percent_encoding(ctx: Context):
    ref, findings, item = "GFD.191 §5, §6 (2.3)", [], {"section": "encoding"}
    encoding = ctx.section("encoding")
    grammar = ctx.grammar
    usable = grammar is not None and grammar_blocker(grammar) is None
    admits = usable and "%" in grammar.analysis.reserved
    said = wording.mentions(encoding, _PERCENT_WORDS)
    if not encoding:
        findings.append(
            Finding(
                "percent-encoding",
                FAIL,
                "Section 2.3 Encoding is empty: it must say whether percent-escaping "
                "(%xx) is allowed and, if so, what the escaped octets mean.",
                ref,
                item,
            )
        )
    elif not said and admits:
        # A fact about the grammar: it admits '%', and 2.3 does not say what escapes mean.
        findings.append(
            Finding(
                "percent-encoding",
                FAIL,
                "The grammar allows '%' (percent-escapes), but the text of section 2.3 "
                "does not mention “percent”, “%” or “escaping”: say whether escapes are "
                "allowed and what the escaped octets mean.",
                ref,
                item,
            )
        )
    elif not said:
        # Wording, not a fact: the section may say it in other words.
        findings.append(
            Finding(
                "percent-encoding",
                EDITOR,
                "The text of section 2.3 does not mention “percent”, “%” or "
                "“escaping”; please judge whether it says if percent-escaping (%xx) is "
                "allowed and what the escaped octets mean.",
                ref,
                item,
            )
        )
    # Whole-URN case-insensitivity normalises the hex digits of escapes as well.
    normalising = {"percent-hex-case-insensitive", "case-insensitive"}
    if admits and not normalising & set(ctx.data.equivalence):
        findings.append(
            Finding(
                "percent-encoding",
                FAIL,
                "The grammar allows percent-escapes, so the equivalence rule must "
                "normalise them (choose 'percent-hex-case-insensitive').",
                ref,
                {"section": "lexical_equivalence"},
            )
        )
    if not findings:
        grammar_part = (
            "; the grammar's characters were not checked: the grammar does not work yet"
            if grammar is not None and not usable
            else ""
        )
        findings.append(
            Finding(
                "percent-encoding",
                PASS,
                f"Section 2.3 addresses percent-escaping (it mentions {wording.words_of(said)})"
                + ("; the grammar's escapes are normalised for equivalence" if admits else "")
                + f" (checked {len(encoding)} characters of section 2.3{grammar_part}).",
                ref,
                item,
            )
        )
    return findings


_UNICODE_NORMALISATION = re2.compile(r"(?i)\bNFK?[CD]\b|unicode normali[sz]")
_UNICODE_VERSION = re2.compile(r"(?i)unicode\s*(version\s*)?\d")
_CASE_WORDS = re2.compile(r"case[- ]insensitiv|case normali[sz]")


@check(
    "unicode-version",
    title="Unicode version stated",
    needs=("written:lexical_equivalence",),
    reference="GFD.191 §6 (2.4)",
    item={"section": "lexical_equivalence"},
)
def unicode_version(ctx: Context):
    text = ctx.section("lexical_equivalence") + "\n" + ctx.section("encoding")
    ref, item = "GFD.191 §6 (2.4)", {"section": "lexical_equivalence"}
    if not text.strip():
        return _one(
            "unicode-version",
            WARNING,
            "Sections 2.3 and 2.4 are empty: nothing to check for Unicode normalisation.",
            ref,
            item,
        )
    said = wording.mentions(text, _UNICODE_NORMALISATION)
    if said and not _UNICODE_VERSION.search(text):
        return _one(
            "unicode-version",
            EDITOR,
            f"The text mentions {wording.words_of(said)} ({wording.quoted(said)}) but names no "
            "Unicode version; please judge: if Unicode normalisation is applied, its version must "
            "be named, as its results change between versions (e.g. 'Unicode 6.0').",
            ref,
            item,
        )
    return _one(
        "unicode-version",
        PASS,
        f"No Unicode normalisation without a version (checked {len(text.strip())} characters of sections 2.3 and 2.4).",
        ref,
        item,
    )


@check(
    "equivalence",
    title="Lexical equivalence",
    needs=("written:lexical_equivalence", "grammar"),
    reference="GFD.191 §6 (2.4), RFC 6453 §2.4",
    item={"section": "lexical_equivalence"},
)
def equivalence(ctx: Context):
    ref, findings = "GFD.191 §6 (2.4), RFC 6453 §2.4", []
    steps = ctx.data.equivalence
    for step in steps:
        if step not in EQUIVALENCE_STEPS:
            findings.append(
                Finding(
                    "equivalence",
                    FAIL,
                    f"Unknown normalisation step {step!r}.",
                    ref,
                    {"section": "lexical_equivalence"},
                )
            )
    for index, group in enumerate(ctx.data.examples.equivalent):
        forms = {}
        for urn in group:
            try:
                forms[urn] = normalize(parse_urn(urn), steps)
            except UrnSyntaxError as exc:
                findings.append(
                    Finding(
                        "equivalence",
                        FAIL,
                        f"Not a valid URN: {exc.message}",
                        ref,
                        {"example": urn, "list": "equivalent", "group": index},
                    )
                )
        if len(set(forms.values())) > 1:
            findings.append(
                Finding(
                    "equivalence",
                    FAIL,
                    f"Equivalence group {index + 1} is not equivalent under the chosen "
                    f"rule: the normal forms differ ({', '.join(sorted(set(forms.values())))}).",
                    ref,
                    {"list": "equivalent", "group": index},
                )
            )
    said = [m for m in wording.mentions(ctx.section("lexical_equivalence").lower(), _CASE_WORDS) if not m.negated]
    if said and "case-insensitive" not in steps:
        findings.append(
            Finding(
                "equivalence",
                EDITOR,
                f"The text of section 2.4 mentions {wording.words_of(said)} "
                f"({wording.quoted(said)}), but the executable rule does not include "
                "'case-insensitive'; please judge. If only part of the URN is "
                "case-insensitive the registry cannot apply that part: say so, or "
                "make the two agree.",
                ref,
                {"section": "lexical_equivalence"},
            )
        )
    groups = len(ctx.data.examples.equivalent)
    if not findings and not groups:
        findings.append(
            Finding(
                "equivalence",
                WARNING,
                "No equivalence groups are listed, so the executable rule was not "
                "tested (checked 0 groups): list URNs that must be equivalent.",
                ref,
                {"section": "lexical_equivalence"},
            )
        )
    if not findings:
        described = ", ".join(steps) if steps else "RFC 6453's rule only"
        findings.append(
            Finding(
                "equivalence",
                PASS,
                f"The equivalence rule ({described}) holds for every equivalence "
                f"group (checked {groups} group{'s' if groups != 1 else ''}) and keeps "
                "urn:ogf: and the SNID case-insensitive.",
                ref,
                {"section": "lexical_equivalence"},
            )
        )
    return findings
