"""The checklist's machinery: findings, the registry's facts, ``check`` and what checks need.

A check declares its needs (``needs=``); ``run_checklist`` reports an unmet need as one "not run"
finding instead of running the check, so one root cause gives one failing finding."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..enums import FindingStatus
from ..gfd191 import REQUIRED_SECTIONS, SECTIONS, SECTIONS_BY_KEY, section_of
from ..grammar import grammar_compile, is_valid_snid
from ..grammar.compiler import NOT_CHECKED
from ..grammar.parse import Issue
from ..interchange import ProposalData

PASS, WARNING, FAIL, EDITOR, NOT_RUN = (
    FindingStatus.PASS.value,
    FindingStatus.WARNING.value,
    FindingStatus.FAIL.value,
    FindingStatus.EDITOR.value,
    FindingStatus.NOT_RUN.value,
)
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
        return {
            "id": self.id,
            "status": self.status,
            "message": self.message,
            "reference": self.reference,
            "item": self.item,
        }


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


def _jobs_cpu_seconds() -> float:
    from .. import sandbox

    return sandbox.jobs_cpu_seconds()


@dataclass
class Context:
    data: ProposalData
    facts: RegistryFacts
    stage: str = SUBMITTED
    _grammar: object = field(default=None, init=False, repr=False)
    _unmet: dict = field(default_factory=dict, init=False, repr=False)
    #: CPU seconds this thread's bounded jobs had used when the run started: the checks' jobs
    #: share one job budget (``job_seconds_left``).
    _jobs_at_start: float = field(default_factory=lambda: _jobs_cpu_seconds(), init=False, repr=False)

    def job_seconds_left(self) -> float:
        """CPU seconds of the job budget the checks of this run have not used yet."""
        from .. import sandbox

        return sandbox.budget()[0] - (sandbox.jobs_cpu_seconds() - self._jobs_at_start)

    def section(self, key: str) -> str:
        return (self.data.sections.get(key) or "").strip()

    @property
    def grammar(self):
        """The compiled grammar (cached by content), or None if there is none."""
        if self._grammar is None and self.data.grammar.abnf.strip():
            self._grammar = grammar_compile(
                self.data.grammar.abnf, self.data.grammar.rule, examples=example_subjects(self.data)
            )
        return self._grammar


def example_subjects(data: ProposalData) -> tuple[str, ...]:
    """The examples a grammar is cross-checked on, each once (a repeated URN proves nothing new)."""
    return tuple(dict.fromkeys([*data.examples.valid, *data.examples.invalid]))


CHECKS: list[tuple[str, Callable[[Context], list[Finding]]]] = []
#: What each check needs before it can say anything (names of ``NEEDS``), and the clause and
#: field its "not run" finding points at.
CHECK_NEEDS: dict[str, tuple[str, ...]] = {}
CHECK_PLACES: dict[str, tuple[str, dict]] = {}


#: What people call each check (its id is for machines: the API, data-check, the history).
CHECK_TITLES: dict[str, str] = {}


def check(check_id: str, *, title: str, needs: tuple[str, ...] = (), reference: str = "", item: dict | None = None):
    """Register a check; ``needs`` names what must hold first (``NEEDS``, or ``written:<key>``)."""

    def register(function):
        CHECKS.append((check_id, function))
        CHECK_TITLES[check_id] = title
        CHECK_NEEDS[check_id] = needs
        CHECK_PLACES[check_id] = (reference, item or {})
        return function

    return register


# --- what checks need ----------------------------------------------------------------------

#: Grammar problems that leave nothing sound to check examples, bounds or characters against.
_BLOCKING_KINDS = {
    "syntax",
    "redefinition",
    "empty",
    "top-rule",
    "too-complex",
    "too-large",
    "too-costly",
    "disagreement",
    "undefined",
}


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
#: Messages point at other findings by what they say, never by a check's id: people read them.
NOT_CHECKED_REASON = "the grammar could not be checked this time (the warning on the grammar says why); check again"

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
        return NOT_CHECKED_REASON, {"section": "grammar", UNCHECKED: True}
    elif issue.kind in ("too-complex", "too-large", "too-costly"):
        why = "the grammar must be built into a validator first (the failure on the grammar says why)"
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
    return "the SNID must be well formed first (the failure on the SNID says why)", {"section": "snid"}


def _need_snid_available(ctx: Context):
    """The version follows the SNID's history only if the SNID is free or the applicant's."""
    blocked = _need_snid(ctx)
    if blocked:
        return blocked
    facts = ctx.facts
    if facts.registered and facts.submitter_known and not facts.own_namespace:
        return "the SNID is registered to someone else: choose another SNID first", {"section": "snid"}
    if facts.reserved and not facts.reserved_for_applicant:
        return "the SNID is reserved for someone else: choose another SNID first", {"section": "snid"}
    return None


def _need_grammar_parsed(ctx: Context):
    """Rules must be read before they can be judged complete: a rule with a syntax error is
    missing from what was read, and the rules using it would seem to refer to nothing."""
    grammar = ctx.grammar
    if grammar is not None and grammar.not_checked:
        return NOT_CHECKED_REASON, {"section": "grammar", UNCHECKED: True}
    unread = {"syntax", "empty"} | ({"too-large"} if grammar is not None and not grammar.parsed.rules else set())
    issue = (
        next((i for i in grammar.issues if i.severity == "error" and i.kind in unread), None)
        if grammar is not None
        else None
    )
    if issue is None:
        return None
    item = {
        "section": "grammar",
        **{k: getattr(issue, k) for k in ("line", "column", "rule") if getattr(issue, k, None)},
    }
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
    return {
        "written": len(written),
        "total": len(SECTIONS),
        "missing_required": [s.heading for s in REQUIRED_SECTIONS if not section_written(data, s.key)],
    }


#: What a "to do" finding calls a field not written yet; {} is its section's number in the template.
_FIELD_NAMES = {
    "document": "the registering document ({})",
    "grammar": "the formal syntax (ABNF, {})",
    "registrant": "the registrant ({})",
}


def _unwritten(key: str) -> str:
    if key in _FIELD_NAMES:
        return _FIELD_NAMES[key].format(section_of(key).number)
    return f"section {SECTIONS_BY_KEY[key].heading}"


def _unmet(ctx: Context, need: str):
    if need not in ctx._unmet:
        if need.startswith("written:"):
            key = need.split(":", 1)[1]
            unmet = None
            if ctx.stage == DRAFT and not section_written(ctx.data, key):
                what = _unwritten(key)
                unmet = (
                    f"to do: {what} is not written yet (checked when you submit)",
                    {"section": "grammar" if key == "grammar" else key},
                )
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


# --- running -------------------------------------------------------------------------------

#: The judgements the editor ticks by hand on the review page.
MANUAL_CHECKS: tuple[str, ...] = ("scope", "snid-durable", "subdelegation", "immutability")


def run_checklist(data: ProposalData, facts: RegistryFacts | None = None, *, stage: str = SUBMITTED) -> list[Finding]:
    """Every check on ``data``; ``stage`` DRAFT makes unwritten sections "to do", not failures."""
    ctx = Context(data, facts or RegistryFacts(), stage)
    findings: list[Finding] = []
    for check_id, function in CHECKS:
        findings.extend(_not_run(check_id, ctx) or function(ctx))
    return findings


#: The checks whose verdict depends on the registry beside the proposal (``RegistryFacts``: the SNID
#: registered, reserved, deprecated, whose steward the applicant is), not on the text alone.
REGISTRY_CHECKS: tuple[str, ...] = ("snid-unique", "version")


def findings_followed(stored: list[dict], data: ProposalData, facts: RegistryFacts, *, stage: str) -> list[dict]:
    """``stored`` (a run's findings, as dicts) with the ``REGISTRY_CHECKS`` run again against ``facts``,
    each in its place; every other finding as it was. What the registry's change can change, and only
    that: cheap (no grammar is compiled, no Markdown rendered) and never a fault."""
    ctx = Context(data, facts, stage)
    fresh = {
        check_id: [f.as_dict() for f in (_not_run(check_id, ctx) or function(ctx))]
        for check_id, function in CHECKS
        if check_id in REGISTRY_CHECKS
    }
    out: list[dict] = []
    for finding in stored:
        check_id = finding["id"]
        if check_id not in fresh:
            out.append(finding)
        elif fresh[check_id] is not None:
            out.extend(fresh[check_id])
            fresh[check_id] = None  # placed where the check's first finding was
    return out + [f for found in fresh.values() if found for f in found]


def one_line_per_cause(findings: list[Finding]) -> list[Finding]:
    """The findings as a page lists them: the "not run" findings that wait for the same thing (the
    same message: "Not run: the grammar must parse first (line 5, column 15).") become one, naming
    the checks that wait for it, in the place of the first; everything else as it is.

    Each check keeps its own finding for machines (the API, ``check_proposal --json``, the counts);
    a person reads one cause once. The merged finding's ``id`` holds the checks' ids, space-separated
    (a page's ``data-check`` token list)."""
    waiting: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.status == NOT_RUN:
            waiting.setdefault(finding.message, []).append(finding)
    out = []
    for finding in findings:
        group = waiting.get(finding.message) if finding.status == NOT_RUN else None
        if group is None or len(group) == 1:
            out.append(finding)
        elif group[0] is finding:
            titles = [CHECK_TITLES.get(f.id, f.id) for f in group]
            out.append(
                Finding(
                    " ".join(f.id for f in group),
                    NOT_RUN,
                    f"{finding.message} {len(group)} checks wait for it: {', '.join(titles)}.",
                    finding.reference,
                    finding.item,
                )
            )
    return out


def summarize(findings) -> dict[str, int]:
    counts = Counter(f.status if isinstance(f, Finding) else f["status"] for f in findings)
    return {status: counts.get(status, 0) for status in FindingStatus.values}


def has_failures(findings) -> bool:
    return summarize(findings)[FAIL] > 0


#: The mark (in a finding's ``item``) of a finding about a check that could not be done now: its job
#: was stopped by the machine (killed, starved past the wall-clock ceiling), not by anything in the text.
UNCHECKED = "unchecked"


def could_not_check(finding) -> bool:
    """Whether ``finding`` (a Finding or its stored dict) says "could not be checked now — try again":
    neither a pass nor a failure. Nothing may be decided on it; a fresh check answers it."""
    item = finding.item if isinstance(finding, Finding) else finding.get("item")
    return bool(item and item.get(UNCHECKED))


def unchecked(findings) -> list:
    """The findings of ``findings`` that could not be checked now (see ``could_not_check``)."""
    return [f for f in findings if could_not_check(f)]
