"""The automated review checklist: every GFD.191 criterion we can compute, as a named check.

GFD.191 §5 lists what the GFD editor checks before assigning an SNID; §3, §4
and the §6 template add MUSTs and SHOULDs. Each check is a small function with
a stable id returning findings — ``pass``, ``warning``, ``fail`` or ``editor``
(needs human judgement) — each with a plain message, the clause it comes
from and the item it concerns. A check declares what it needs (``needs=``: a
grammar that works, a well-formed SNID that is free or yours, a section that is
written); when a need is not met the check is not run and says so (``not_run``,
with the reason and the place to fix first), so one root cause gives one failing
finding and nothing passes that was not examined. Checks read a ``ProposalData`` and a few facts
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

from . import wording
from .enums import FindingStatus
from .gfd191 import REQUIRED_SECTIONS, SECTIONS, SECTIONS_BY_KEY
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
from .grammar.compiler import NOT_CHECKED
from .grammar.parse import Issue
from .grammar.samples import character_samples
from .interchange import ProposalData
from .resolution.expand import preview as resolution_preview
from .resolution.templates import resolvers_errors, rule_placeholders

PASS, WARNING, FAIL, EDITOR, NOT_RUN = (FindingStatus.PASS.value, FindingStatus.WARNING.value,
                                        FindingStatus.FAIL.value, FindingStatus.EDITOR.value,
                                        FindingStatus.NOT_RUN.value)
#: ``stage`` of a run: a draft's unwritten sections are "to do"; at submission they fail.
DRAFT, SUBMITTED = "draft", "submitted"


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
    #: The proposal is a new version of an SNID its submitter is a steward of.
    own_namespace: bool = False
    #: The SNID is deprecated: it is never registered again, by anyone.
    deprecated: bool = False
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
    stage: str = SUBMITTED
    _grammar: object = field(default=None, init=False, repr=False)
    _unmet: dict = field(default_factory=dict, init=False, repr=False)

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
#: What each check needs before it can say anything (names of ``NEEDS``), and the clause and
#: field its "not run" finding points at.
CHECK_NEEDS: dict[str, tuple[str, ...]] = {}
CHECK_PLACES: dict[str, tuple[str, dict]] = {}


def check(check_id: str, *, needs: tuple[str, ...] = (), reference: str = "", item: dict | None = None):
    """Register a check; ``needs`` names what must hold first (``NEEDS``, or ``written:<key>``)."""
    def register(function):
        CHECKS.append((check_id, function))
        CHECK_NEEDS[check_id] = needs
        CHECK_PLACES[check_id] = (reference, item or {})
        return function
    return register


# --- what checks need ----------------------------------------------------------------------

#: Grammar problems that leave nothing sound to check examples, bounds or characters against.
_BLOCKING_KINDS = {"syntax", "redefinition", "empty", "top-rule", "too-complex", "too-large",
                   "too-costly", "disagreement", "undefined"}


def grammar_blocker(grammar):
    """The first problem that keeps ``grammar`` from being used, or None if it works."""
    if grammar is None:
        return None
    if grammar.not_checked:  # the checker stopped: nothing is known, nothing may be judged
        return next(i for i in grammar.issues if i.kind == NOT_CHECKED)
    blocking = [i for i in grammar.issues if i.severity == "error" and i.kind in _BLOCKING_KINDS]
    if blocking:
        return blocking[0]
    if not grammar.ok:
        return next(iter(grammar.errors), None) or _NO_VALIDATOR
    return None


#: Why the checks that need the grammar did not run when its checker stopped (a fault).
NOT_CHECKED_REASON = "the grammar could not be checked this time (see grammar-parses); check again"

_NO_VALIDATOR = Issue("too-complex", "error", "No validator could be built from the grammar.")


def _at(issue) -> str:
    if issue.line and issue.column:
        return f" (line {issue.line}, column {issue.column})"
    return f" (line {issue.line})" if issue.line else ""


def _need_grammar(ctx: Context):
    """A grammar that is given must parse, define what it uses and compile; none given is
    said by grammar-present, and the checks that need one handle its absence."""
    issue = grammar_blocker(ctx.grammar)
    if issue is None:
        return None
    if issue.kind == NOT_CHECKED:
        why = NOT_CHECKED_REASON
    elif issue.kind in ("too-complex", "too-large", "too-costly"):
        why = "the grammar must be built into a validator first (see grammar-parses)"
    elif issue.kind == "undefined":
        why = "every rule the grammar uses must be defined first"
    elif issue.kind == "top-rule":
        why = "the grammar's top rule must be one of its rules first"
    elif issue.kind == "disagreement":
        why = "the grammar's validator must agree with the reference parser first"
    else:
        why = "the grammar must parse first"
    item = {"section": "grammar"}
    for key in ("line", "column", "rule"):
        if getattr(issue, key, None):
            item[key] = getattr(issue, key)
    return why + _at(issue), item


def _need_snid(ctx: Context):
    if is_valid_snid(ctx.data.snid):
        return None
    return "the SNID must be well formed first (see snid-syntax)", {"section": "snid"}


def _need_snid_available(ctx: Context):
    """The version follows the SNID's history only if the SNID is free or the applicant's."""
    blocked = _need_snid(ctx)
    if blocked:
        return blocked
    facts = ctx.facts
    if facts.registered and facts.submitter_known and not facts.own_namespace:
        return "the SNID is registered to someone else: choose another SNID first (see snid-unique)", \
            {"section": "snid"}
    if facts.reserved and not facts.reserved_for_applicant:
        return "the SNID is reserved for someone else: choose another SNID first (see snid-unique)", \
            {"section": "snid"}
    return None


def _need_grammar_parsed(ctx: Context):
    """Rules must be read before they can be judged complete: a rule with a syntax error is
    missing from what was read, and the rules using it would seem to refer to nothing."""
    grammar = ctx.grammar
    if grammar is not None and grammar.not_checked:
        return NOT_CHECKED_REASON, {"section": "grammar"}
    unread = {"syntax", "empty"} | ({"too-large"} if grammar is not None and not grammar.parsed.rules else set())
    issue = next((i for i in grammar.issues if i.severity == "error" and i.kind in unread),
                 None) if grammar is not None else None
    if issue is None:
        return None
    item = {"section": "grammar", **{k: getattr(issue, k) for k in ("line", "column", "rule")
                                     if getattr(issue, k, None)}}
    return "the grammar must parse first" + _at(issue), item


NEEDS: dict[str, Callable[[Context], tuple[str, dict] | None]] = {
    "grammar": _need_grammar,
    "grammar-parsed": _need_grammar_parsed,
    "snid": _need_snid,
    "snid-available": _need_snid_available,
}


def section_written(data: ProposalData, key: str) -> bool:
    """Whether the applicant has written anything for template section ``key`` (or a field)."""
    if key == "snid":
        return bool(data.snid.strip())
    if key == "version":
        return data.version >= 1
    if key == "document":
        return bool(data.document.reference.strip())
    if key == "registrant":
        reg = data.registrant
        return bool(reg.name.strip() or reg.organisation.strip())
    if key == "grammar":
        return bool(data.grammar.abnf.strip())
    text = bool((data.sections.get(key) or "").strip())
    if key == "syntactic_structure":
        return text or bool(data.grammar.abnf.strip())
    if key == "examples":
        return text or bool(data.examples.valid)
    return text


def progress(data: ProposalData) -> dict:
    """How much of the template is written: {"written", "total", "missing_required": [headings]}."""
    written = [s for s in SECTIONS if section_written(data, s.key)]
    return {"written": len(written), "total": len(SECTIONS),
            "missing_required": [s.heading for s in REQUIRED_SECTIONS if not section_written(data, s.key)]}


_FIELD_NAMES = {"document": "the registering document (1.2)", "grammar": "the formal syntax (ABNF, 2.1)",
                "registrant": "the registrant (1.3)"}


def _unmet(ctx: Context, need: str):
    if need not in ctx._unmet:
        if need.startswith("written:"):
            key = need.split(":", 1)[1]
            unmet = None
            if ctx.stage == DRAFT and not section_written(ctx.data, key):
                what = _FIELD_NAMES.get(key) or f"section {SECTIONS_BY_KEY[key].heading}"
                unmet = (f"to do: {what} is not written yet (checked when you submit)",
                         {"section": "grammar" if key == "grammar" else key})
        else:
            unmet = NEEDS[need](ctx)
        ctx._unmet[need] = unmet
    return ctx._unmet[need]


def _not_run(check_id: str, ctx: Context) -> list[Finding] | None:
    """The "not run" finding of a check whose needs are not met, or None to run it."""
    for need in CHECK_NEEDS.get(check_id, ()):
        unmet = _unmet(ctx, need)
        if unmet:
            reason, item = unmet
            reference, own_item = CHECK_PLACES[check_id]
            message = reason[0].upper() + reason[1:] + "." if reason.startswith("to do") else f"Not run: {reason}."
            return [Finding(check_id, NOT_RUN, message, reference, {**own_item, **item})]
    return None


def _one(check_id, status, message, reference, item=None) -> list[Finding]:
    return [Finding(check_id, status, message, reference, item)]


# --- 0 What an import left over ------------------------------------------------------------

_SOURCE_LINES = re2.compile(r"\(source lines? ([0-9]+(?:–[0-9]+)?)\)")
#: What the unplaced part is called on every page.
UNPLACED_LABEL = "Unplaced text from the imported document"


def unplaced_source_lines(text: str) -> list[str]:
    """The source line ranges the importer noted in unplaced text ("12–30")."""
    return [m.group(1) for m in _SOURCE_LINES.finditer(text)]


@check("unplaced-text", reference="GFD.191 §6", item={"section": "unplaced"})
def unplaced_text(ctx: Context):
    """Imported text that fits no section is neither dropped nor silently filed under section 8."""
    text = ctx.data.unplaced.strip()
    if not text:
        return []
    lines = unplaced_source_lines(text)
    where = f" (source lines {', '.join(lines)})" if lines else ""
    return _one("unplaced-text", WARNING,
                f"“{UNPLACED_LABEL}” still holds {len(text):,} characters{where}: move what belongs to a "
                "section into it and delete the rest. The proposal cannot be submitted until it is empty.",
                "GFD.191 §6", {"section": "unplaced"})


# --- 1 Registration ------------------------------------------------------------------------


@check("snid-syntax")
def snid_syntax(ctx: Context):
    problem = snid_error(ctx.data.snid)
    if problem:
        return _one("snid-syntax", FAIL, problem, "RFC 6453 §2.4", {"section": "snid"})
    return _one("snid-syntax", PASS,
                f"'{ctx.data.snid}' is a well-formed SNID (checked its {len(ctx.data.snid)} characters).",
                "RFC 6453 §2.4", {"section": "snid"})


@check("snid-not-experimental", needs=("written:snid",), reference="GFD.191 §6 (1.1)",
       item={"section": "snid"})
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


@check("snid-unique", needs=("snid",), reference="GFD.191 §4, RFC 6453 §2.4", item={"section": "snid"})
def snid_unique(ctx: Context):
    facts, ref, item = ctx.facts, "GFD.191 §4, RFC 6453 §2.4", {"section": "snid"}
    if facts.deprecated:
        return _one("snid-unique", FAIL,
                    f"urn:ogf:{ctx.data.snid}: is deprecated; a deprecated SNID is never reassigned or "
                    "registered again, not even as a new version. Choose another SNID.", ref, item)
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
        return _one("snid-unique", PASS, "This is a new version of an SNID you are a steward of.", ref, item)
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


@check("snid-durable", needs=("snid",), reference="GFD.191 §5, §6 (1.1)", item={"section": "snid"})
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
    if ctx.stage == DRAFT:
        done = progress(ctx.data)
        if done["missing_required"]:
            # Unwritten is not failed: a draft is work in progress until it is submitted.
            return _one("required-sections", NOT_RUN,
                        f"To do: {done['written']} of {done['total']} sections written; still to write "
                        f"before you submit: {', '.join(done['missing_required'])}.", "GFD.191 §4",
                        {"section": next(s.key for s in REQUIRED_SECTIONS
                                         if s.heading == done["missing_required"][0])})
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


@check("version", needs=("snid-available",), reference="GFD.191 §6 (1.2)", item={"section": "version"})
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


@check("document", needs=("written:document",), reference="GFD.191 §4", item={"section": "document"})
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


@check("registrant", needs=("written:registrant",), reference="GFD.191 §6 (1.3)",
       item={"section": "registrant"})
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
                "too-costly", "disagreement"}


def _issue_item(issue) -> dict:
    item = {"section": "grammar"}
    if issue.line:
        item["line"] = issue.line
    if issue.column:
        item["column"] = issue.column
    if issue.rule:
        item["rule"] = issue.rule
    return item


@check("grammar-present", needs=("written:grammar",), reference="GFD.191 §6 (2.1)",
       item={"section": "grammar"})
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
    if grammar.not_checked:
        # A fault (the checker was killed or stuck) is not a verdict on the grammar.
        return [Finding("grammar-parses", WARNING, i.message, "RFC 5234", {"section": "grammar"})
                for i in grammar.issues if i.kind == NOT_CHECKED]
    problems = [i for i in grammar.issues if i.kind in _PARSE_KINDS and i.severity == "error"]
    if problems:
        return [Finding("grammar-parses", FAIL, i.message, "RFC 5234", _issue_item(i)) for i in problems]
    blocker = grammar_blocker(grammar)
    if blocker is not None:
        # The root cause (an undefined rule) is grammar-complete's finding; the comparison
        # with the reference parser needs a complete grammar.
        return _one("grammar-parses", NOT_RUN,
                    "The grammar reads as ABNF. Not run: the comparison of its validator with the "
                    f"reference parser needs every rule it uses to be defined first{_at(blocker)}.",
                    "RFC 5234", _issue_item(blocker))
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


@check("grammar-complete", needs=("grammar-parsed",), reference="RFC 5234", item={"section": "grammar"})
def grammar_complete(ctx: Context):
    grammar = ctx.grammar
    if grammar is None:
        return []
    status_of = {"undefined": FAIL, "unreachable": WARNING, "prose-unknown": WARNING,
                 "recursion": WARNING, "recursion-bounded": WARNING, "positions-not-given": WARNING}
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


@check("grammar-charset", needs=("grammar",), reference="RFC 2141 §2.2, RFC 6453 §2.4, GFD.191 §3",
       item={"section": "grammar"})
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


@check("reserved-characters", needs=("grammar",), reference="GFD.191 §3", item={"section": "grammar"})
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


@check("max-length", needs=("written:grammar", "grammar"), reference="GFD.191 §5", item={"section": "grammar"})
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


@check("percent-encoding", needs=("written:encoding",), reference="GFD.191 §5, §6 (2.3)",
       item={"section": "encoding"})
def percent_encoding(ctx: Context):
    ref, findings, item = "GFD.191 §5, §6 (2.3)", [], {"section": "encoding"}
    encoding = ctx.section("encoding")
    grammar = ctx.grammar
    usable = grammar is not None and grammar_blocker(grammar) is None
    admits = usable and "%" in grammar.analysis.reserved
    said = wording.mentions(encoding, _PERCENT_WORDS)
    if not encoding:
        findings.append(Finding("percent-encoding", FAIL,
                                "Section 2.3 Encoding is empty: it must say whether percent-escaping "
                                "(%xx) is allowed and, if so, what the escaped octets mean.", ref, item))
    elif not said and admits:
        # A fact about the grammar: it admits '%', and 2.3 does not say what escapes mean.
        findings.append(Finding("percent-encoding", FAIL,
                                "The grammar allows '%' (percent-escapes), but the text of section 2.3 "
                                "does not mention “percent”, “%” or “escaping”: say whether escapes are "
                                "allowed and what the escaped octets mean.", ref, item))
    elif not said:
        # Wording, not a fact: the section may say it in other words.
        findings.append(Finding("percent-encoding", EDITOR,
                                "The text of section 2.3 does not mention “percent”, “%” or "
                                "“escaping”; please judge whether it says if percent-escaping (%xx) is "
                                "allowed and what the escaped octets mean.", ref, item))
    # Whole-URN case-insensitivity normalises the hex digits of escapes as well.
    normalising = {"percent-hex-case-insensitive", "case-insensitive"}
    if admits and not normalising & set(ctx.data.equivalence):
        findings.append(Finding("percent-encoding", FAIL,
                                "The grammar allows percent-escapes, so the equivalence rule must "
                                "normalise them (choose 'percent-hex-case-insensitive').", ref,
                                {"section": "lexical_equivalence"}))
    if not findings:
        grammar_part = ("; the grammar's characters were not checked: the grammar does not work yet"
                        if grammar is not None and not usable else "")
        findings.append(Finding("percent-encoding", PASS,
                                f"Section 2.3 addresses percent-escaping (it mentions {wording.words_of(said)})"
                                + ("; the grammar's escapes are normalised for equivalence" if admits else "")
                                + f" (checked {len(encoding)} characters of section 2.3{grammar_part}).",
                                ref, item))
    return findings


_UNICODE_NORMALISATION = re2.compile(r"(?i)\bNFK?[CD]\b|unicode normali[sz]")
_UNICODE_VERSION = re2.compile(r"(?i)unicode\s*(version\s*)?\d")
_CASE_WORDS = re2.compile(r"case[- ]insensitiv|case normali[sz]")


@check("unicode-version", needs=("written:lexical_equivalence",), reference="GFD.191 §6 (2.4)",
       item={"section": "lexical_equivalence"})
def unicode_version(ctx: Context):
    text = ctx.section("lexical_equivalence") + "\n" + ctx.section("encoding")
    ref, item = "GFD.191 §6 (2.4)", {"section": "lexical_equivalence"}
    if not text.strip():
        return _one("unicode-version", WARNING,
                    "Sections 2.3 and 2.4 are empty: nothing to check for Unicode normalisation.",
                    ref, item)
    said = wording.mentions(text, _UNICODE_NORMALISATION)
    if said and not _UNICODE_VERSION.search(text):
        return _one("unicode-version", EDITOR,
                    f"The text mentions {wording.words_of(said)} ({wording.quoted(said)}) but names no "
                    "Unicode version; please judge: if Unicode normalisation is applied, its version must "
                    "be named, as its results change between versions (e.g. 'Unicode 6.0').", ref, item)
    return _one("unicode-version", PASS,
                f"No Unicode normalisation without a version (checked {len(text.strip())} characters "
                "of sections 2.3 and 2.4).", ref, item)


@check("equivalence", needs=("written:lexical_equivalence", "grammar"), reference="GFD.191 §6 (2.4), RFC 6453 §2.4",
       item={"section": "lexical_equivalence"})
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
    said = [m for m in wording.mentions(ctx.section("lexical_equivalence").lower(), _CASE_WORDS)
            if not m.negated]
    if said and "case-insensitive" not in steps:
        findings.append(Finding("equivalence", EDITOR,
                                f"The text of section 2.4 mentions {wording.words_of(said)} "
                                f"({wording.quoted(said)}), but the executable rule does not include "
                                "'case-insensitive'; please judge. If only part of the URN is "
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


@check("examples-present", needs=("written:examples",), reference="GFD.191 §6 (6)", item={"section": "examples"})
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


@check("examples-valid", needs=("grammar",), reference="GFD.191 §6 (6)", item={"section": "examples"})
def examples_valid(ctx: Context):
    ref, findings = "GFD.191 §6 (6)", []
    for line, urn in enumerate(ctx.data.examples.valid, start=1):
        problems = _example_problems(ctx, urn)
        if problems:
            findings.append(Finding("examples-valid", FAIL,
                                    "A valid example is not valid: " + " ".join(problems), ref,
                                    {"example": urn, "list": "valid", "example_line": line}))
    if ctx.data.examples.valid and not findings:
        checked = "against the grammar" if ctx.grammar is not None and ctx.grammar.ok else "for URN syntax"
        findings.append(Finding("examples-valid", PASS,
                                f"All {len(ctx.data.examples.valid)} valid examples check out {checked}.",
                                ref, {"section": "examples"}))
    return findings


@check("examples-invalid", needs=("grammar",), reference="GFD.191 §6 (6)", item={"section": "examples"})
def examples_invalid(ctx: Context):
    ref, findings = "GFD.191 §6 (6)", []
    for line, urn in enumerate(ctx.data.examples.invalid, start=1):
        if not _example_problems(ctx, urn):
            findings.append(Finding("examples-invalid", WARNING,
                                    "The grammar accepts this example listed as invalid. Say in "
                                    "section 6 why it is invalid (a rule the grammar cannot "
                                    "express), or tighten the grammar.", ref,
                                    {"example": urn, "list": "invalid", "example_line": line}))
    if ctx.data.examples.invalid and not findings:
        findings.append(Finding("examples-invalid", PASS,
                                f"All {len(ctx.data.examples.invalid)} invalid examples are rejected.",
                                ref, {"section": "examples"}))
    return findings


# --- 3.2 Resolution ------------------------------------------------------------------------


def _need_resolver_grammar(ctx: Context):
    """Templates that name rules of the grammar need a grammar that validates."""
    if not any(rule_placeholders(r["template"]) for r in ctx.data.resolvers):
        return None
    if ctx.grammar is None:
        return ("the resolver templates name rules of the grammar, and no formal syntax is written yet",
                {"section": "grammar"})
    return _need_grammar(ctx)


def _need_valid_examples(ctx: Context):
    if ctx.data.resolvers and not ctx.data.examples.valid:
        return ("list valid examples (section 6) so the registry can show the URLs the resolvers give",
                {"section": "examples"})
    return None


NEEDS["resolver-grammar"] = _need_resolver_grammar
NEEDS["valid-examples"] = _need_valid_examples


@check("resolvers", needs=("valid-examples", "resolver-grammar"), reference="GFD.191 §6 (3.2)",
       item={"section": "resolution"})
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
        urls = f"{len(good)} URL{'s' if len(good) != 1 else ''}"
        # The pass says only what it saw: with warnings, some pairs gave no URL.
        said = (f"Every template filled for every valid example ({urls})" if len(good) == len(rows) else
                f"{urls} made for {len(rows)} pairs of resolver and valid example (the warnings say which "
                "gave none)")
        findings.append(Finding("resolvers", PASS, f"{said}: {shown}{more}.", ref,
                                {**item, "urls": [list(row) for row in good[:100]]}))
    return findings


# --- judgements for the editor -------------------------------------------------------------

_DELEGATION = re2.compile(r"(?i)delegat|third[- ]part|sub-?namespace|sub-?delegat|assigning organi")


@check("subdelegation", needs=("written:identifier_assignment",), reference="GFD.191 §5",
       item={"section": "identifier_assignment"})
def subdelegation(ctx: Context):
    ref, item = "GFD.191 §5", {"section": "identifier_assignment"}
    text = ctx.section("identifier_assignment")
    if not text:
        return _one("subdelegation", WARNING,
                    "Section 5.1 Identifier assignment is empty: nothing to check for delegation.",
                    ref, item)
    said = wording.mentions(text, _DELEGATION)
    if not said:
        return _one("subdelegation", EDITOR,
                    "The text of section 5.1 does not mention delegation or third parties; please judge "
                    "who assigns identifiers.", ref, item)
    affirmed = [m for m in said if not m.negated]
    if not affirmed:
        return _one("subdelegation", EDITOR,
                    f"The text mentions {wording.words_of(said)} only in a negative statement "
                    f"({wording.quoted(said)}); please judge: it seems to say that assignment is not "
                    "delegated.", ref, item)
    missing = [SECTIONS_BY_KEY[k].heading for k in ("uniqueness", "immutability") if not ctx.section(k)]
    message = (f"The text mentions {wording.words_of(affirmed)} ({wording.quoted(affirmed)}); please "
               "judge: if assignment is delegated to third parties, do sections 4.2 and 5.2 explain how "
               "they keep URNs unique and immutable?")
    if missing:
        message += f" ({' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} empty.)"
    return _one("subdelegation", EDITOR, message, ref, item)


_ATTRIBUTES = re2.compile(r"(?i)date|year|domain|provider|host|org|name|location|country|owner")


@check("immutability", needs=("written:immutability",), reference="GFD.191 §5, §6 (5.2)",
       item={"section": "immutability"})
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
        # Rule names are wording too: "DOMAIN" suggests an attribute that can change, no more.
        message += (f" The grammar's rule names mention {', '.join(f'“{n}”' for n in names)}, which may "
                    "be attributes that can change; please judge what keeps the URN valid if they do.")
    return _one("immutability", EDITOR, message, ref, item)


@check("scope", needs=("written:scope",), reference="GFD.191 §5", item={"section": "scope"})
def scope(ctx: Context):
    return _one("scope", EDITOR, "Does the intended use (4.1 Scope) fall within the scope of the OGF?",
                "GFD.191 §5", {"section": "scope"})


# --- running -------------------------------------------------------------------------------

CHECK_IDS: tuple[str, ...] = tuple(check_id for check_id, _ in CHECKS)
#: The judgements the editor ticks by hand on the review page.
MANUAL_CHECKS: tuple[str, ...] = ("scope", "snid-durable", "subdelegation", "immutability")


def run_checklist(data: ProposalData, facts: RegistryFacts | None = None, *,
                  stage: str = SUBMITTED) -> list[Finding]:
    """Every check on ``data``; ``stage`` DRAFT makes unwritten sections "to do", not failures."""
    ctx = Context(data, facts or RegistryFacts(), stage)
    findings: list[Finding] = []
    for check_id, function in CHECKS:
        findings.extend(_not_run(check_id, ctx) or function(ctx))
    return findings


def summarize(findings) -> dict[str, int]:
    counts = Counter(f.status if isinstance(f, Finding) else f["status"] for f in findings)
    return {status: counts.get(status, 0) for status in FindingStatus.values}


def has_failures(findings) -> bool:
    return summarize(findings)[FAIL] > 0
