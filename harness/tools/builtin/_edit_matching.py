"""The edit matching pipeline: find where old_text is in a file, strict stages first.

Pure functions over strings; no I/O. Stages, in order:

```
exact                      old_text is a substring of the file
line_endings_trailing_ws   whole lines equal after CRLF/LF and trailing space are ignored
indentation_flexible       ... and the indent differs by one constant offset (tabs counted)
unicode_normalised         ... and typographic quotes, dashes, spaces, ellipses fold to ASCII
whitespace_collapsed       ... and runs of inner whitespace count as one space
line_number_prefixes       old_text is a numbered listing (``%6d\\t``, ``12 |``); strip the
                           numbers and try the stages above again
fuzzy                      (opt-in) the most similar line windows above a similarity floor
```

The first stage that finds exactly ``expected`` matches wins. A stage that
finds more is an ambiguity, reported at once: a looser stage would only find
more, and guessing among them could edit the wrong place.
"""

from __future__ import annotations

import difflib
import itertools
from dataclasses import dataclass
from enum import StrEnum

from harness.tools.builtin._edit_adapt import Window, exact_replacement, window_replacement
from harness.tools.builtin._edit_prefixes import PrefixStyle, detect_prefix_style
from harness.tools.builtin._edit_text import (
    Block,
    Document,
    Level,
    Replacement,
    indent_width,
    line_key,
)

__all__ = [
    "MatchAmbiguous",
    "MatchFound",
    "MatchMissing",
    "MatchOutcome",
    "Stage",
    "apply_replacements",
    "find_stage",
    "locate",
    "match_edit",
]

LineSpan = tuple[int, int]
"""First and last line (1-based, inclusive) of one match."""


class Stage(StrEnum):
    """A matching stage; the value is the name the observation reports."""

    EXACT = "exact"
    LINE_ENDINGS_TRAILING_WS = "line_endings_trailing_ws"
    INDENTATION_FLEXIBLE = "indentation_flexible"
    UNICODE_NORMALISED = "unicode_normalised"
    WHITESPACE_COLLAPSED = "whitespace_collapsed"
    LINE_NUMBER_PREFIXES = "line_number_prefixes"
    FUZZY = "fuzzy"


_LEVELS = {
    Stage.LINE_ENDINGS_TRAILING_WS: Level.TRAILING,
    Stage.INDENTATION_FLEXIBLE: Level.INDENT,
    Stage.UNICODE_NORMALISED: Level.UNICODE,
    Stage.WHITESPACE_COLLAPSED: Level.COLLAPSE,
}
_BASIC_STAGES = (Stage.EXACT, *_LEVELS)
_TAB_WIDTHS = (4, 8, 2)


@dataclass(frozen=True, slots=True)
class MatchFound:
    """``stage`` found exactly the expected number of matches."""

    stage: Stage
    replacements: tuple[Replacement, ...]

    @property
    def similarity(self) -> float:
        """The weakest match's similarity (below 1.0 only for ``fuzzy``)."""
        return min((r.similarity for r in self.replacements), default=1.0)


@dataclass(frozen=True, slots=True)
class MatchAmbiguous:
    """``stage`` found more matches than expected; nothing may be replaced."""

    stage: Stage
    spans: tuple[LineSpan, ...]
    expected: int


@dataclass(frozen=True, slots=True)
class MatchMissing:
    """No stage found the expected number of matches.

    Attributes:
        stages_tried: the stages that ran (the prefix stage only runs on numbered text).
        partial: stages that found some matches, but fewer than expected.
        expected: the number asked for.
    """

    stages_tried: tuple[Stage, ...]
    partial: tuple[tuple[Stage, tuple[LineSpan, ...]], ...]
    expected: int


MatchOutcome = MatchFound | MatchAmbiguous | MatchMissing


@dataclass(frozen=True, slots=True)
class _Query:
    old_text: str
    new_text: str
    old: Block
    new: Block

    @classmethod
    def build(cls, old_text: str, new_text: str) -> _Query:
        return cls(old_text, new_text, Block.parse(old_text), Block.parse(new_text))

    def stripped(self, style: PrefixStyle) -> _Query:
        return _Query.build(style.strip(self.old_text), style.strip(self.new_text))


