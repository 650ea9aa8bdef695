"""The automated review checklist: every GFD.191 criterion we can compute, as a named check.

GFD.191 §5 lists what the GFD editor checks before assigning an SNID; §3, §4
and the §6 template add MUSTs and SHOULDs. Each check is a small function with
a stable id returning findings — ``pass``, ``warning``, ``fail`` or ``editor``
(needs human judgement) — each with a plain message, the clause it comes
from and the item it concerns. Checks read a ``ProposalData`` and a few facts
about the registry (``RegistryFacts``), never the database, so a file can be
checked as easily as a stored proposal. Grammars come from the compile cache,
so a full run costs milliseconds.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

import re2

from .enums import FindingStatus
from .gfd191 import REQUIRED_SECTIONS, SECTIONS_BY_KEY
from .grammar import (
    EQUIVALENCE_STEPS,
    UrnSyntaxError,
    grammar_compile,
    is_valid_snid,
    normalize,
    parse_urn,
    snid_error,
)
from .grammar.analysis import Scope
from .grammar.samples import character_samples
from .interchange import ProposalData
from .resolution.expand import preview as resolution_preview
from .resolution.templates import resolvers_errors, rule_placeholders

PASS, WARNING, FAIL, EDITOR = (FindingStatus.PASS.value, FindingStatus.WARNING.value,
                               FindingStatus.FAIL.value, FindingStatus.EDITOR.value)


@dataclass(frozen=True, slots=True)
class Finding:
    id: str
    status: str
    message: str
    reference: str
    item: dict | None = None

    def as_dict(self) -> dict:
        return {"id": self.id, "status": self.status, "message": self.message,
                "reference": self.reference, "item": self.item}


@dataclass(frozen=True, slots=True)
class RegistryFacts:
    """What the registry knows about the proposal's SNID (see selectors.registry_facts)."""

    registered: bool = False
    latest_version: int | None = None
    #: The proposal is a new version of an SNID registered to its submitter.
    own_namespace: bool = False
    reserved: bool = False
    reserved_for_applicant: bool = False
    reserved_until: str | None = None
    #: Whether the submitter is known; without one (a file checked on the command line)
    #: the registry cannot tell a new version by the registrant from a takeover.
    submitter_known: bool = True


@dataclass
class Context:
    data: ProposalData
    facts: RegistryFacts
    _grammar: object = field(default=None, init=False, repr=False)

    def section(self, key: str) -> str:
        return (self.data.sections.get(key) or "").strip()

    @property
    def grammar(self):
        """The compiled grammar (cached by content), or None if there is none."""
        if self._grammar is None and self.data.grammar.abnf.strip():
            self._grammar = grammar_compile(self.data.grammar.abnf, self.data.grammar.rule,
                                            examples=example_subjects(self.data))
        return self._grammar


def example_subjects(data: ProposalData) -> tuple[str, ...]:
    """The examples a grammar is cross-checked on, each once (a repeated URN proves nothing new)."""
    return tuple(dict.fromkeys([*data.examples.valid, *data.examples.invalid]))


CHECKS: list[tuple[str, Callable[[Context], list[Finding]]]] = []


def check(check_id: str):
    def register(function):
        CHECKS.append((check_id, function))
        return function
    return register


def _one(check_id, status, message, reference, item=None) -> list[Finding]:
    return [Finding(check_id, status, message, reference, item)]


# --- 1 Registration ------------------------------------------------------------------------


@check("snid-syntax")
def snid_syntax(ctx: Context):
    problem = snid_error(ctx.data.snid)
    if problem:
        return _one("snid-syntax", FAIL, problem, "RFC 6453 §2.4", {"section": "snid"})
    return _one("snid-syntax", PASS,
                f"'{ctx.data.snid}' is a well-formed SNID (checked its {len(ctx.data.snid)} characters).",
                "RFC 6453 §2.4", {"section": "snid"})


