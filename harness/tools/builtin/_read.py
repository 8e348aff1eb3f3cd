"""The ``read`` tool: line-numbered text from a file inside the workdir."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.core.errors import ToolError
from harness.tools._protocol import ToolInput
from harness.tools._safe_open import read_regular_file
from harness.tools.builtin._file_io import is_binary
from harness.tools.paths import FileScope

__all__ = ["ReadTool", "numbered_lines"]


class ReadTool:
    """Read a text file as numbered lines (``cat -n`` style), a window at a time.

    Args:
        max_bytes: files larger than this are refused (read them with offset/limit
            is not enough: the whole file would still be decoded).
        max_line_chars: longer lines are cut so one minified line cannot flood
            the context.
        state_dir: the harness state dir, never read (None: ``<workdir>/.harness``).
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

    def __init__(
        self,
        *,
        max_bytes: int = 2_000_000,
        max_line_chars: int = 2000,
        state_dir: Path | None = None,
    ) -> None:
        self.max_bytes = max_bytes
        self.max_line_chars = max_line_chars
        self.state_dir = state_dir

    def run(self, tool_input: ToolInput) -> str:
        args = tool_input.arguments
        scope = FileScope.of(tool_input.workdir, self.state_dir)
        path = scope.resolve(args.get("path"))
        offset = _positive_int(args, "offset", 1)
        limit = _positive_int(args, "limit", 2000)
        shown = scope.show(path)
        text = self._load(scope, path, shown)
        lines = numbered_lines(text)
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

    def _load(self, scope: FileScope, path: Path, shown: str) -> str:
        data = read_regular_file(scope, path, max_bytes=self.max_bytes)
        if is_binary(data):
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


def numbered_lines(text: str) -> list[str]:
    """The lines ``read`` numbers: split at ``\n`` only, as ``edit``, ``grep -n`` and ``sed`` do.

    ``str.splitlines`` would also split at ``\r``, form feeds, ``\x85``,
    ``\u2028`` and others, so line numbers would disagree with the tools the
    model checks them against. One ``\r`` before the ``\n`` is not shown;
    a final newline does not start another line.
    """
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


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