def match_edit(
    text: str,
    old_text: str,
    new_text: str,
    *,
    expected: int = 1,
    fuzzy_threshold: float | None = None,
) -> MatchOutcome:
    """Run the pipeline for one edit of ``text``.

    Args:
        text: the whole file.
        old_text: what the model wants replaced (non-empty).
        new_text: what it should become.
        expected: how many matches there must be.
        fuzzy_threshold: similarity floor in (0, 1] for the fuzzy stage; None skips it.
    """
    doc = Document(text)
    query = _Query.build(old_text, new_text)
    tried: list[Stage] = []
    partial: list[tuple[Stage, tuple[LineSpan, ...]]] = []
    for stage in Stage:
        if stage is Stage.FUZZY and fuzzy_threshold is None:
            continue
        found = _find(doc, query, stage, expected, fuzzy_threshold or 1.0)
        if found is None:
            continue
        tried.append(stage)
        spans = tuple((r.first_line, r.last_line) for r in found)
        if len(found) == expected and not _overlapping(found):
            return MatchFound(stage, found)
        if len(found) >= expected:
            return MatchAmbiguous(stage, spans, expected)
        if found:
            partial.append((stage, spans))
    return MatchMissing(tuple(tried), tuple(partial), expected)


def find_stage(
    text: str,
    old_text: str,
    new_text: str,
    stage: Stage,
    *,
    expected: int = 1,
    fuzzy_threshold: float = 0.9,
) -> tuple[Replacement, ...] | None:
    """All matches of one stage alone (None when the stage does not apply)."""
    return _find(Document(text), _Query.build(old_text, new_text), stage, expected, fuzzy_threshold)


def locate(text: str, needle: str) -> tuple[Stage, tuple[LineSpan, ...]] | None:
    """Where ``needle`` already is in ``text``, by the first non-fuzzy stage that finds it."""
    if not needle.strip():
        return None
    doc = Document(text)
    query = _Query.build(needle, "")
    for stage in Stage:
        if stage is Stage.FUZZY:
            break
        found = _find(doc, query, stage, 1, 1.0)
        if found:
            return stage, tuple((r.first_line, r.last_line) for r in found)
    return None


def apply_replacements(text: str, replacements: tuple[Replacement, ...]) -> str:
    """``text`` with every (non-overlapping) replacement applied."""
    pieces: list[str] = []
    position = 0
    for item in sorted(replacements, key=lambda r: r.start):
        pieces.append(text[position : item.start])
        pieces.append(item.text)
        position = item.end
    pieces.append(text[position:])
    return "".join(pieces)


def _find(
    doc: Document, query: _Query, stage: Stage, expected: int, threshold: float
) -> tuple[Replacement, ...] | None:
    if stage is Stage.EXACT:
        return tuple(
            exact_replacement(doc, start, end, query.old_text, query.new_text)
            for start, end in _exact_spans(doc.text, query.old_text)
            if _indent_aligned(doc, start, query.old_text)
        )
    level = _LEVELS.get(stage)
    if level is not None:
        return _from_windows(doc, query, _windows(doc, query.old, level))
    style = detect_prefix_style(query.old_text)
    unnumbered = None if style is None else query.stripped(style)
    # Numbers around nothing but blank lines would match any blank lines.
    if unnumbered is not None and not unnumbered.old_text.strip():
        unnumbered = None
    if stage is Stage.LINE_NUMBER_PREFIXES:
        return None if unnumbered is None else _find_unnumbered(doc, unnumbered, expected)
    query = unnumbered or query
    return _from_windows(doc, query, _fuzzy_windows(doc, query.old, threshold))


def _find_unnumbered(doc: Document, query: _Query, expected: int) -> tuple[Replacement, ...]:
    # The numbers are stripped; the stricter sub-stage that reaches the expected
    # count decides, so a loose comparison never overrides a strict ambiguity.
    best: tuple[Replacement, ...] = ()
    for stage in _BASIC_STAGES:
        found = _find(doc, query, stage, expected, 1.0) or ()
        if len(found) >= expected:
            return found
        best = found or best
    return best


def _from_windows(doc: Document, query: _Query, windows: list[Window]) -> tuple[Replacement, ...]:
    return tuple(
        window_replacement(doc, window, query.old, query.new, query.old_text) for window in windows
    )


def _exact_spans(text: str, needle: str) -> list[tuple[int, int]]:
    # Overlapping occurrences count too ("===" twice in "===="): the model's
    # text then names two places, and guessing the leftmost would be a wrong span.
    spans: list[tuple[int, int]] = []
    if not needle:
        return spans
    position = text.find(needle)
    while position >= 0:
        spans.append((position, position + len(needle)))
        position = text.find(needle, position + 1)
    return spans


