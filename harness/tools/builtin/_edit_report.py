"""What the edit tool tells the model: nearest candidates, snippets, error messages.

Pure functions of text; the tool adapter decides when to call them.
"""

from __future__ import annotations

import difflib
import heapq
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from harness.tools.builtin._edit_matching import (
    MatchAmbiguous,
    MatchMissing,
    Stage,
    locate,
)
from harness.tools.builtin._edit_prefixes import detect_prefix_style
from harness.tools.builtin._edit_text import Block, Document, Level, Replacement, line_key

__all__ = [
    "Candidate",
    "ambiguous_message",
    "count_changed_lines",
    "missing_message",
    "nearest_candidates",
    "numbered",
    "snippet",
]

_MIN_SIMILARITY = 0.3
_CANDIDATE_SPREAD = 0.3
_MAX_SCORED = 200
_MAX_LINE_CHARS = 200
_MAX_CANDIDATE_LINES = 8


@dataclass(frozen=True, slots=True)
class Candidate:
    """A run of file lines that resembles old_text."""

    first_line: int
    last_line: int
    similarity: float
    lines: tuple[str, ...]


def numbered(lines: Sequence[str], first: int) -> str:
    """Lines in the ``read`` tool's format (``%6d\\t<text>``), long lines cut."""
    return "\n".join(f"{number:6d}\t{_cut(line)}" for number, line in enumerate(lines, first))


def nearest_candidates(text: str, old_text: str, *, limit: int = 3) -> list[Candidate]:
    """The ``limit`` line windows most similar to old_text, most similar first."""
    doc = Document(text)
    style = detect_prefix_style(old_text)
    wanted = Block.parse(style.strip(old_text) if style else old_text).lines
    bodies = doc.bodies(Level.COLLAPSE)
    if not wanted or not bodies:
        return []
    size = min(len(wanted), len(bodies))
    wanted_bodies = [line_key(line, Level.COLLAPSE)[1] for line in wanted]
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2("\n".join(wanted_bodies))
    scored: list[tuple[float, int]] = []
    keep = min(_MAX_SCORED, max(30, limit * (2 * size - 1)))
    for index in _promising_windows(bodies, wanted_bodies, size, keep):
        matcher.set_seq1("\n".join(bodies[index : index + size]))
        if matcher.real_quick_ratio() < _MIN_SIMILARITY or matcher.quick_ratio() < _MIN_SIMILARITY:
            continue
        ratio = matcher.ratio()
        if ratio >= _MIN_SIMILARITY:
            scored.append((ratio, index))
    chosen: list[Candidate] = []
    for ratio, index in sorted(scored, key=lambda item: (-item[0], item[1])):
        # Far weaker runs than the best one are noise to the reader.
        if len(chosen) == limit or (chosen and ratio < chosen[0].similarity - _CANDIDATE_SPREAD):
            break
        if all(index + size <= c.first_line - 1 or c.last_line <= index for c in chosen):
            lines = tuple(line.content for line in doc.lines[index : index + size])
            chosen.append(Candidate(index + 1, index + size, ratio, lines))
    return chosen


def _promising_windows(bodies: list[str], wanted: list[str], size: int, keep: int) -> list[int]:
    """Starts of the ``keep`` windows holding most of old_text's trigrams.

    ``SequenceMatcher.ratio`` on every window of a long file is too slow for an
    error message; a sliding count of shared trigrams picks the windows worth it.
    """
    total = len(bodies) - size + 1
    if total <= keep:
        return list(range(total))
    target = set().union(*(_trigrams(body) for body in wanted))
    grams = [_trigrams(body) & target for body in bodies]
    counts: Counter[str] = Counter()
    shared = 0
    scores: list[tuple[int, int]] = []
    for index, line_grams in enumerate(grams):
        for gram in line_grams:
            counts[gram] += 1
            shared += counts[gram] == 1
        if index >= size:
            for gram in grams[index - size]:
                counts[gram] -= 1
                shared -= counts[gram] == 0
        if index >= size - 1:
            scores.append((shared, -(index - size + 1)))
    return [-start for _, start in heapq.nlargest(keep, scores)]


def _trigrams(text: str) -> set[str]:
    if len(text) < 3:
        return {text} if text else set()
    return {text[i : i + 3] for i in range(len(text) - 2)}