@check("snid-not-experimental")
def snid_not_experimental(ctx: Context):
    if not ctx.data.snid.strip():
        return _one("snid-not-experimental", WARNING, "There is no SNID to check yet.",
                    "GFD.191 §6 (1.1)", {"section": "snid"})
    if ctx.data.snid.lower().startswith("x-"):
        return _one("snid-not-experimental", FAIL,
                    "urn:ogf: is a formal namespace: an SNID must not start with 'x-'.",
                    "GFD.191 §6 (1.1)", {"section": "snid"})
    return _one("snid-not-experimental", PASS, f"The SNID '{ctx.data.snid}' does not start with 'x-'.",
                "GFD.191 §6 (1.1)", {"section": "snid"})


@check("snid-unique")
def snid_unique(ctx: Context):
    facts, ref, item = ctx.facts, "GFD.191 §4, RFC 6453 §2.4", {"section": "snid"}
    if not is_valid_snid(ctx.data.snid):
        return _one("snid-unique", WARNING,
                    "Uniqueness is checked once the SNID is well formed.", ref, item)
    if facts.registered and not facts.submitter_known:
        return _one("snid-unique", WARNING,
                    f"urn:ogf:{ctx.data.snid}: is already registered (latest version "
                    f"{facts.latest_version}). Only its registrant may propose a new version; "
                    "no submitter was given, so this could not be checked (use --submitter).",
                    ref, item)
    if facts.registered and not facts.own_namespace:
        return _one("snid-unique", FAIL,
                    f"urn:ogf:{ctx.data.snid}: is already registered to someone else (SNIDs are "
                    "compared case-insensitively). Choose another SNID.", ref, item)
    if facts.reserved and not facts.reserved_for_applicant:
        return _one("snid-unique", FAIL,
                    f"urn:ogf:{ctx.data.snid}: is reserved for someone else until "
                    f"{facts.reserved_until}. Choose another SNID.", ref, item)
    if facts.registered:
        return _one("snid-unique", PASS, "This is a new version of an SNID registered to you.", ref, item)
    if facts.reserved:
        return _one("snid-unique", PASS, f"The SNID is reserved for you until {facts.reserved_until}.", ref, item)
    return _one("snid-unique", PASS,
                f"No registered or reserved SNID is '{ctx.data.snid}' (compared case-insensitively).",
                ref, item)


# Applicant text is untrusted: like URNs, it only ever meets RE2 (linear time).
_VOLATILE = [
    (re2.compile(r"(?i)(^|-)(wg|rg|cg|bof)(-|$)|wg$"), "a working/research group name"),
    (re2.compile(r"(19|20)\d\d"), "a year"),
    (re2.compile(r"(?i)(^|-)v?\d+(\.\d+)+$|(^|-)v\d+$"), "a version number"),
    (re2.compile(r"(?i)(^|-)(inc|ltd|corp|gmbh|llc|univ|university|institute|lab)(-|$)"),
     "an organisation's name"),
]
_GFD_NUMBER = re2.compile(r"(?i)\bGFD[.\- ]?\d+")


@check("snid-durable")
def snid_durable(ctx: Context):
    snid, ref, item = ctx.data.snid, "GFD.191 §5, §6 (1.1)", {"section": "snid"}
    found = [what for pattern, what in _VOLATILE if pattern.search(snid)]
    if found:
        return _one("snid-durable", WARNING,
                    f"The SNID seems to contain {' and '.join(found)}, which may not last. Does "
                    "it still make sense in 10 years, when the group is disbanded?", ref, item)
    return _one("snid-durable", EDITOR,
                "Does the SNID still make sense in 10 years, if the working group is disbanded? "
                "(A protocol's name is fine; a group's or organisation's name is not.)", ref, item)


@check("required-sections")
def required_sections(ctx: Context):
    findings = []
    for section in REQUIRED_SECTIONS:
        present = {"snid": bool(ctx.data.snid.strip()), "version": ctx.data.version >= 1}.get(
            section.key, bool(ctx.section(section.key)))
        if not present:
            findings.append(Finding("required-sections", FAIL,
                                    f"Section {section.heading} is required by GFD.191 §4 and is empty.",
                                    "GFD.191 §4", {"section": section.key}))
    if not findings:
        findings.append(Finding("required-sections", PASS,
                                f"All {len(REQUIRED_SECTIONS)} sections GFD.191 §4 requires are present.",
                                "GFD.191 §4"))
    return findings