def _overlapping(found: tuple[Replacement, ...]) -> bool:
    ordered = sorted(found, key=lambda r: r.start)
    return any(a.end > b.start for a, b in itertools.pairwise(ordered))


def _indent_aligned(doc: Document, start: int, old_text: str) -> bool:
    # old_text that starts with indentation but matched inside a deeper indent
    # names a different line than the one it found (its indent is wrong); the
    # indentation stage judges such text, so that another line with the same
    # code at the right depth makes it ambiguous rather than silently picked.
    if old_text[:1] not in (" ", "\t"):
        return True
    line_start = doc.lines[doc.line_number(start) - 1].start
    return start == line_start or bool(doc.text[line_start:start].strip(" \t"))


def _windows(doc: Document, old: Block, level: Level) -> list[Window]:
    """Non-overlapping runs of lines whose keys equal old_text's, top to bottom."""
    size = len(old.lines)
    if size == 0:
        return []
    old_keys = [line_key(line, level) for line in old.lines]
    wanted = [body for _, body in old_keys]
    bodies = doc.bodies(level)
    keys = doc.keys(level)
    windows: list[Window] = []
    index, last = 0, len(bodies) - size
    while index <= last:
        if bodies[index] == wanted[0] and bodies[index : index + size] == wanted:
            fit = (4, 0, False) if level is Level.TRAILING else _fit_indent(keys[index:], old_keys)
            if fit is not None:
                tab, delta, inline = fit
                windows.append(Window(index, size, level, tab, delta, inline_first=inline))
                index += size
                continue
        index += 1
    return windows


def _fit_indent(
    file_keys: list[tuple[str, str]], old_keys: list[tuple[str, str]]
) -> tuple[int, int, bool] | None:
    """Tab width, indent offset and whether old_text starts mid-line, when they fit."""
    pairs = [(f, o) for (f, _), (o, body) in zip(file_keys, old_keys, strict=False) if body]
    # Models often copy a block starting at the first line's code, not its
    # indent; that line then matches from its body on and keeps its indent.
    if old_keys[0][1] and not old_keys[0][0] and file_keys[0][0]:
        fit = _uniform_offset(pairs[1:])
        if fit is not None:
            return *fit, True
    fit = _uniform_offset(pairs)
    return None if fit is None else (*fit, False)


def _uniform_offset(pairs: list[tuple[str, str]]) -> tuple[int, int] | None:
    if not pairs:
        return 4, 0
    has_tabs = any("\t" in f or "\t" in o for f, o in pairs)
    for tab in _TAB_WIDTHS if has_tabs else _TAB_WIDTHS[:1]:
        offsets = {indent_width(f, tab) - indent_width(o, tab) for f, o in pairs}
        if len(offsets) == 1:
            return tab, offsets.pop()
    return None


def _fuzzy_windows(doc: Document, old: Block, threshold: float) -> list[Window]:
    """Line windows at least ``threshold`` similar to old_text, best first, no overlaps."""
    size = len(old.lines)
    bodies = doc.bodies(Level.COLLAPSE)
    if size == 0 or size > len(bodies):
        return []
    old_keys = [line_key(line, Level.COLLAPSE) for line in old.lines]
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2("\n".join(body for _, body in old_keys))
    scored: list[tuple[float, int]] = []
    for index in range(len(bodies) - size + 1):
        matcher.set_seq1("\n".join(bodies[index : index + size]))
        if matcher.real_quick_ratio() < threshold or matcher.quick_ratio() < threshold:
            continue
        ratio = matcher.ratio()
        if ratio >= threshold:
            scored.append((ratio, index))
    taken: list[Window] = []
    keys = doc.keys(Level.COLLAPSE)
    for ratio, index in sorted(scored, key=lambda item: (-item[0], item[1])):
        if all(index + size <= w.index or w.index + size <= index for w in taken):
            delta = _first_offset(keys[index : index + size], old_keys)
            taken.append(Window(index, size, Level.COLLAPSE, 4, delta, score=ratio))
    return sorted(taken, key=lambda w: w.index)


def _first_offset(file_keys: list[tuple[str, str]], old_keys: list[tuple[str, str]]) -> int:
    for (file_indent, file_body), (old_indent, old_body) in zip(file_keys, old_keys, strict=True):
        if file_body and old_body:
            return indent_width(file_indent, 4) - indent_width(old_indent, 4)
    return 0
