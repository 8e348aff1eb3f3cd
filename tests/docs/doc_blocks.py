"""The fenced code blocks of the README and the docs site, each with what to do with it.

A block is run or checked by default. An HTML comment on the line before the
fence (invisible on the site, visible in the source) says otherwise:

- ``<!-- not-run: REASON -->``: a fragment (it names variables it never defines,
  or needs a service); a Python one must still parse. Counted, and listed with
  its reason by ``python -m tests.docs.doc_blocks``.
- ``<!-- run: pytest as PATH -->``: a test module, run (deep tier) as the file
  PATH of the repo, against the committed cassettes that file's tests use.
- ``<!-- run: pytest against the simulator -->``: a test module of harness's own
  runtime, recorded (deep tier) against ``harness sim`` and then replayed.
- ``<!-- check: KIND -->``: a YAML/JSON block validated as KIND (``case-file``,
  ``checks``, ``sim-script``, ``mcp-servers``) when its content does not say so.

What each language means, unmarked: ``python`` is executed as a script in an
empty folder, offline; ``bash``/``sh``/``console`` lines that call ``harness``
or ``pytest`` are parsed by the real command-line parsers (every command and
flag must exist); ``yaml``/``json`` are validated by the real loaders; ``text``
and blocks without a language are output and are not checked, except a line
starting with ``$ ``, which is a command.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
_MARKER = re.compile(r"^\s*<!--\s*(?P<kind>not-run|run|check):\s*(?P<value>.*?)\s*-->\s*$")
OUTPUT_LANGUAGES = ("", "text")
SHELL_LANGUAGES = ("bash", "sh", "shell", "console")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it is, its language, its text and its marker."""

    path: Path
    line: int  # of the opening fence, counted from 1
    language: str
    text: str
    marker: str | None = None  # not-run | run | check
    marker_value: str = ""

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(ROOT).as_posix()}:{self.line}"

    @property
    def skipped(self) -> bool:
        return self.marker == "not-run"


def documents() -> list[Path]:
    """The README and every page of the docs site."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(path: Path) -> Iterator[Block]:
    """The fenced blocks of one Markdown file, dedented as the page shows them."""
    lines = path.read_text("utf-8").splitlines()
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = opening["indent"], opening["fence"]
        language = opening["info"].strip().split(" ")[0].lower()
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            line = lines[end]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            end += 1
        marker = _marker_before(lines, index)
        yield Block(
            path=path,
            line=index + 1,
            language=language,
            text="\n".join(body) + "\n",
            marker=marker[0] if marker else None,
            marker_value=marker[1] if marker else "",
        )
        index = end + 1


def _marker_before(lines: list[str], index: int) -> tuple[str, str] | None:
    before = index - 1
    while before >= 0 and not lines[before].strip():
        before -= 1
    found = _MARKER.match(lines[before]) if before >= 0 else None
    return (found["kind"], found["value"]) if found else None


def all_blocks() -> list[Block]:
    return [block for path in documents() for block in blocks(path)]


if __name__ == "__main__":
    found = all_blocks()
    for block in found:
        note = f"{block.marker}: {block.marker_value}" if block.marker else ""
        sys.stdout.write(f"{block.id:45} {block.language or '-':8} {note}\n")
    skipped = sum(block.skipped for block in found)
    sys.stdout.write(f"{len(found)} blocks, {skipped} not run\n")
