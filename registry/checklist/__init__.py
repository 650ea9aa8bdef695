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

The package: ``core`` holds the machinery (findings, ``check``, what checks need,
``run_checklist``); the checks live by the part of the template they examine —
``registration`` (1), ``syntax`` (2), ``equivalence`` (2.3, 2.4), ``examples`` (6, and the resolvers of 3.2
checked against them) and ``judgements`` (what only the editor can decide).
"""

from __future__ import annotations

from .core import (
    CHECK_NEEDS,
    CHECK_PLACES,
    CHECK_TITLES,
    CHECKS,
    DRAFT,
    EDITOR,
    FAIL,
    MANUAL_CHECKS,
    NOT_RUN,
    PASS,
    REGISTRY_CHECKS,
    SUBMITTED,
    WARNING,
    Context,
    Finding,
    RegistryFacts,
    check,
    could_not_check,
    example_subjects,
    findings_followed,
    grammar_blocker,
    has_failures,
    one_line_per_cause,
    progress,
    run_checklist,
    section_written,
    summarize,
    unchecked,
)

# The checks register themselves as they are imported, in this order: the order of the report.
from . import registration, syntax, equivalence, examples, judgements  # noqa: E402,F401,I001  isort: skip
from ..gfd191 import UNPLACED_LABEL  # noqa: E402
from .registration import unplaced_source_lines  # noqa: E402

CHECK_IDS: tuple[str, ...] = tuple(check_id for check_id, _ in CHECKS)

__all__ = [
    "CHECK_IDS",
    "CHECK_NEEDS",
    "CHECK_PLACES",
    "CHECK_TITLES",
    "CHECKS",
    "REGISTRY_CHECKS",
    "DRAFT",
    "EDITOR",
    "FAIL",
    "MANUAL_CHECKS",
    "NOT_RUN",
    "PASS",
    "SUBMITTED",
    "UNPLACED_LABEL",
    "WARNING",
    "Context",
    "Finding",
    "RegistryFacts",
    "check",
    "findings_followed",
    "could_not_check",
    "example_subjects",
    "grammar_blocker",
    "has_failures",
    "one_line_per_cause",
    "progress",
    "run_checklist",
    "section_written",
    "summarize",
    "unchecked",
    "unplaced_source_lines",
]
