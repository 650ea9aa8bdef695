"""Checks of the examples (6) against the grammar, and of the resolvers (3.2) against the examples."""

from __future__ import annotations

from ..grammar import UrnSyntaxError, parse_urn
from ..resolving.cost import ResolutionCost
from ..resolving.review import resolvers_review
from ..resolving.templates import resolvers_errors, rule_placeholders
from .core import FAIL, NEEDS, NOT_RUN, PASS, WARNING, Context, Finding, _need_grammar, _one, check

# --- 6 Examples ----------------------------------------------------------------------------


@check(
    "examples-present",
    title="Examples given",
    needs=("written:examples",),
    reference="GFD.191 §6 (6)",
    item={"section": "examples"},
)
def examples_present(ctx: Context):
    if not ctx.data.examples.valid:
        return _one(
            "examples-present",
            WARNING,
            "List a few valid example URNs so readers and the registry can check the grammar against them.",
            "GFD.191 §6 (6)",
            {"section": "examples"},
        )
    return _one(
        "examples-present",
        PASS,
        f"{len(ctx.data.examples.valid)} valid example(s) given.",
        "GFD.191 §6 (6)",
        {"section": "examples"},
    )


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


@check(
    "examples-valid",
    title="Valid examples accepted",
    needs=("grammar",),
    reference="GFD.191 §6 (6)",
    item={"section": "examples"},
)
def examples_valid(ctx: Context):
    ref, findings = "GFD.191 §6 (6)", []
    for line, urn in enumerate(ctx.data.examples.valid, start=1):
        problems = _example_problems(ctx, urn)
        if problems:
            findings.append(
                Finding(
                    "examples-valid",
                    FAIL,
                    "A valid example is not valid: " + " ".join(problems),
                    ref,
                    {"example": urn, "list": "valid", "example_line": line},
                )
            )
    if ctx.data.examples.valid and not findings:
        checked = "against the grammar" if ctx.grammar is not None and ctx.grammar.ok else "for URN syntax"
        findings.append(
            Finding(
                "examples-valid",
                PASS,
                f"All {len(ctx.data.examples.valid)} valid examples check out {checked}.",
                ref,
                {"section": "examples"},
            )
        )
    return findings


@check(
    "examples-invalid",
    title="Invalid examples rejected",
    needs=("grammar",),
    reference="GFD.191 §6 (6)",
    item={"section": "examples"},
)
def examples_invalid(ctx: Context):
    ref, findings = "GFD.191 §6 (6)", []
    for line, urn in enumerate(ctx.data.examples.invalid, start=1):
        if not _example_problems(ctx, urn):
            findings.append(
                Finding(
                    "examples-invalid",
                    WARNING,
                    "The grammar accepts this example listed as invalid. Say in "
                    "section 6 why it is invalid (a rule the grammar cannot "
                    "express), or tighten the grammar.",
                    ref,
                    {"example": urn, "list": "invalid", "example_line": line},
                )
            )
    if ctx.data.examples.invalid and not findings:
        findings.append(
            Finding(
                "examples-invalid",
                PASS,
                f"All {len(ctx.data.examples.invalid)} invalid examples are rejected.",
                ref,
                {"section": "examples"},
            )
        )
    return findings


# --- 3.2 Resolution ------------------------------------------------------------------------


def _need_resolver_grammar(ctx: Context):
    """Templates that name rules of the grammar need a grammar that validates."""
    if not any(rule_placeholders(r["template"]) for r in ctx.data.resolvers):
        return None
    if ctx.grammar is None:
        return (
            "the resolver templates name rules of the grammar, and no formal syntax is written yet",
            {"section": "grammar"},
        )
    return _need_grammar(ctx)


def _need_valid_examples(ctx: Context):
    if ctx.data.resolvers and not ctx.data.examples.valid:
        return (
            "list valid examples (section 6) so the registry can show the URLs the resolvers give",
            {"section": "examples"},
        )
    return None


NEEDS["resolver-grammar"] = _need_resolver_grammar
NEEDS["valid-examples"] = _need_valid_examples


@check(
    "resolvers",
    title="Resolvers give URLs for the examples",
    needs=("valid-examples", "resolver-grammar"),
    reference="GFD.191 §6 (3.2)",
    item={"section": "resolution"},
)
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
    # Program, cost and preview in one bounded job, within what is left of the checks' job budget.
    report = resolvers_review(
        grammar,
        declared,
        ctx.data.examples.valid,
        ctx.data.equivalence,
        snid=ctx.data.snid or "x",
        seconds=ctx.job_seconds_left(),
    )
    if report.not_run:
        if report.fault:
            return findings + [Finding("resolvers", NOT_RUN, f"Not run: {report.not_run}", ref, item)]
        return findings + [Finding("resolvers", FAIL, report.not_run, ref, item)]
    cost = ResolutionCost.from_dict(report.cost)
    if cost is not None and not cost.cheap:
        findings.append(Finding("resolvers", FAIL, cost.message, ref, {**item, "cost": report.cost}))
    rows = report.rows
    for name, example, _url, problem in rows:
        if problem:
            findings.append(
                Finding(
                    "resolvers",
                    FAIL if not example else WARNING,
                    f"Resolver {name!r}{' for ' + example if example else ''}: {problem}",
                    ref,
                    {**item, **({"example": example, "list": "valid"} if example else {})},
                )
            )
    if report.unpreviewed:
        findings.append(
            Finding(
                "resolvers",
                NOT_RUN,
                (
                    f"Not run for {report.unpreviewed} pair(s) of resolver and valid example: filling the templates "
                    "for the examples above used the time a check may take (the registry's job budget); shorten the "
                    "examples or make the resolvers cheaper to see them."
                ),
                ref,
                item,
            )
        )
    good = [(name, example, url) for name, example, url, problem in rows if not problem]
    if good and not any(f.status == FAIL for f in findings):
        shown = "; ".join(f"{name}: {example} → {url}" for name, example, url in good[:20])
        more = f" (and {len(good) - 20} more)" if len(good) > 20 else ""
        urls = f"{len(good)} URL{'s' if len(good) != 1 else ''}"
        # The pass says only what it saw: with warnings, some pairs gave no URL.
        said = (
            f"Every template filled for every valid example ({urls})"
            if len(good) == len(rows) and not report.unpreviewed
            else f"{urls} made for {len(rows) + report.unpreviewed} pairs of resolver and valid example (the "
            "warnings say which gave none)"
        )
        measured = f" {cost.summary}" if cost is not None else ""
        findings.append(
            Finding(
                "resolvers",
                PASS,
                f"{said}: {shown}{more}.{measured}",
                ref,
                {**item, "urls": [list(row) for row in good[:100]], **({"cost": report.cost} if report.cost else {})},
            )
        )
    return findings
