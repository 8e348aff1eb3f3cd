"""Comparing two eval reports: the model-upgrade diff."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from harness.evals.provenance import Source
from harness.evals.report import EvalReport, EvalRow, Verdict

__all__ = ["Change", "Comparison", "compare_reports"]


@dataclass(frozen=True, slots=True)
class Change:
    """What changed for one scenario between the old and the new report."""

    scenario: str
    provider: str
    old: EvalRow | None
    new: EvalRow | None
    notes: tuple[str, ...] = ()
    shape_diff: tuple[str, ...] = ()

    @property
    def regression(self) -> bool:
        if self.new is None:
            return self.old is not None and self.old.verdict is Verdict.PASS
        if self.new.verdict in (Verdict.FAIL, Verdict.ERROR):
            return self.old is None or self.old.verdict is Verdict.PASS
        return False

    @property
    def verdict_flip(self) -> bool:
        return (self.old is not None and self.new is not None) and (
            self.old.verdict is not self.new.verdict
        )


@dataclass(frozen=True, slots=True)
class Comparison:
    changes: tuple[Change, ...] = field(default_factory=tuple)
    old_sources: tuple[Source, ...] = ()
    new_sources: tuple[Source, ...] = ()

    @property
    def regressions(self) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.regression)

    @property
    def sources_differ(self) -> bool:
        """The reports' answers come from different places (e.g. live vs simulator)."""
        return set(self.old_sources) != set(self.new_sources)

    def render_sources(self) -> list[str]:
        """Where each report's model answers came from, and a warning when that differs."""
        old, new = _names(self.old_sources), _names(self.new_sources)
        lines = [f"sources: old {old}, new {new}"]
        if self.sources_differ:
            lines.append(
                f"WARNING: the reports' model answers come from different sources ({old} vs "
                f"{new}); differences may come from the source, not the model"
            )
        return lines

    def render(self) -> str:
        lines = self.render_sources()
        if not self.changes:
            return "\n".join([*lines, "no changes between the two reports"])
        for change in self.changes:
            tag = "REGRESSION" if change.regression else "changed"
            lines.append(f"{tag}: {change.scenario} [{change.provider}]")
            lines.extend(f"  {note}" for note in change.notes)
            lines.extend(f"    {line}" for line in change.shape_diff)
        flips = sum(1 for c in self.changes if c.verdict_flip)
        lines.append(
            f"{len(self.changes)} scenario(s) changed, {flips} verdict flip(s), "
            f"{len(self.regressions)} regression(s)"
        )
        return "\n".join(lines)


def compare_reports(old: EvalReport, new: EvalReport) -> Comparison:
    """Pair rows by scenario and provider (models may differ: that is the point)."""
    old_rows = {(r.scenario, r.provider): r for r in old.rows}
    new_rows = {(r.scenario, r.provider): r for r in new.rows}
    changes = []
    for key in sorted(set(old_rows) | set(new_rows)):
        change = _change(key, old_rows.get(key), new_rows.get(key))
        if change.notes:
            changes.append(change)
    return Comparison(tuple(changes), old.sources, new.sources)


def _names(sources: tuple[Source, ...]) -> str:
    return "+".join(source.value for source in sources) or "none"


def _change(key: tuple[str, str], old: EvalRow | None, new: EvalRow | None) -> Change:
    scenario, provider = key
    if old is None or new is None:
        note = "new scenario" if old is None else "scenario missing from the new report"
        return Change(scenario, provider, old, new, (note,))
    notes: list[str] = []
    if old.model != new.model:
        notes.append(f"model: {old.model} -> {new.model}")
    if old.source is not new.source:
        notes.append(f"source: {old.source.value} -> {new.source.value}")
    if old.verdict is not new.verdict:
        detail = f" ({new.message})" if new.message else ""
        notes.append(f"verdict: {old.verdict.value} -> {new.verdict.value}{detail}")
    shape_diff: tuple[str, ...] = ()
    if (old.shape or "") != (new.shape or ""):
        notes.append("trace shape changed:")
        shape_diff = tuple(
            line.rstrip("\n")
            for line in difflib.unified_diff(
                (old.shape or "").splitlines(),
                (new.shape or "").splitlines(),
                "old",
                "new",
                lineterm="",
                n=1,
            )
        )
    for label, before, after in (
        ("steps", old.steps, new.steps),
        ("llm calls", old.llm_calls, new.llm_calls),
        ("tool calls", old.tool_calls, new.tool_calls),
        ("tokens", old.tokens, new.tokens),
    ):
        if before != after:
            notes.append(f"{label}: {before} -> {after} ({after - before:+d})")
    if old.duration_s and abs(new.duration_s - old.duration_s) > max(0.5, old.duration_s * 0.5):
        notes.append(f"duration: {old.duration_s:.2f}s -> {new.duration_s:.2f}s")
    if len(notes) == 1 and notes[0].startswith("model:"):
        notes = []  # only the model changed and nothing it did: not worth a line
    return Change(scenario, provider, old, new, tuple(notes), shape_diff)
