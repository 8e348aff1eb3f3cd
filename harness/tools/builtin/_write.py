"""The ``write`` tool: create, overwrite or append to a file inside the workdir."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from harness.core.errors import ToolError
from harness.effects import DEFAULT_UNDO_BUDGET
from harness.tools._protocol import ToolInput, ToolOutput
from harness.tools.builtin._file_io import atomic_write, read_text, undo_journal
from harness.tools.paths import FileScope

__all__ = ["WriteTool"]

_MODES = ("create", "overwrite", "append")
_ARGUMENTS = frozenset({"path", "content", "mode"})

_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string", "description": "File path relative to the workdir."},
        "content": {"type": "string", "description": "The exact text to write."},
        "mode": {"type": "string", "enum": list(_MODES), "default": "create"},
    },
    "required": ["path", "content"],
    "additionalProperties": False,
}


class WriteTool:
    """Write a whole UTF-8 text file: ``create`` (the default), ``overwrite`` or ``append``.

    Every write goes through a temp file in the same folder and a rename, so a
    crash never leaves half a file; an existing file keeps its permission bits
    and (where harness may) its owner and group. Missing parent folders inside
    the workdir are created. Only regular files are written, never inside the
    state dir, and never through a symlink swapped in mid-call (``safe_open``).

    Args:
        max_bytes: ``content`` longer than this (UTF-8 bytes) is refused.
        state_dir: the harness state dir, never written (None: ``<workdir>/.harness``);
            its undo journal keeps what a write replaces (``harness undo``); none without it.
        undo_budget: prior bytes one write may keep in the journal.
    """

    name = "write"
    description = (
        "Write a UTF-8 text file inside the workdir. mode='create' (default) makes a new "
        "file and fails if it exists; mode='overwrite' replaces the whole file; "
        "mode='append' adds content at the end. Parent folders are created. "
        "To change part of an existing file use the edit tool instead."
    )

    def __init__(
        self,
        *,
        max_bytes: int = 10_000_000,
        state_dir: Path | None = None,
        undo_budget: int = DEFAULT_UNDO_BUDGET,
    ) -> None:
        self.max_bytes = max_bytes
        self.state_dir = state_dir
        self.undo_budget = undo_budget

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON schema of the arguments (a fresh copy, so callers cannot change it)."""
        return copy.deepcopy(_PARAMETERS)

    def run(self, tool_input: ToolInput) -> ToolOutput:
        """Write the file and report bytes and lines written.

        Raises:
            ToolError: bad arguments, a path outside the workdir, a folder, an
                existing file in ``create`` mode, or a failed write.
        """
        args = tool_input.arguments
        content, mode = self._check_arguments(args)
        scope = FileScope.of(tool_input.workdir, self.state_dir)
        path = scope.resolve(args.get("path"))
        shown = scope.show(path)
        if str(args["path"]).endswith("/"):
            raise ToolError(
                f"path {args['path']!r} ends with '/', so it names a folder; "
                "give the path of a file",
                error_type="is_directory",
            )
        data = content.encode("utf-8")
        written = len(data)
        note = ""
        if mode == "append":
            before = _existing_text(scope, path)
            if before and not before.endswith("\n"):
                note = (
                    "\nNote: the file did not end with a newline, so the content was joined "
                    "onto its last line."
                )
            data = (before or "").encode("utf-8") + data
        journal = undo_journal(
            self.state_dir, tool_input.workdir, tool_input.metadata, self.name, self.undo_budget
        )
        existed = atomic_write(
            scope, path, data, exclusive=mode == "create", make_parents=True, journal=journal
        )
        lines = _count_lines(content)
        outcome = _outcome(mode, existed)
        text = f"Wrote {written} byte{_s(written)} ({lines} line{_s(lines)}) to {shown} ({outcome})"
        metadata = {
            "path": shown,
            "mode": mode,
            "outcome": outcome,
            "bytes_written": written,
            "lines_written": lines,
            "file_bytes": len(data),
        }
        return ToolOutput(text + note, metadata)

    def _check_arguments(self, args: dict[str, Any]) -> tuple[str, str]:
        unknown = sorted(set(args) - _ARGUMENTS)
        if unknown:
            raise ToolError(
                f"unknown argument(s) {', '.join(map(repr, unknown))}; "
                "write takes path, content and mode",
                error_type="invalid_arguments",
            )
        if "content" not in args:
            raise ToolError(
                "argument 'content' is required: the text to write (use \"\" for an empty file)",
                error_type="invalid_arguments",
            )
        content = args["content"]
        if not isinstance(content, str):
            raise ToolError(
                f"argument 'content' must be a string, got {type(content).__name__}; "
                "pass the file text as one string",
                error_type="invalid_arguments",
            )
        mode = args.get("mode", "create")
        if mode is None:
            mode = "create"
        if not isinstance(mode, str) or mode not in _MODES:
            raise ToolError(
                f"argument 'mode' must be one of 'create', 'overwrite', 'append'; got {mode!r}",
                error_type="invalid_arguments",
            )
        size = len(content.encode("utf-8", errors="surrogatepass"))
        if size > self.max_bytes:
            raise ToolError(
                f"content is {size} bytes, over the limit of {self.max_bytes} bytes; "
                "write the file in smaller parts with mode='append'",
                error_type="invalid_arguments",
            )
        _check_encodable(content)
        return content, mode


def _existing_text(scope: FileScope, path: Path) -> str | None:
    """The text to append to, or None when the file does not exist yet."""
    try:
        return read_text(scope, path)
    except ToolError as exc:
        if exc.error_type == "file_not_found":
            return None
        raise


def _check_encodable(content: str) -> None:
    try:
        content.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ToolError(
            f"content has a character that is not valid in UTF-8 at index {exc.start} "
            "(a lone surrogate); remove it",
            error_type="invalid_arguments",
        ) from None


def _count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _outcome(mode: str, existed: bool) -> str:
    if not existed:
        return "created"
    return "appended" if mode == "append" else "overwritten"


def _s(count: int) -> str:
    return "" if count == 1 else "s"
