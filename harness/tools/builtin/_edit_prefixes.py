"""Line-number prefixes that a model copied from ``read`` output into its edit.

``read`` prints ``%6d\\t<line>``; other tools print ``12 | code``, ``12: code`` or
``12→code``. A prefix style is only recognised when every non-empty line of
old_text carries it and the numbers count up line by line, so ordinary text
that merely starts with a number is not mistaken for a copied listing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PrefixStyle", "detect_prefix_style"]


@dataclass(frozen=True, slots=True)
class PrefixStyle:
    """One way of numbering lines, and how to strip it.

    Attributes:
        name: ``tab``, ``arrow``, ``pipe`` or ``colon``.
        pattern: matches the prefix at the start of a line; group 1 is the number.
        blank: matches a whole line that is only a number (a blank line whose
            trailing tab was trimmed), or None when the style has no such form.
    """

    name: str
    pattern: re.Pattern[str]
    blank: re.Pattern[str] | None = None

    def number(self, line: str) -> int | None:
        """The line number this line is prefixed with, if it carries the prefix."""
        found = self.pattern.match(line) or (self.blank.match(line) if self.blank else None)
        return int(found.group(1)) if found else None

    def strip_line(self, line: str) -> str:
        if self.blank is not None and self.blank.match(line):
            return ""
        return self.pattern.sub("", line, count=1)

    def strip(self, text: str) -> str:
        """``text`` with the prefix removed from every line that carries it."""
        return "\n".join(self.strip_line(line) for line in text.split("\n"))


_STYLES = (
    PrefixStyle("tab", re.compile(r"^[ \t]*(\d+)\t"), re.compile(r"^ +(\d+)\r?$")),
    PrefixStyle("arrow", re.compile(r"^[ \t]*(\d+)\u2192")),
    PrefixStyle("pipe", re.compile(r"^[ \t]*(\d+) ?\| ?")),
    PrefixStyle("colon", re.compile(r"^[ \t]*(\d+): ?")),
)


def detect_prefix_style(old_text: str) -> PrefixStyle | None:
    """The style every non-empty line of ``old_text`` is numbered in, if there is one."""
    lines = old_text.split("\n")
    for style in _STYLES:
        if _numbered_throughout(style, lines):
            return style
    return None


def _numbered_throughout(style: PrefixStyle, lines: list[str]) -> bool:
    # Line k of a copied listing carries number first + k, even where a blank
    # line lost its prefix; a constant difference proves the numbering.
    offsets: set[int] = set()
    for index, line in enumerate(lines):
        if not line.strip():
            continue
        number = style.number(line)
        if number is None:
            return False
        offsets.add(number - index)
        if len(offsets) > 1:
            return False
    return bool(offsets)