@check("version")
def version(ctx: Context):
    expected = (ctx.facts.latest_version or 0) + 1
    item = {"section": "version"}
    if ctx.data.version != expected:
        why = (f"the latest approved version is {ctx.facts.latest_version}"
               if ctx.facts.latest_version else "this would be a new SNID")
        return _one("version", FAIL,
                    f"The version should be {expected} ({why}), not {ctx.data.version}.",
                    "GFD.191 §6 (1.2)", item)
    return _one("version", PASS,
                f"Version {expected} follows the registry's history (latest approved version: "
                f"{ctx.facts.latest_version or 'none'}).",
                "GFD.191 §6 (1.2)", item)


@check("document")
def document(ctx: Context):
    doc, ref, item = ctx.data.document, "GFD.191 §4", {"section": "document"}
    if not doc.reference.strip():
        return _one("document", FAIL,
                    "Name the grid working document or GFD that registers the SNID (e.g. GFD.202 "
                    "or a draft's title): the application is made by publishing a GFD.", ref, item)
    findings = []
    if not _GFD_NUMBER.search(doc.reference) and doc.status == "published":
        findings.append(Finding("document", WARNING,
                                f"'{doc.reference}' is marked published but is not a GFD number; SNIDs "
                                "are registered by GFDs.", ref, item))
    if not doc.type:
        findings.append(Finding("document", WARNING,
                                "Give the GFD type of the registering document: GFD.191 §4 says it "
                                "SHOULD be an Informational document.", ref, item))
    elif doc.type != "Informational":
        findings.append(Finding("document", WARNING,
                                f"The registering document's GFD type is {doc.type}; GFD.191 §4 says "
                                "it SHOULD be Informational. Say why in the proposal, or publish it "
                                "as Informational.", ref, item))
    if not findings:
        findings.append(Finding("document", PASS,
                                f"The registration is documented in {doc.reference}, an Informational "
                                "document.", ref, item))
    return findings


@check("registrant")
def registrant(ctx: Context):
    reg, ref, item = ctx.data.registrant, "GFD.191 §6 (1.3)", {"section": "registrant"}
    if not (reg.name.strip() or reg.organisation.strip()):
        return _one("registrant", FAIL,
                    "Give the name of the organisation or person responsible for the registration.",
                    ref, item)
    if not reg.email.strip() and not reg.address.strip():
        return _one("registrant", WARNING, "Give an e-mail or postal address for the registrant.",
                    ref, item)
    return _one("registrant", PASS, "A registrant with contact details is declared.", ref, item)


# --- 2 Syntax: the grammar -----------------------------------------------------------------

_PARSE_KINDS = {"syntax", "redefinition", "empty", "top-rule", "too-complex", "too-large",
                "disagreement"}


def _issue_item(issue) -> dict:
    item = {"section": "grammar"}
    if issue.line:
        item["line"] = issue.line
    if issue.column:
        item["column"] = issue.column
    if issue.rule:
        item["rule"] = issue.rule
    return item


@check("grammar-present")
def grammar_present(ctx: Context):
    if not ctx.data.grammar.abnf.strip():
        return _one("grammar-present", FAIL,
                    "Give the formal syntax in ABNF so URNs can be checked by machine (GFD.191 "
                    "§5: is the syntax unambiguous?).", "GFD.191 §5, §6 (2.1)", {"section": "grammar"})
    return _one("grammar-present", PASS, "A formal ABNF grammar is given.", "GFD.191 §6 (2.1)",
                {"section": "grammar"})