def missing_message(
    shown: str, outcome: MatchMissing, text: str, old_text: str, new_text: str
) -> str:
    """Why nothing matched, what came close, and whether the edit is already in the file."""
    tried = ", ".join(stage.value for stage in outcome.stages_tried)
    parts = [f"old_text was not found in {shown} (stages tried: {tried})."]
    for stage, spans in outcome.partial:
        parts.append(
            f"Stage {stage.value} found {len(spans)} of the {outcome.expected} expected "
            f"matches ({_lines(spans)}); set expected_replacements={len(spans)} if that is "
            "all of them."
        )
    already = _already_present(text, old_text, new_text)
    if already:
        parts.append(already)
    candidates = nearest_candidates(text, old_text)
    if candidates:
        parts.append("Nearest candidates:")
        for candidate in candidates:
            shown_lines = candidate.lines[:_MAX_CANDIDATE_LINES]
            more = len(candidate.lines) - len(shown_lines)
            parts.append(
                f"  {_lines([(candidate.first_line, candidate.last_line)])} "
                f"({candidate.similarity:.0%} similar):\n"
                + numbered(shown_lines, candidate.first_line)
                + (f"\n       ... ({more} more lines)" if more else "")
            )
    parts.append(
        "Copy old_text exactly from a fresh read of the file, without the line-number "
        "prefixes, including enough surrounding lines to make it unique."
    )
    return "\n".join(parts)


def ambiguous_message(shown: str, outcome: MatchAmbiguous) -> str:
    """Which places matched, and the two ways to make the call unambiguous."""
    count = len(outcome.spans)
    looser = "" if outcome.stage is Stage.EXACT else "; the stricter stages found fewer"
    return (
        f"old_text matches {count} places in {shown} (stage: {outcome.stage.value}{looser}) "
        f"at {_lines(outcome.spans)}, but expected_replacements is {outcome.expected}. "
        "Nothing was changed. Add surrounding lines to old_text so it matches only the "
        f"place you mean, or set expected_replacements={count} to replace every one."
    )


def count_changed_lines(text: str, replacement: Replacement) -> tuple[int, int]:
    """Lines added and deleted by one replacement, counted like ``git diff --numstat``."""
    before = Block.parse(text[replacement.start : replacement.end]).lines
    after = Block.parse(replacement.text).lines
    added = deleted = 0
    opcodes = difflib.SequenceMatcher(None, before, after, autojunk=False).get_opcodes()
    for tag, i1, i2, j1, j2 in opcodes:
        if tag != "equal":
            deleted += i2 - i1
            added += j2 - j1
    return added, deleted


def snippet(
    text: str, regions: Sequence[tuple[int, int]], *, context: int = 2, max_lines: int = 12
) -> str:
    """Numbered lines around each changed region (char offsets into ``text``)."""
    doc = Document(text)
    if not doc.lines:
        return "(the file is now empty)"
    ranges: list[tuple[int, int]] = []
    for start, end in regions:
        first = doc.line_number(start)
        last = max(first, doc.line_number(max(start, end - 1)))
        low, high = max(1, first - context), min(len(doc.lines), last + context)
        if ranges and low <= ranges[-1][1] + 1:
            ranges[-1] = (ranges[-1][0], max(ranges[-1][1], high))
        else:
            ranges.append((low, high))
    blocks = [_numbered_range(doc, low, high, context, max_lines) for low, high in ranges[:3]]
    if len(ranges) > 3:
        blocks.append(f"       ... ({len(ranges) - 3} more changed places)")
    return "\n       ...\n".join(blocks)


def _numbered_range(doc: Document, low: int, high: int, context: int, max_lines: int) -> str:
    contents = [line.content for line in doc.lines[low - 1 : high]]
    if len(contents) <= max_lines:
        return numbered(contents, low)
    keep = max(1, max_lines - context)
    parts = [
        numbered(contents[:keep], low),
        f"       ... ({len(contents) - keep - context} more lines)",
    ]
    if context:
        parts.append(numbered(contents[-context:], high - context + 1))
    return "\n".join(parts)


def _already_present(text: str, old_text: str, new_text: str) -> str:
    if len(new_text.strip()) < 8 or new_text.strip() in old_text:
        return ""
    found = locate(text, new_text)
    if found is None:
        return ""
    stage, spans = found
    return (
        f"new_text is already present in the file ({_lines(spans)}, stage: {stage.value}): "
        "the edit was probably already applied. Read the file to check before editing again."
    )


def _lines(spans: Sequence[tuple[int, int]]) -> str:
    labels = [str(a) if a == b else f"{a}-{b}" for a, b in spans]
    noun = "line" if len(spans) == 1 and spans[0][0] == spans[0][1] else "lines"
    return f"{noun} {', '.join(labels)}"


def _cut(line: str) -> str:
    if len(line) <= _MAX_LINE_CHARS:
        return line
    return line[:_MAX_LINE_CHARS] + " ..."
