"""All writes of resolution: installing a version's resolvers, replacing them, checks.

Changing a resolver is not a new version: the syntax and meaning of URNs stay as
registered, only where they resolve changes. So ``resolvers_replace`` checks the new
resolvers exactly as a registration's are checked (``resolvers_validate``), and writes
the new rows, the event in the SNID's history and the transparency-log leaf in one
transaction. Every change moves the namespace's ``updated_at``, which is the registry
stamp, so lookups, resolutions and their ETags see it within a second everywhere.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from .. import rules, sandbox
from ..enums import EventKind
from ..grammar import grammar_compile
from ..interchange import resolvers_load
from ..logcore.kinds import SNID_RESOLVERS
from ..lookup import registry_invalidate
from ..models import Namespace, ProposalEvent
from ..resolving.cost import ResolutionCost
from ..resolving.lines import resolvers_from_lines
from ..resolving.review import Report, resolvers_review
from ..resolving.templates import rule_placeholders
from ..transparency.log import log_append
from .models import Resolver

REASON_MAX = 2000


class ResolutionError(Exception):
    def __init__(self, errors: list[str]):
        super().__init__("; ".join(errors))
        self.errors = errors


class ResolutionFault(Exception):
    """The resolvers could not be checked this time (the bounded worker stopped): no verdict."""


def _checked(proposal, raw, *, trusted_only: bool = True) -> tuple[list[dict], Report | None, list[str]]:
    """(resolvers, their review, errors) for ``raw`` under ``proposal``'s grammar: the templates'
    shape and rule names, then — in the bounded worker — one capture program for the set, what
    resolving one URN costs, and every template filled for every valid example. A set over the
    resolution budget is an error unless ``trusted_only`` is False (an approval over the failing
    check, with the editor's written reason)."""
    resolvers, errors = resolvers_load(raw, proposal.grammar_abnf)
    if errors or not resolvers:
        return resolvers, None, errors
    compiled = None
    if proposal.grammar_abnf.strip():
        compiled = grammar_compile(
            proposal.grammar_abnf,
            proposal.grammar_rule,
            examples=tuple(dict.fromkeys([*proposal.examples_valid, *proposal.examples_invalid])),
        )
    report = resolvers_review(compiled, resolvers, proposal.examples_valid, proposal.equivalence, snid=proposal.snid)
    if report.not_run:
        if report.fault:
            raise ResolutionError([report.not_run])  # a stopped worker is no verdict: try again
        errors.append(report.not_run)
        return resolvers, report, errors
    for index, problem in report.errors:
        errors.append(f"resolver {index + 1} ({resolvers[index]['name']}): {problem}")
    cost = ResolutionCost.from_dict(report.cost)
    if trusted_only and cost is not None and not cost.cheap:
        errors.append(cost.message)
    for name, example, _url, problem in report.rows:
        if problem and example:
            errors.append(f"resolver {name!r}, example {example}: {problem}")
    return resolvers, report, errors


def _coerced(data) -> list:
    """Resolvers as given by a caller: a list of resolver objects (the interchange format), the
    lines of the resolvers field (``resolution.lines``), or a form's data holding either."""
    if isinstance(data, dict):
        data = data.get("resolvers", [])
    if isinstance(data, str):
        data = resolvers_from_lines(data)
    return data


def resolvers_validate(snid: str, data) -> list[str]:
    """Why ``data`` (resolver objects, lines, or a form's data: ``_coerced``) cannot become
    ``snid``'s resolvers; [] if it can. Checks as at registration, against the current version."""
    data = _coerced(data)
    namespace = Namespace.objects.by_snid(snid).select_related("current").first()
    if namespace is None or namespace.current is None:
        return [f"urn:ogf:{snid[:40]}: is not a registered SNID."]
    try:
        return _checked(namespace.current, data)[2]
    except ResolutionError as exc:  # the check's worker stopped: say so (try again), never "fine"
        return exc.errors


def _install(namespace, proposal, resolvers, report: Report | None, *, how: str, reason: str, actor) -> list[Resolver]:
    now = timezone.now()
    before = [r.as_data() for r in Resolver.objects.current().filter(namespace=namespace)]
    Resolver.objects.current().filter(namespace=namespace).update(retired_at=now)
    program = report.program if report is not None else None
    # One program and one measured cost for the whole set, kept on each of its rows: resolving a
    # URN captures every rule the set names in one match, and only a set measured within the
    # budget is resolved in a web thread (resolve.py).
    cost = report.cost if report is not None else None
    rows = [
        Resolver.objects.create(
            namespace=namespace,
            name=r["name"],
            template=r["template"],
            returns=r["returns"],
            media_types=r["media_types"],
            primary=r["primary"],
            order=index,
            program=program if rule_placeholders(r["template"]) else None,
            cost=cost,
        )
        for index, r in enumerate(resolvers)
    ]
    Namespace.objects.filter(pk=namespace.pk).update(updated_at=now)
    after = [r.as_data() for r in rows]
    if how == "changed":
        ProposalEvent.objects.create(
            proposal=proposal,
            actor=actor if actor and actor.is_authenticated else None,
            kind=EventKind.RESOLVERS,
            action="resolvers",
            comment=reason,
            data={"before": before, "after": after},
        )
    log_append(
        SNID_RESOLVERS.name,
        {"snid": namespace.snid, "version": proposal.version, "how": how, "reason": reason, "resolvers": after},
    )
    transaction.on_commit(registry_invalidate)
    return rows


def resolvers_install_approved(proposal, actor) -> list[Resolver]:
    """On approval (inside its transaction): the version's resolvers become the SNID's.

    The approval has passed the checklist, or an editor overrode its failures with a written
    reason: a set measured over the resolution budget is then installed with its figure (and
    resolved only in a bounded job), and a resolver whose template cannot be filled at all is
    left out rather than stored (the log leaf says which and why)."""
    if not proposal.resolvers and not Resolver.objects.current().filter(namespace_id=proposal.namespace_id).exists():
        return []
    try:
        resolvers, report, errors = _checked(proposal, proposal.resolvers, trusted_only=False)
    except ResolutionError as exc:  # the check's worker stopped: no verdict to approve on
        raise ResolutionFault(exc.errors[0]) from None
    reason = ""
    if errors:
        good, left_out = [], []
        for resolver in resolvers:
            problems = _checked(proposal, [resolver], trusted_only=False)[2]
            if problems:
                left_out.append(f"{resolver.get('name', '')!s:.60} ({problems[0][:200]})")
            else:
                good.append(resolver)
        resolvers, report, _ = _checked(proposal, good, trusted_only=False)
        reason = ("Left out, as the approval overrode their failing check: " + "; ".join(left_out) + ".")[:REASON_MAX]
    return _install(proposal.namespace, proposal, resolvers, report, how="approved", reason=reason, actor=actor)


@transaction.atomic
def resolvers_replace(snid: str, resolvers, by, reason: str) -> list[Resolver]:
    """Replace ``snid``'s resolvers (an editor's act, or an approved change request).

    The editor must not be a steward of the SNID: a steward asks (a change request) and
    another editor decides, as for every administrative change."""
    if not rules.is_editor(by):
        raise ResolutionError(["Only GFD editors can change a registered SNID's resolvers."])
    reason = (reason or "").strip()
    if not reason:
        raise ResolutionError(["Say why the resolvers change: the reason is published in the SNID's history."])
    if len(reason) > REASON_MAX:
        raise ResolutionError([f"The reason is {len(reason):,} characters long; the limit is {REASON_MAX:,}."])
    namespace = Namespace.objects.select_for_update().by_snid(snid).first()
    if namespace is None or namespace.current_id is None:
        raise ResolutionError([f"urn:ogf:{snid[:40]}: is not a registered SNID."])
    if not rules.can_decide_for_snid(by, namespace):
        raise ResolutionError(
            [
                f"You are a steward of urn:ogf:{namespace.snid}:, so another editor must change "
                "its resolvers: ask for the change on its stewardship page."
            ]
        )
    proposal = namespace.current
    checked, report, errors = _checked(proposal, _coerced(resolvers))
    if errors:
        raise ResolutionError(errors)
    return _install(namespace, proposal, checked, report, how="changed", reason=reason, actor=by)


@transaction.atomic
def resolvers_measure(namespace, *, touch: bool = True) -> ResolutionCost | None:
    """Measure again what resolving one URN of ``namespace`` costs with its current resolvers
    (``manage.py measure_validators``: after an engine upgrade, or rows from before the
    measurement) and keep the program and the figure on its rows. Not a change of the
    resolvers: no event, no log leaf; the stamp moves so every process reloads them."""
    rows = list(Resolver.objects.select_for_update().current().filter(namespace=namespace))
    proposal = namespace.current
    if not rows or proposal is None:
        return None
    _resolvers, report, _errors = _checked(proposal, [r.as_data() for r in rows], trusted_only=False)
    if report is None or report.not_run:
        # Not measured within the job's CPU time: more than that (a finite figure: JSON has no infinity).
        cost = ResolutionCost(
            sandbox.budget()[0] * 1000, 0.0, report.not_run if report else "not measured", 0, 0, False, len(rows)
        )
        figures, program = cost.as_dict(), None
    else:
        figures, program, cost = report.cost, report.program, ResolutionCost.from_dict(report.cost)
    for row in rows:
        row.cost = figures
        row.program = program if rule_placeholders(row.template) else None
    Resolver.objects.bulk_update(rows, ["cost", "program"])
    if touch:
        Namespace.objects.filter(pk=namespace.pk).update(updated_at=timezone.now())
        transaction.on_commit(registry_invalidate)
    return cost