@check("grammar-parses")
def grammar_parses(ctx: Context):
    grammar = ctx.grammar
    if grammar is None:
        return []
    problems = [i for i in grammar.issues if i.kind in _PARSE_KINDS and i.severity == "error"]
    if problems:
        return [Finding("grammar-parses", FAIL, i.message, "RFC 5234", _issue_item(i)) for i in problems]
    crosscheck = grammar.crosscheck
    checked = crosscheck.checked if crosscheck else 0
    if crosscheck and crosscheck.cut_short:
        # A comparison stopped by a limit proves nothing: say which limit, never pass.
        return _one("grammar-parses", WARNING,
                    f"The grammar reads as ABNF, but its validator could not be fully compared "
                    f"with the reference parser: {grammar.crosscheck.cut_short}. It may still be "
                    "right; a simpler grammar can be checked completely.", "RFC 5234",
                    {"section": "grammar", "limit": "time"})
    if checked == 0:
        why = f" ({crosscheck.skipped})" if crosscheck and crosscheck.skipped else ""
        return _one("grammar-parses", WARNING,
                    "The grammar reads as ABNF, but its validator could not be compared with the "
                    f"reference parser on any string{why}: checked 0 strings.", "RFC 5234",
                    {"section": "grammar"})
    return _one("grammar-parses", PASS,
                f"The grammar reads as ABNF; its validator agrees with the reference parser "
                f"(checked {checked} test strings).", "RFC 5234", {"section": "grammar"})


@check("grammar-complete")
def grammar_complete(ctx: Context):
    grammar = ctx.grammar
    if grammar is None:
        return []
    status_of = {"undefined": FAIL, "unreachable": WARNING, "prose-unknown": WARNING,
                 "recursion": WARNING, "recursion-bounded": WARNING}
    findings = []
    for issue in grammar.issues:
        if issue.kind in status_of:
            findings.append(Finding("grammar-complete", status_of[issue.kind], issue.message,
                                    "RFC 5234", _issue_item(issue)))
        elif issue.kind == "core-redefinition" and issue.severity == "warning":
            findings.append(Finding("grammar-complete", WARNING, issue.message,
                                    "RFC 5234 Appendix B", _issue_item(issue)))
    prefix = grammar.analysis.prefix.lower()
    wanted = f"urn:ogf:{ctx.data.snid.lower()}:"
    if grammar.full_urn and not prefix.startswith(wanted) and wanted.startswith(prefix):
        findings.append(Finding("grammar-complete", WARNING,
                                f"The grammar describes whole URNs but does not fix the SNID: it "
                                f"should start with \"{wanted}\".", "GFD.191 §6 (2.1)",
                                {"section": "grammar"}))
    elif grammar.full_urn and not prefix.startswith(wanted):
        findings.append(Finding("grammar-complete", FAIL,
                                f"The grammar describes URNs starting with \"{grammar.analysis.prefix}\","
                                f" not \"{wanted}\".", "GFD.191 §6 (2.1)", {"section": "grammar"}))
    rules = len(grammar.parsed.rules)
    if not findings and not rules:
        findings.append(Finding("grammar-complete", WARNING, "The grammar has no rules: checked 0 rules.",
                                "RFC 5234", {"section": "grammar"}))
    if not findings:
        findings.append(Finding("grammar-complete", PASS,
                                f"Every rule is defined and used; no free-text (prose) parts "
                                f"(checked {rules} rule{'s' if rules != 1 else ''}).",
                                "RFC 5234", {"section": "grammar"}))
    return findings


def _printable(text: str) -> str:
    """``text`` with characters that cannot be shown (controls, lone surrogates) escaped."""
    return "".join(c if c.isprintable() else f"\\u{ord(c):04x}" for c in text)


@check("grammar-charset")
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
        message = (f"The grammar admits strings that are not valid urn:ogf: URNs, for example "
                   f"{urn!r}: {why}")
        if outside:
            message += (" Characters it allows that may not appear in a URN unencoded: "
                        f"{', '.join(outside[:12])}{' …' if len(outside) > 12 else ''}.")
        return _one("grammar-charset", FAIL, message + f" (Checked {_strings(checked)} generated from "
                    "the grammar.)", ref, {**item, "counter_example": urn})
    if outside:
        return _one("grammar-charset", FAIL,
                    "The grammar allows characters that may not appear in a URN: "
                    f"{', '.join(outside[:12])}{' …' if len(outside) > 12 else ''}. They must be "
                    "percent-encoded.", ref, item)
    if checked == 0:
        return _one("grammar-charset", WARNING,
                    "No string could be generated from the grammar, so what it admits was not "
                    "checked: checked 0 strings.", ref, item)
    if not complete:
        return _one("grammar-charset", WARNING,
                    f"Checked {_strings(checked)} generated from the grammar, all valid urn:ogf: URNs, "
                    "but the grammar is too large to try every kind of character it allows (work "
                    "limit reached): not a pass.", ref, item)
    return _one("grammar-charset", PASS,
                f"Checked {_strings(checked)} generated from the grammar, one or more for each kind "
                "of character it allows: all are valid urn:ogf: URNs.", ref, item)


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


