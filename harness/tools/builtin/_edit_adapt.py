"""Turning a match into a replacement that fits the file's conventions.

When a loose stage matched, the model's old_text differed from the file in
ways the model did not mean (line endings, indentation, typographic quotes,
trailing spaces), and its new_text almost always carries the same difference.
So the same difference is undone in new_text before it is written: the file
keeps its line endings, its indentation style and its ASCII punctuation.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace

from harness.tools.builtin._edit_text import (
    FOLDED_CHARACTERS,
    Block,
    Document,
    Level,
    Line,
    Replacement,
    indent_width,
    line_key,
    render_indent,
    split_indent,
)

__all__ = ["Window", "exact_replacement", "window_replacement"]

# In a fuzzy window, an old_text line this similar to its file line is taken to
# be a slightly mis-copied version of it.
_SAME_LINE_RATIO = 0.8


@dataclass(frozen=True, slots=True)
class Window:
    """A run of whole file lines that matched old_text.

    Attributes:
        index: 0-based index of the first matched line.
        size: number of lines.
        level: the line-key level the lines were compared at.
        tab: tab width under which the indent offset is uniform.
        delta: file indent width minus old_text indent width, in columns.
        score: similarity (1.0 unless the fuzzy stage found the window).
        inline_first: old_text starts at the first line's code, not its indent; the
            span then starts there too, and new_text's first line is not re-indented.
    """

    index: int
    size: int
    level: Level
    tab: int = 4
    delta: int = 0
    score: float = 1.0
    inline_first: bool = False


def exact_replacement(
    doc: Document, start: int, end: int, old_text: str, new_text: str
) -> Replacement:
    """A literal span; new_text only takes on the file's line endings and indent style.

    One indentation slip is undone: when old_text was copied from a line's code
    on (skipping its indent) but new_text starts with its own indentation, the
    span starts at the line's start so the indent is not doubled.
    """
    first, last = doc.line_number(start), doc.line_number(max(start, end - 1))
    prefix = doc.text[doc.lines[first - 1].start : start] if doc.lines else ""
    own_indent = new_text[:1] in " \t" or (not new_text and old_text.endswith("\n"))
    if prefix and not prefix.strip(" \t") and old_text[:1] not in " \t" and own_indent:
        start -= len(prefix)
    text = new_text
    if doc.tab_indented and not any(ln.startswith(" ") for ln in old_text.split("\n")):
        # A first line that continues a line mid-way has no indent to convert.
        at_line_start = start == doc.lines[first - 1].start
        lines = text.split("\n")
        head = [_tabify(lines[0]) if at_line_start else lines[0]]
        text = "\n".join(head + [_tabify(line) for line in lines[1:]])
    if "\n" in text and doc.pure_crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return Replacement(start, end, text, first, last)


def _tabify(line: str) -> str:
    # A tab-indented file (Go, Makefiles) must not get space indents; the model's
    # four spaces stand for one tab.
    indent, rest = split_indent(line)
    if " " not in indent or not rest:
        return line
    width = indent_width(indent, 4)
    return "\t" * (width // 4) + " " * (width % 4) + rest


def window_replacement(
    doc: Document, window: Window, old: Block, new: Block, old_text: str
) -> Replacement:
    """Replace the window's lines with new_text's lines, adapted to the file.

    The span covers whole lines. Its final line ending belongs to the span when
    old_text ended with a newline or new_text is empty (deleting lines removes
    them entirely); the replacement then ends with the file's line ending too.
    """
    lines = doc.lines[window.index : window.index + window.size]
    first, last = lines[0], lines[-1]
    if window.inline_first and new.lines and new.lines[0][:1] in " \t":
        # new_text brings its own first-line indent, so it re-indents like the rest.
        window = replace(window, inline_first=False)
    start = first.start + (len(split_indent(first.content)[0]) if window.inline_first else 0)
    end = last.full_end if old.trailing_newline or not new.lines else last.end
    new_lines = list(new.lines)
    new_lines = _trim_trailing_space(new_lines, old, lines)
    if window.level >= Level.UNICODE:
        new_lines = _unfold(new_lines, old_text, doc.text[first.start : end], doc.text)
    if window.level >= Level.INDENT:
        new_lines = _reindent(doc, window, old, new_lines)
    if doc.tab_indented and not any(ln.startswith(" ") for ln in old.lines):
        new_lines = [_tabify(ln) for ln in new_lines]
    new_lines = _restore_unchanged(new_lines, window, old, new, lines)
    eol = first.ending or doc.ending
    text = eol.join(new_lines)
    if new_lines and last.ending and end == last.full_end:
        text += eol
    first_line, last_line = window.index + 1, window.index + window.size
    return Replacement(start, end, text, first_line, last_line, window.score)


def _restore_unchanged(
    new_lines: list[str], window: Window, old: Block, new: Block, lines: list[Line]
) -> list[str]:
    # A line the model copied unchanged from old_text into new_text means "keep
    # this line"; keeping the file's own bytes for it is exactly that, whatever
    # the model's copy got wrong (spacing, quotes, indent).
    restored = list(new_lines)
    matcher = difflib.SequenceMatcher(None, old.lines, new.lines, autojunk=False)
    for tag, old_from, old_to, new_from, _ in matcher.get_opcodes():
        if tag != "equal":
            continue
        for offset in range(old_to - old_from):
            line = lines[old_from + offset]
            if not _same_line(line.content, old.lines[old_from + offset], window):
                continue
            at = new_from + offset
            keep = line.content
            if window.inline_first and at == 0 and old_from + offset == 0:
                keep = keep[len(split_indent(keep)[0]) :]
            restored[at] = keep
    return restored


def _same_line(file_line: str, old_line: str, window: Window) -> bool:
    file_body = line_key(file_line, window.level)[1]
    old_body = line_key(old_line, window.level)[1]
    if window.score >= 1.0:
        return file_body == old_body
    ratio = difflib.SequenceMatcher(None, file_body, old_body, autojunk=False).ratio()
    return ratio >= _SAME_LINE_RATIO


def _trim_trailing_space(new_lines: list[str], old: Block, lines: list[Line]) -> list[str]:
    # Trailing spaces the model typed into old_text that the file does not have
    # are noise; the same noise in new_text should not reach the file.
    file_has = any(ln.content != ln.content.rstrip() for ln in lines)
    old_has = any(ln != ln.rstrip() for ln in old.lines)
    if file_has or not old_has:
        return new_lines
    return [ln.rstrip() for ln in new_lines]


def _unfold(new_lines: list[str], old_text: str, span_text: str, file_text: str) -> list[str]:
    # A typographic character in old_text that the matched span lacks was the
    # model's invention. Then the model is writing typographic characters, so in
    # new_text those become ASCII too, unless the file itself uses them.
    invented = {c for c in set(old_text) if c in FOLDED_CHARACTERS and c not in span_text}
    if not invented:
        return new_lines
    swaps = {
        char: FOLDED_CHARACTERS[char]
        for char in set("".join(new_lines))
        if char in FOLDED_CHARACTERS and (char in invented or char not in file_text)
    }
    table = str.maketrans(swaps)
    return [line.translate(table) for line in new_lines]


def _reindent(doc: Document, window: Window, old: Block, new_lines: list[str]) -> list[str]:
    file_keys = doc.keys(window.level)[window.index : window.index + window.size]
    skip = 1 if window.inline_first else 0
    mapping: dict[str, str] = {}
    for (file_indent, file_body), old_line in zip(file_keys[skip:], old.lines[skip:], strict=True):
        old_indent, old_body = line_key(old_line, window.level)
        if file_body and old_body:
            mapping.setdefault(old_indent, file_indent)
    if all(key == value for key, value in mapping.items()):
        return new_lines
    use_tabs = any(value.startswith("\t") for value in mapping.values())
    adapted = new_lines[:skip]
    for line in new_lines[skip:]:
        indent, rest = split_indent(line)
        if not rest.strip():
            adapted.append(line)
            continue
        target = mapping.get(indent)
        if target is None:
            width = max(0, indent_width(indent, window.tab) + window.delta)
            target = render_indent(width, window.tab, use_tabs)
        adapted.append(target + rest)
    return adapted
