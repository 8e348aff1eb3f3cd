"""The ``read`` tool: line-numbered text from a file inside the workdir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.core.errors import ToolError
from harness.tools.paths import display_path, resolve_in_workdir
from harness.tools.protocol import ToolInput

__all__ = ["ReadTool"]

_BINARY_PROBE_BYTES = 8192


class ReadTool:
    """Read a text file as numbered lines (``cat -n`` style), a window at a time.

    Args:
        max_bytes: files larger than this are refused (read them with offset/limit
            is not enough: the whole file would still be decoded).
        max_line_chars: longer lines are cut so one minified line cannot flood
            the context.
    """

    name = "read"
    description = (
        "Read a UTF-8 text file inside the workdir. Returns numbered lines "
        "('<line number>\\t<text>'). Use offset (1-based first line) and limit "
        "(number of lines) to page through long files."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File path relative to the workdir."},
            "offset": {"type": "integer", "minimum": 1, "default": 1},
            "limit": {"type": "integer", "minimum": 1, "default": 2000},
        },
        "required": ["path"],
        "additionalProperties": False,
    }

    def __init__(self, *, max_bytes: int = 2_000_000, max_line_chars: int = 2000) -> None:
        self.max_bytes = max_bytes
        self.max_line_chars = max_line_chars

    def run(self, tool_input: ToolInput) -> str:
        args = tool_input.arguments
        path = resolve_in_workdir(tool_input.workdir, args.get("path"))
        offset = _positive_int(args, "offset", 1)
        limit = _positive_int(args, "limit", 2000)
        shown = display_path(tool_input.workdir, path)
        text = self._load(path, shown)
        lines = text.splitlines()
        if not lines:
            return f"{shown} is empty."
        if offset > len(lines):
            raise ToolError(
                f"offset {offset} is past the end of {shown} ({len(lines)} lines); "
                f"use an offset between 1 and {len(lines)}",
                error_type="invalid_arguments",
            )
        window = lines[offset - 1 : offset - 1 + limit]
        body = "\n".join(
            f"{number:6d}\t{self._cut(line)}" for number, line in enumerate(window, start=offset)
        )
        last = offset + len(window) - 1
        if last < len(lines):
            body += (
                f"\n[showing lines {offset}-{last} of {len(lines)}; "
                f"read more with offset={last + 1}]"
            )
        return body

    def _load(self, path: Path, shown: str) -> str:
        if not path.exists():
            raise ToolError(f"file not found: {shown}", error_type="file_not_found")
        if path.is_dir():
            raise ToolError(
                f"{shown} is a directory, not a file; read a file inside it",
                error_type="is_directory",
            )
        size = path.stat().st_size
        if size > self.max_bytes:
            raise ToolError(
                f"{shown} is {size} bytes, over the read limit of {self.max_bytes} bytes; "
                "search it with bash (grep, head) instead",
                error_type="file_too_large",
            )
        data = path.read_bytes()
        if b"\x00" in data[:_BINARY_PROBE_BYTES]:
            raise ToolError(
                f"{shown} looks like a binary file; read only text files",
                error_type="binary_file",
            )
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ToolError(
                f"{shown} is not valid UTF-8 (byte {exc.start}); read only UTF-8 text files",
                error_type="not_utf8",
            ) from None

    def _cut(self, line: str) -> str:
        if len(line) <= self.max_line_chars:
            return line
        return line[: self.max_line_chars] + f"... [line cut at {self.max_line_chars} chars]"


def _positive_int(args: dict[str, Any], key: str, default: int) -> int:
    value = args.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ToolError(
            f"argument {key!r} must be a positive integer, got {value!r}",
            error_type="invalid_arguments",
        )
    return value