@check("reserved-characters")
def reserved_characters(ctx: Context):
    grammar = ctx.grammar
    if grammar is None or not grammar.ok:
        return []
    reserved = grammar.analysis.reserved
    if not grammar.analysis.charset:
        return _one("reserved-characters", WARNING,
                    "The grammar produces no characters: checked 0 characters.", "GFD.191 §3",
                    {"section": "grammar"})
    if reserved:
        return _one("reserved-characters", WARNING,
                    f"The grammar admits the reserved character(s) {' '.join(reserved)}. GFD.191 "
                    "RECOMMENDS forbidding % / ? # in assigned URNs; if they are allowed, say so "
                    "and why in 2.3 Encoding.", "GFD.191 §3, §6 (2.3)", {"section": "encoding"})
    count = sum(hi - lo + 1 for lo, hi in grammar.analysis.charset)
    return _one("reserved-characters", PASS,
                f"No reserved characters (% / ? #) are admitted (checked the {count} characters "
                "the grammar allows).",
                "GFD.191 §3", {"section": "grammar"})


@check("max-length")
def max_length(ctx: Context):
    grammar, declared = ctx.grammar, ctx.data.max_length
    ref = "GFD.191 §5"
    findings = []
    if grammar is not None and grammar.ok and grammar.analysis.bounded:
        longest = int(grammar.analysis.max_length)
        what = "URN" if grammar.full_urn else "string after the SNID"
        if longest == 0:
            findings.append(Finding("max-length", FAIL,
                                    f"The grammar bounds the {what} to 0 characters (length bound 0): "
                                    "it admits no URN.", ref, {"section": "grammar"}))
        else:
            findings.append(Finding("max-length", PASS,
                                    f"The grammar bounds the {what} to {longest} characters (length "
                                    f"bound {longest}).", ref, {"section": "grammar"}))
    elif declared:
        findings.append(Finding("max-length", PASS,
                                f"A maximum length of {declared} characters is declared (length bound "
                                f"{declared}).",
                                ref, {"section": "max_length"}))
    else:
        findings.append(Finding("max-length", WARNING,
                                "The grammar has no upper bound and no maximum length is declared: "
                                "what is the longest URN a receiver must accept?", ref,
                                {"section": "max_length"}))
    if declared:
        for example in ctx.data.examples.valid:
            if len(example) > declared:
                findings.append(Finding("max-length", FAIL,
                                        f"The example is {len(example)} characters long, over the "
                                        f"declared maximum of {declared}.", ref, {"example": example}))
    return findings


_PERCENT_WORDS = re2.compile(r"(?i)percent|%|escap")


@check("percent-encoding")
def percent_encoding(ctx: Context):
    ref, findings = "GFD.191 §5, §6 (2.3)", []
    if not _PERCENT_WORDS.search(ctx.section("encoding")):
        findings.append(Finding("percent-encoding", FAIL,
                                "Section 2.3 Encoding must say whether percent-escaping (%xx) is "
                                "allowed and, if so, what the escaped octets mean.", ref,
                                {"section": "encoding"}))
    grammar = ctx.grammar
    admits = grammar is not None and grammar.ok and "%" in grammar.analysis.reserved
    # Whole-URN case-insensitivity normalises the hex digits of escapes as well.
    normalising = {"percent-hex-case-insensitive", "case-insensitive"}
    if admits and not normalising & set(ctx.data.equivalence):
        findings.append(Finding("percent-encoding", FAIL,
                                "The grammar allows percent-escapes, so the equivalence rule must "
                                "normalise them (choose 'percent-hex-case-insensitive').", ref,
                                {"section": "lexical_equivalence"}))
    if not findings:
        findings.append(Finding("percent-encoding", PASS,
                                "Percent-escaping is addressed in section 2.3"
                                + (" and normalised for equivalence" if admits else "")
                                + f" (checked {len(ctx.section('encoding'))} characters of section 2.3"
                                + (" and the grammar's characters)." if grammar is not None and grammar.ok
                                   else ")."), ref, {"section": "encoding"}))
    return findings


