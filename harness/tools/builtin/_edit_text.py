"""Text primitives of the edit matcher: lines with their offsets, and per-level line keys.

A line key is ``(indent, body)``. The stricter the level, the more of the
original line survives in the key; two lines "match at a level" when their keys
at that level are equal (and, from ``INDENT`` on, their indents differ by one
uniform offset across the block, which the matcher checks separately).
"""

from __future__ import annotations

import bisect
import unicodedata
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property

__all__ = [
    "FOLDED_CHARACTERS",
    "Block",
    "Document",
    "Level",
    "Line",
    "Replacement",
    "fold_unicode",
    "indent_width",
    "line_key",
    "render_indent",
    "split_indent",
    "split_lines",
]


class Level(IntEnum):
    """How much of a line is ignored when comparing; each level includes the ones before."""

    TRAILING = 1
    """Line endings and trailing whitespace."""
    INDENT = 2
    """Plus leading whitespace (the offset is checked per block)."""
    UNICODE = 3
    """Plus typographic characters folded to ASCII."""
    COLLAPSE = 4
    """Plus runs of inner whitespace collapsed to one space."""


# Typographic characters a model (or a word processor) puts where code has ASCII.
FOLDED_CHARACTERS: dict[str, str] = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u2035", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb", '"'),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d", "-"),
    **dict.fromkeys("\u00a0\u2002\u2003\u2007\u2009\u200a\u202f\u205f\u3000", " "),
    **dict.fromkeys("\u200b\u200c\u200d\u2060\ufeff", ""),
    "\u2026": "...",
    "\u2022": "*",
    "\u2192": "->",
    "\u21d2": "=>",
    "\u2264": "<=",
    "\u2265": ">=",
    "\u2260": "!=",
}
_FOLD_TABLE = str.maketrans(FOLDED_CHARACTERS)
_INDENT_CHARS = " \t"


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a document: where it starts, its text, and its ending."""

    start: int
    content: str
    ending: str

    @property
    def end(self) -> int:
        """Offset just after the content, before the line ending."""
        return self.start + len(self.content)

    @property
    def full_end(self) -> int:
        """Offset just after the line ending."""
        return self.end + len(self.ending)


@dataclass(frozen=True, slots=True)
class Replacement:
    """Replace ``text[start:end]`` with ``text``; lines are 1-based, inclusive.

    ``similarity`` says how closely the span matched old_text (1.0 unless fuzzy).
    """

    start: int
    end: int
    text: str
    first_line: int
    last_line: int
    similarity: float = 1.0


@dataclass(frozen=True, slots=True)
class Block:
    """A snippet given by the model (old_text or new_text) as lines without endings."""

    lines: tuple[str, ...]
    trailing_newline: bool

    @classmethod
    def parse(cls, text: str) -> Block:
        if not text:
            return cls((), False)
        parts = text.split("\n")
        trailing = parts[-1] == ""
        if trailing:
            parts.pop()
        return cls(tuple(p[:-1] if p.endswith("\r") else p for p in parts), trailing)


def split_lines(text: str) -> list[Line]:
    """Split on ``\\n`` only (``\\r\\n`` endings are kept whole; no phantom last line)."""
    lines: list[Line] = []
    start = 0
    size = len(text)
    while start < size:
        newline = text.find("\n", start)
        if newline < 0:
            lines.append(Line(start, text[start:], ""))
            break
        if newline > start and text[newline - 1] == "\r":
            lines.append(Line(start, text[start : newline - 1], "\r\n"))
        else:
            lines.append(Line(start, text[start:newline], "\n"))
        start = newline + 1
    return lines


def fold_unicode(text: str) -> str:
    """Typographic quotes, dashes, spaces and ellipses as ASCII, then NFKC."""
    return unicodedata.normalize("NFKC", text.translate(_FOLD_TABLE))


def split_indent(content: str) -> tuple[str, str]:
    """Leading spaces and tabs, and the rest of the line."""
    rest = content.lstrip(_INDENT_CHARS)
    return content[: len(content) - len(rest)], rest


def line_key(content: str, level: Level) -> tuple[str, str]:
    """The ``(indent, body)`` a line is compared by at ``level``."""
    if level is Level.TRAILING:
        return "", content.rstrip()
    if level >= Level.UNICODE:
        content = fold_unicode(content)
    indent, rest = split_indent(content)
    body = rest.rstrip()
    if level >= Level.COLLAPSE:
        body = " ".join(body.split())
    return indent, body


def indent_width(indent: str, tab: int) -> int:
    """Display width of an indent, with tab stops every ``tab`` columns."""
    width = 0
    for char in indent:
        width = width + tab - width % tab if char == "\t" else width + 1
    return width


def render_indent(width: int, tab: int, use_tabs: bool) -> str:
    """An indent of ``width`` columns in the file's style."""
    if use_tabs:
        return "\t" * (width // tab) + " " * (width % tab)
    return " " * width


class Document:
    """A file's text split into lines once, with line keys computed lazily per level."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self._starts = [line.start for line in self.lines]
        self._keys: dict[Level, list[tuple[str, str]]] = {}
        self._bodies: dict[Level, list[str]] = {}

    def keys(self, level: Level) -> list[tuple[str, str]]:
        """``line_key`` of every line at ``level``."""
        cached = self._keys.get(level)
        if cached is None:
            cached = self._keys[level] = [line_key(ln.content, level) for ln in self.lines]
        return cached

    def bodies(self, level: Level) -> list[str]:
        """The body half of ``keys(level)``."""
        cached = self._bodies.get(level)
        if cached is None:
            cached = self._bodies[level] = [body for _, body in self.keys(level)]
        return cached

    @cached_property
    def ending(self) -> str:
        """The line ending most lines use (``\\n`` for a file without any)."""
        crlf = sum(1 for line in self.lines if line.ending == "\r\n")
        lf = sum(1 for line in self.lines if line.ending == "\n")
        return "\r\n" if crlf > lf else "\n"

    @cached_property
    def pure_crlf(self) -> bool:
        """Every line ending is CRLF (and there is at least one)."""
        endings = {line.ending for line in self.lines} - {""}
        return endings == {"\r\n"}

    @cached_property
    def tab_indented(self) -> bool:
        """Some line is indented with a tab and none starts with a space."""
        firsts = {line.content[:1] for line in self.lines}
        return "\t" in firsts and " " not in firsts

    def line_number(self, offset: int) -> int:
        """1-based number of the line holding ``offset``."""
        return max(1, bisect.bisect_right(self._starts, offset))
