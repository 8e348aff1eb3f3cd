"""The ``edit`` tool: replace text in an existing file, one edit or several at once.

This module is the adapter: it checks arguments, reads and writes the file,
and words the observation. Where old_text is found is decided by the pure
pipeline in ``edit_matching``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.errors import ToolError
from harness.effects import DEFAULT_UNDO_BUDGET
from harness.tools._protocol import ToolInput, ToolOutput
from harness.tools.builtin._edit_matching import (
    MatchAmbiguous,
    MatchFound,
    MatchMissing,
    Stage,
    apply_replacements,
    match_edit,
)
from harness.tools.builtin._edit_report import (
    ambiguous_message,
    count_changed_lines,
    missing_message,
    snippet,
)
from harness.tools.builtin._edit_text import Replacement
from harness.tools.builtin._file_io import atomic_write, read_text, undo_journal
from harness.tools.paths import FileScope

__all__ = ["LARGE_DELETION_LINES", "EditPlan", "EditTool"]

LARGE_DELETION_LINES = 20
"""An edit deleting at least this many lines is flagged ``large_deletion`` in metadata."""

_ARGUMENTS = frozenset({"path", "old_text", "new_text", "expected_replacements", "edits"})
_EDIT_KEYS = frozenset({"old_text", "new_text", "expected_replacements"})
_STAGE_ORDER = list(Stage)

_EDIT_ITEM_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "old_text": {"type": "string"},
        "new_text": {"type": "string"},
        "expected_replacements": {"type": "integer", "minimum": 1, "default": 1},
    },
    "required": ["old_text", "new_text"],
    "additionalProperties": False,
}


@dataclass(frozen=True, slots=True)
class _EditSpec:
    old_text: str
    new_text: str
    expected: int


@dataclass(frozen=True, slots=True)
class EditPlan:
    """An edit worked out in memory but not yet written.

    Attributes:
        scope: where the tool may write (workdir, state dir).
        path: the resolved file.
        shown: the path as the model sees it.
        original: the file's text before.
        updated: the file's text after every edit.
        stages: the stage that matched, per edit.
        replacements: number of replaced spans over all edits.
        lines_added: lines added (``git diff --numstat`` style).
        lines_deleted: lines deleted.
        regions: changed spans as offsets into ``updated``.
        similarity: the weakest match's similarity (below 1.0 only for fuzzy matches).
    """

    scope: FileScope
    path: Path
    shown: str
    original: str
    updated: str
    stages: tuple[Stage, ...]
    replacements: int
    lines_added: int
    lines_deleted: int
    regions: tuple[tuple[int, int], ...]
    similarity: float = 1.0

    @property
    def stage(self) -> Stage:
        """The loosest stage any edit needed."""
        return max(self.stages, key=_STAGE_ORDER.index)

    @property
    def large_deletion(self) -> bool:
        return self.lines_deleted >= LARGE_DELETION_LINES

    @property
    def metadata(self) -> dict[str, Any]:
        return {
            "path": self.shown,
            "stage": self.stage.value,
            "stages": [stage.value for stage in self.stages],
            "edits": len(self.stages),
            "replacements": self.replacements,
            "lines_added": self.lines_added,
            "lines_deleted": self.lines_deleted,
            "large_deletion": self.large_deletion,
            "similarity": round(self.similarity, 3),
        }


_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path relative to the workdir."},
        "old_text": {"type": "string", "description": "The text to replace."},
        "new_text": {"type": "string", "description": "The text to put in its place."},
        "expected_replacements": {"type": "integer", "minimum": 1, "default": 1},
        "edits": {"type": "array", "minItems": 1, "items": _EDIT_ITEM_SCHEMA},
    },
    "required": ["path"],
    "additionalProperties": False,
}


class EditTool:
    """Replace ``old_text`` with ``new_text`` in an existing UTF-8 file.

    ``old_text`` is found by a pipeline of stages from strict to loose (see
    ``edit_matching``); the observation names the stage that matched. Several
    edits in ``edits`` apply in order to the text in memory and are written
    together or not at all. Line endings, indentation style, encoding and the
    final newline of the file are kept.

    Args:
        fuzzy_threshold: enables the last, fuzzy stage with this similarity floor
            (0 < value <= 1, e.g. 0.9); None (the default) leaves it off.
        max_bytes: larger files are refused.
        snippet_context: lines of context shown around each change.
        state_dir: the harness state dir, never read or changed (None:
            ``<workdir>/.harness``); its undo journal keeps what an edit replaces (none
            without a state dir).
        undo_budget: prior bytes one edit may keep in the journal.
    """

    name = "edit"
    description = (
        "Replace old_text with new_text in an existing UTF-8 file inside the workdir. "
        "old_text must identify one place: copy it from read output without the "
        "line-number prefixes and include enough surrounding lines to be unique. "
        "To replace several identical occurrences set expected_replacements to their "
        "count. For several changes to one file pass edits=[{old_text, new_text}, ...]: "
        "they apply in order and nothing is written unless all succeed. Small "
        "differences in line endings, trailing spaces, indentation and typographic "
        "quotes are tolerated; the result names the matching stage and shows the "
        "changed lines. Use the write tool to create files."
    )

    def __init__(
        self,
        *,
        fuzzy_threshold: float | None = None,
        max_bytes: int = 10_000_000,
        snippet_context: int = 2,
        state_dir: Path | None = None,
        undo_budget: int = DEFAULT_UNDO_BUDGET,
    ) -> None:
        if fuzzy_threshold is not None and not 0.0 < fuzzy_threshold <= 1.0:
            raise ValueError(f"fuzzy_threshold must be in (0, 1], got {fuzzy_threshold!r}")
        self.fuzzy_threshold = fuzzy_threshold
        self.max_bytes = max_bytes
        self.snippet_context = snippet_context
        self.state_dir = state_dir
        self.undo_budget = undo_budget

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON schema of the arguments (a fresh copy, so callers cannot change it)."""
        return copy.deepcopy(_PARAMETERS)

    def run(self, tool_input: ToolInput) -> ToolOutput:
        """Apply the edit(s) and write the file atomically.

        Raises:
            ToolError: see ``plan``; nothing is written then.
        """
        plan = self.plan(tool_input)
        journal = undo_journal(
            self.state_dir, tool_input.workdir, tool_input.metadata, self.name, self.undo_budget
        )
        atomic_write(plan.scope, plan.path, plan.updated.encode("utf-8"), journal=journal)
        return ToolOutput(self._observation(plan), plan.metadata)

    def plan(self, tool_input: ToolInput) -> EditPlan:
        """Everything ``run`` does except writing the file (e.g. for an approval preview).

        Raises:
            ToolError: bad arguments, an unreadable file, or an edit that does not match.
        """
        specs = _parse_edits(tool_input.arguments)
        scope = FileScope.of(tool_input.workdir, self.state_dir)
        path = scope.resolve(tool_input.arguments.get("path"))
        shown = scope.show(path)
        original = read_text(scope, path, max_bytes=self.max_bytes)
        text = original
        stages: list[Stage] = []
        regions: list[tuple[int, int]] = []
        count = added = deleted = 0
        similarity = 1.0
        for index, spec in enumerate(specs):
            label = f"edits[{index}] failed, so none of the {len(specs)} edits was applied: "
            found = self._match(text, spec, shown, label if len(specs) > 1 else "")
            for item in found.replacements:
                plus, minus = count_changed_lines(text, item)
                added, deleted = added + plus, deleted + minus
            regions = _track(regions, found.replacements)
            text = apply_replacements(text, found.replacements)
            stages.append(found.stage)
            similarity = min(similarity, found.similarity)
            count += len(found.replacements)
        if text == original:
            raise ToolError(
                f"the edit leaves {shown} unchanged (new_text only differs from the file in "
                "ways it adapts to, such as line endings); nothing was written",
                error_type="no_change",
            )
        return EditPlan(
            scope=scope,
            path=path,
            shown=shown,
            original=original,
            updated=text,
            stages=tuple(stages),
            replacements=count,
            lines_added=added,
            lines_deleted=deleted,
            regions=tuple(regions),
            similarity=similarity,
        )

    def _match(self, text: str, spec: _EditSpec, shown: str, label: str) -> MatchFound:
        outcome = match_edit(
            text,
            spec.old_text,
            spec.new_text,
            expected=spec.expected,
            fuzzy_threshold=self.fuzzy_threshold,
        )
        if isinstance(outcome, MatchAmbiguous):
            raise ToolError(label + ambiguous_message(shown, outcome), error_type="ambiguous_match")
        if isinstance(outcome, MatchMissing):
            message = missing_message(shown, outcome, text, spec.old_text, spec.new_text)
            raise ToolError(label + message, error_type="no_match")
        if outcome.stage is Stage.EXACT and _already_applied(text, spec, outcome.replacements):
            raise ToolError(
                label + f"new_text is already in {shown} where old_text matched: the edit "
                "was probably already applied, and applying it again would duplicate it. "
                "Read the file to check; if you do mean to repeat it, include more "
                "surrounding lines in old_text.",
                error_type="already_applied",
            )
        return outcome

    def _observation(self, plan: EditPlan) -> str:
        if len(plan.stages) == 1:
            head = f"{_plural(plan.replacements, 'replacement')} (stage: {plan.stage.value})"
        else:
            stages = ", ".join(stage.value for stage in plan.stages)
            head = (
                f"{len(plan.stages)} edits, {_plural(plan.replacements, 'replacement')} "
                f"(stages: {stages})"
            )
        if plan.similarity < 1.0:
            weakest = "" if plan.replacements == 1 else "weakest match "
            head = head[:-1] + f", {weakest}{plan.similarity:.0%} similar)"
        lines = f"{_plural(plan.lines_added, 'line')} added, {plan.lines_deleted} deleted"
        text = f"Edited {plan.shown}: {head}; {lines}.\n"
        text += snippet(plan.updated, plan.regions, context=self.snippet_context)
        if plan.large_deletion:
            text += f"\nNote: this edit deleted {plan.lines_deleted} lines."
        return text