_UNICODE_NORMALISATION = re2.compile(r"(?i)\bNFK?[CD]\b|unicode normali[sz]")
_UNICODE_VERSION = re2.compile(r"(?i)unicode\s*(version\s*)?\d")
_CASE_WORDS = re2.compile(r"case[- ]insensitiv|case normali[sz]")


@check("unicode-version")
def unicode_version(ctx: Context):
    text = ctx.section("lexical_equivalence") + "\n" + ctx.section("encoding")
    ref, item = "GFD.191 §6 (2.4)", {"section": "lexical_equivalence"}
    if not text.strip():
        return _one("unicode-version", WARNING,
                    "Sections 2.3 and 2.4 are empty: nothing to check for Unicode normalisation.",
                    ref, item)
    if _UNICODE_NORMALISATION.search(text) and not _UNICODE_VERSION.search(text):
        return _one("unicode-version", WARNING,
                    "Unicode normalisation is mentioned but no Unicode version is named; its "
                    "results change between versions (e.g. 'Unicode 6.0').", ref, item)
    return _one("unicode-version", PASS,
                f"No Unicode normalisation without a version (checked {len(text.strip())} characters "
                "of sections 2.3 and 2.4).", ref, item)


@check("equivalence")
def equivalence(ctx: Context):
    ref, findings = "GFD.191 §6 (2.4), RFC 6453 §2.4", []
    steps = ctx.data.equivalence
    for step in steps:
        if step not in EQUIVALENCE_STEPS:
            findings.append(Finding("equivalence", FAIL, f"Unknown normalisation step {step!r}.", ref,
                                    {"section": "lexical_equivalence"}))
    for index, group in enumerate(ctx.data.examples.equivalent):
        forms = {}
        for urn in group:
            try:
                forms[urn] = normalize(parse_urn(urn), steps)
            except UrnSyntaxError as exc:
                findings.append(Finding("equivalence", FAIL, f"Not a valid URN: {exc.message}", ref,
                                        {"example": urn, "list": "equivalent", "group": index}))
        if len(set(forms.values())) > 1:
            findings.append(Finding("equivalence", FAIL,
                                    f"Equivalence group {index + 1} is not equivalent under the chosen "
                                    f"rule: the normal forms differ ({', '.join(sorted(set(forms.values())))}).",
                                    ref, {"list": "equivalent", "group": index}))
    prose = ctx.section("lexical_equivalence").lower()
    if _CASE_WORDS.search(prose) and "case-insensitive" not in steps:
        findings.append(Finding("equivalence", WARNING,
                                "Section 2.4 speaks of case-insensitivity, but the executable rule "
                                "does not include 'case-insensitive'. If only part of the URN is "
                                "case-insensitive the registry cannot apply that part: say so, or "
                                "make the two agree.", ref, {"section": "lexical_equivalence"}))
    groups = len(ctx.data.examples.equivalent)
    if not findings and not groups:
        findings.append(Finding("equivalence", WARNING,
                                "No equivalence groups are listed, so the executable rule was not "
                                "tested (checked 0 groups): list URNs that must be equivalent.", ref,
                                {"section": "lexical_equivalence"}))
    if not findings:
        described = ", ".join(steps) if steps else "RFC 6453's rule only"
        findings.append(Finding("equivalence", PASS,
                                f"The equivalence rule ({described}) holds for every equivalence "
                                f"group (checked {groups} group{'s' if groups != 1 else ''}) and keeps "
                                "urn:ogf: and the SNID case-insensitive.", ref,
                                {"section": "lexical_equivalence"}))
    return findings


