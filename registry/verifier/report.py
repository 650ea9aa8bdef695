"""The verifier's report: what differs, what it noted, and the verdict of a clean run."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # what the reader should know, that is not a difference
    size: int = 0
    signed_at: str | None = None  # the checkpoint's signed time, if it has one
    verdict: str = ""  # what a clean run checked, in one sentence

    @property
    def ok(self) -> bool:
        return not self.problems

    def text(self) -> str:
        lines = [f"WARNING: {w}" for w in self.warnings] + [f"  {n}" for n in self.notes]
        lines += [f"DIFFERS: {p}" for p in self.problems]
        verdict = f"VERIFIED: {self.verdict}" if self.ok else f"NOT VERIFIED: {len(self.problems)} difference(s)."
        return "\n".join(lines + [verdict]) + "\n"
