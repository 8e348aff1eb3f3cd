"""The ``write`` tool: create, overwrite or append to a file inside the workdir."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from harness.core.errors import ToolError
from harness.tools.builtin.file_io import atomic_write, read_text
from harness.tools.paths import display_path, resolve_in_workdir
from harness.tools.protocol import ToolInput, ToolOutput

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
    crash never leaves half a file; an existing file keeps its permission bits.
    Missing parent folders inside the workdir are created.

    Args:
        max_bytes: ``content`` longer than this (UTF-8 bytes) is refused.
    """

    name = "write"
    description = (
        "Write a UTF-8 text file inside the workdir. mode='create' (default) makes a new "
        "file and fails if it exists; mode='overwrite' replaces the whole file; "
        "mode='append' adds content at the end. Parent folders are created. "
        "To change part of an existing file use the edit tool instead."
    )

    def __init__(self, *, max_bytes: int = 10_000_000) -> None:
        self.max_bytes = max_bytes

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
        path = resolve_in_workdir(tool_input.workdir, args.get("path"))
        shown = display_path(tool_input.workdir, path)
        if str(args["path"]).endswith("/"):
            raise ToolError(
                f"path {args['path']!r} ends with '/', so it names a folder; "
                "give the path of a file",
                error_type="is_directory",
            )
        existed = _check_target(path, shown, mode)
        data = content.encode("utf-8")
        written = len(data)
        note = ""
        if mode == "append" and existed:
            before = read_text(path, shown)
            if before and not before.endswith("\n"):
                note = (
                    "\nNote: the file did not end with a newline, so the content was joined "
                    "onto its last line."
                )
            data = before.encode("utf-8") + data
        if not existed:
            _make_parents(path, shown)
        atomic_write(path, data, shown)
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


def _check_target(path: Path, shown: str, mode: str) -> bool:
    """Refuse targets the mode cannot write; return whether the file exists."""
    if path.is_dir():
        raise ToolError(
            f"{shown} is a directory; give the path of a file (e.g. {shown}/name.txt)",
            error_type="is_directory",
        )
    existed = path.exists()
    if existed and mode == "create":
        raise ToolError(
            f"{shown} already exists; use mode='overwrite' to replace the whole file, "
            "mode='append' to add to its end, or the edit tool to change part of it",
            error_type="file_exists",
        )
    return existed


def _make_parents(path: Path, shown: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ToolError(
            f"cannot create {shown}: a parent of it is a file, not a folder",
            error_type="not_a_directory",
        ) from None
    except OSError as exc:
        raise ToolError(
            f"cannot create the folder for {shown}: {exc.strerror or exc}",
            error_type="os_error",
        ) from None


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