# --- 6 Examples ----------------------------------------------------------------------------


@check("examples-present")
def examples_present(ctx: Context):
    if not ctx.data.examples.valid:
        return _one("examples-present", WARNING,
                    "List a few valid example URNs so readers and the registry can check the "
                    "grammar against them.", "GFD.191 §6 (6)", {"section": "examples"})
    return _one("examples-present", PASS, f"{len(ctx.data.examples.valid)} valid example(s) given.",
                "GFD.191 §6 (6)", {"section": "examples"})


def _example_problems(ctx: Context, urn: str) -> list[str]:
    """Why an example is not a valid URN of this proposal's SNID ([] if it is)."""
    try:
        parsed = parse_urn(urn)
    except UrnSyntaxError as exc:
        return [exc.message]
    if parsed.snid.lower() != ctx.data.snid.lower():
        return [f"It belongs to urn:ogf:{parsed.snid}:, not urn:ogf:{ctx.data.snid}:."]
    problems = []
    grammar = ctx.grammar
    if grammar is not None and grammar.ok:
        problems.extend(grammar.check(parsed))
    if ctx.data.max_length and len(urn) > ctx.data.max_length:
        problems.append(f"It is longer than the declared maximum of {ctx.data.max_length}.")
    return problems


@check("examples-valid")
def examples_valid(ctx: Context):
    ref, findings = "GFD.191 §6 (6)", []
    for urn in ctx.data.examples.valid:
        problems = _example_problems(ctx, urn)
        if problems:
            findings.append(Finding("examples-valid", FAIL,
                                    "A valid example is not valid: " + " ".join(problems), ref,
                                    {"example": urn, "list": "valid"}))
    if ctx.data.examples.valid and not findings:
        checked = "against the grammar" if ctx.grammar is not None and ctx.grammar.ok else "for URN syntax"
        findings.append(Finding("examples-valid", PASS,
                                f"All {len(ctx.data.examples.valid)} valid examples check out {checked}.",
                                ref, {"section": "examples"}))
    return findings


@check("examples-invalid")
def examples_invalid(ctx: Context):
    ref, findings = "GFD.191 §6 (6)", []
    for urn in ctx.data.examples.invalid:
        if not _example_problems(ctx, urn):
            findings.append(Finding("examples-invalid", WARNING,
                                    "The grammar accepts this example listed as invalid. Say in "
                                    "section 6 why it is invalid (a rule the grammar cannot "
                                    "express), or tighten the grammar.", ref,
                                    {"example": urn, "list": "invalid"}))
    if ctx.data.examples.invalid and not findings:
        findings.append(Finding("examples-invalid", PASS,
                                f"All {len(ctx.data.examples.invalid)} invalid examples are rejected.",
                                ref, {"section": "examples"}))
    return findings


# --- 3.2 Resolution ------------------------------------------------------------------------


@check("resolvers")
def resolvers(ctx: Context):
    """Each declared resolver's template, expanded for every valid example: the URLs shown."""
    ref, item = "GFD.191 §6 (3.2)", {"section": "resolution"}
    declared = ctx.data.resolvers
    if not declared:
        return []  # section 3.2 is optional: nothing declared, nothing to examine
    grammar = ctx.grammar
    names = [rule.name for rule in grammar.parsed.rules.values()] if grammar is not None else []
    errors, warnings = resolvers_errors(declared, names)
    findings = [Finding("resolvers", FAIL, e, ref, item) for e in errors]
    findings += [Finding("resolvers", WARNING, w, ref, item) for w in warnings]
    if errors:
        return findings
    if not ctx.data.examples.valid:
        return findings + _one("resolvers", WARNING, "Not run: list valid examples so the registry can "
                               "show the URLs the resolvers would produce.", ref, item)
    uses_rules = any(rule_placeholders(r["template"]) for r in declared)
    if uses_rules and (grammar is None or not grammar.ok):
        return findings + _one("resolvers", WARNING, "Not run: the templates name rules of the grammar, "
                               "and the grammar cannot validate URNs yet.", ref, item)
    rows = resolution_preview(declared, grammar, ctx.data.examples.valid, ctx.data.equivalence)
    for name, example, url, problem in rows:
        if problem:
            findings.append(Finding("resolvers", FAIL if not example else WARNING,
                                    f"Resolver {name!r}{' for ' + example if example else ''}: {problem}",
                                    ref, {**item, **({"example": example, "list": "valid"} if example else {})}))
    good = [(name, example, url) for name, example, url, problem in rows if not problem]
    if good and not any(f.status == FAIL for f in findings):
        shown = "; ".join(f"{name}: {example} → {url}" for name, example, url in good[:20])
        more = f" (and {len(good) - 20} more)" if len(good) > 20 else ""
        findings.append(Finding("resolvers", PASS,
                                f"Every template filled for every valid example ({len(good)} URL"
                                f"{'s' if len(good) != 1 else ''}): {shown}{more}.", ref,
                                {**item, "urls": [list(row) for row in good[:100]]}))
    return findings