def _parse_edits(args: dict[str, Any]) -> list[_EditSpec]:
    unknown = sorted(set(args) - _ARGUMENTS)
    if unknown:
        raise _invalid(
            f"unknown argument(s) {', '.join(map(repr, unknown))}; edit takes path, "
            "old_text, new_text, expected_replacements, or path and edits"
        )
    single = {key: args[key] for key in _EDIT_KEYS if key in args}
    if "edits" in args:
        if single:
            raise _invalid(
                "give either old_text/new_text or edits, not both; put every change in edits"
            )
        items = args["edits"]
        if not isinstance(items, list) or not items:
            raise _invalid("argument 'edits' must be a non-empty list of {old_text, new_text}")
        return [_parse_one(item, f"edits[{i}].") for i, item in enumerate(items)]
    return [_parse_one(single, "")]


def _parse_one(item: object, where: str) -> _EditSpec:
    if not isinstance(item, dict):
        raise _invalid(f"{where[:-1]} must be an object with old_text and new_text")
    unknown = sorted(set(item) - _EDIT_KEYS)
    if unknown:
        raise _invalid(
            f"unknown key(s) {', '.join(map(repr, unknown))} in {where[:-1]}; "
            "each edit takes old_text, new_text and expected_replacements"
        )
    for key in ("old_text", "new_text"):
        if key not in item:
            raise _invalid(f"argument '{where}{key}' is required")
        if not isinstance(item[key], str):
            raise _invalid(
                f"argument '{where}{key}' must be a string, got {type(item[key]).__name__}"
            )
    old_text, new_text = item["old_text"], item["new_text"]
    expected = item.get("expected_replacements", 1)
    if expected is None:
        expected = 1
    if isinstance(expected, bool) or not isinstance(expected, int) or expected < 1:
        raise _invalid(
            f"argument '{where}expected_replacements' must be a positive integer, got {expected!r}"
        )
    if not old_text.strip():
        raise _invalid(
            f"argument '{where}old_text' is empty or only whitespace. To create a file use "
            "the write tool; to insert text, put a neighbouring line in old_text and repeat "
            "it in new_text together with the addition"
        )
    if old_text == new_text:
        raise _invalid(
            f"'{where}old_text' and '{where}new_text' are identical, so nothing would change; "
            "put the changed text in new_text"
        )
    return _EditSpec(old_text, new_text, expected)


def _already_applied(text: str, spec: _EditSpec, found: tuple[Replacement, ...]) -> bool:
    # An edit that wraps old_text (new_text = old_text plus more) still matches
    # after it was applied; applying it again would duplicate the addition.
    for item in found:
        offset = item.text.find(spec.old_text)
        if offset < 0 or item.start < offset:
            return False
        start = item.start - offset
        if text[start : start + len(item.text)] != item.text:
            return False
    return True


def _track(regions: list[tuple[int, int]], found: tuple[Replacement, ...]) -> list[tuple[int, int]]:
    """Move earlier changed regions past ``found`` and add the regions ``found`` writes."""
    ordered = sorted(found, key=lambda r: r.start)

    def moved(position: int) -> int:
        shift = 0
        for item in ordered:
            if item.end <= position:
                shift += len(item.text) - (item.end - item.start)
            elif item.start < position:
                return item.start + shift + len(item.text)
        return position + shift

    spans = [(moved(start), moved(end)) for start, end in regions]
    shift = 0
    for item in ordered:
        start = item.start + shift
        spans.append((start, start + len(item.text)))
        shift += len(item.text) - (item.end - item.start)
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _invalid(message: str) -> ToolError:
    return ToolError(message, error_type="invalid_arguments")


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")