# --- judgements for the editor -------------------------------------------------------------

_DELEGATION = re2.compile(r"(?i)delegat|third[- ]part|sub-?namespace|sub-?delegat|assigning organi")


@check("subdelegation")
def subdelegation(ctx: Context):
    ref = "GFD.191 §5"
    if not ctx.section("identifier_assignment"):
        return _one("subdelegation", WARNING,
                    "Section 5.1 Identifier assignment is empty: nothing to check for delegation.",
                    ref, {"section": "identifier_assignment"})
    if not _DELEGATION.search(ctx.section("identifier_assignment")):
        return _one("subdelegation", PASS, "Assignment does not mention delegation to third parties.",
                    ref, {"section": "identifier_assignment"})
    missing = [SECTIONS_BY_KEY[k].heading for k in ("uniqueness", "immutability") if not ctx.section(k)]
    message = ("Assignment is delegated to third parties: do sections 4.2 and 5.2 explain how they "
               "keep URNs unique and immutable?")
    if missing:
        message += f" ({' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} empty.)"
        return _one("subdelegation", WARNING, message, ref, {"section": "identifier_assignment"})
    return _one("subdelegation", EDITOR, message, ref, {"section": "identifier_assignment"})


_ATTRIBUTES = re2.compile(r"(?i)date|year|domain|provider|host|org|name|location|country|owner")


@check("immutability")
def immutability(ctx: Context):
    ref, item = "GFD.191 §5, §6 (5.2)", {"section": "immutability"}
    if not ctx.section("immutability"):
        return _one("immutability", FAIL, "Section 5.2 must explain why URNs never need to change.",
                    ref, item)
    grammar = ctx.grammar
    names = []
    if grammar is not None:
        names = [grammar.parsed.rules[key].name for key in grammar.analysis.reachable
                 if _ATTRIBUTES.search(grammar.parsed.rules[key].name)]
    message = "How is immutability ensured?"
    if names:
        message += (f" The syntax carries attributes that can change ({', '.join(names)}): what "
                    "keeps the URN valid when they do?")
    return _one("immutability", EDITOR, message, ref, item)


@check("scope")
def scope(ctx: Context):
    return _one("scope", EDITOR, "Does the intended use (4.1 Scope) fall within the scope of the OGF?",
                "GFD.191 §5", {"section": "scope"})


# --- running -------------------------------------------------------------------------------

CHECK_IDS: tuple[str, ...] = tuple(check_id for check_id, _ in CHECKS)
#: The judgements the editor ticks by hand on the review page.
MANUAL_CHECKS: tuple[str, ...] = ("scope", "snid-durable", "subdelegation", "immutability")


def run_checklist(data: ProposalData, facts: RegistryFacts | None = None) -> list[Finding]:
    ctx = Context(data, facts or RegistryFacts())
    findings: list[Finding] = []
    for _, function in CHECKS:
        findings.extend(function(ctx))
    return findings


def summarize(findings) -> dict[str, int]:
    counts = Counter(f.status if isinstance(f, Finding) else f["status"] for f in findings)
    return {status: counts.get(status, 0) for status in FindingStatus.values}


def has_failures(findings) -> bool:
    return summarize(findings)[FAIL] > 0
