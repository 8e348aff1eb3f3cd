"""Properties of the edit matching pipeline, checked on generated text."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from harness.tools.builtin._edit_matching import (
    MatchAmbiguous,
    MatchFound,
    MatchMissing,
    Stage,
    apply_replacements,
    find_stage,
    match_edit,
)

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
STAGES = list(Stage)

line_text = st.text(alphabet="ab(): =\t", min_size=0, max_size=12)
ending = st.sampled_from(["\n", "\r\n"])
code_line = st.text(alphabet="abc(): =", min_size=1, max_size=10).filter(lambda s: s[0] != " ")


@st.composite
def documents(draw: st.DrawFn) -> str:
    """Lines with mixed LF/CRLF endings, tabs and spaces; maybe no final newline."""
    lines = draw(st.lists(st.tuples(line_text, ending), min_size=1, max_size=12))
    text = "".join(body + end for body, end in lines)
    return text if draw(st.booleans()) else text.rstrip("\r\n")


@st.composite
def replacement_text(draw: st.DrawFn) -> str:
    """New text whose lines start with code, joined by CRLF: nothing for the file to adapt."""
    return "\r\n".join(draw(st.lists(code_line, min_size=1, max_size=3)))


@pytest.mark.deep
@given(text=documents(), data=st.data(), new_text=replacement_text())
@FAST
def test_exact_edit_changes_only_the_span(text: str, data: st.DataObject, new_text: str) -> None:
    starts = [i for i, char in enumerate(text) if not char.isspace()]
    assume(starts)
    start = data.draw(st.sampled_from(starts), label="start")
    end = data.draw(st.integers(start + 1, len(text)), label="end")
    old_text = text[start:end]
    assume(_occurrences(text, old_text) == 1 and old_text != new_text)

    outcome = match_edit(text, old_text, new_text)

    assert isinstance(outcome, MatchFound)
    assert outcome.stage is Stage.EXACT
    result = apply_replacements(text, outcome.replacements)
    assert result == text[:start] + new_text + text[end:]


@pytest.mark.deep
@given(
    before=documents(), between=documents(), after=documents(), old_text=st.text("ab=1", min_size=1)
)
@FAST
def test_repeated_old_text_is_ambiguous_never_replaced(
    before: str, between: str, after: str, old_text: str
) -> None:
    text = before + old_text + between + old_text + after

    outcome = match_edit(text, old_text, "NEW")

    assert isinstance(outcome, MatchAmbiguous)
    assert outcome.stage is Stage.EXACT
    assert len(outcome.spans) >= 2


# Lines that are equal at some stage but not at others, so stages disagree often.
VARIANTS = [
    "x = 1",
    "x = 1  ",
    "    x = 1",
    "\tx = 1",
    "x  =  1",
    "x = \u201c1\u201d",
    'x = "1"',
    "y = 2",
    "",
    "     3\tx = 1",
]


@st.composite
def variant_lines(draw: st.DrawFn, max_size: int) -> str:
    lines = draw(st.lists(st.sampled_from(VARIANTS), min_size=1, max_size=max_size))
    end = draw(ending)
    return end.join(lines) + (end if draw(st.booleans()) else "")


@pytest.mark.deep
@given(
    text=variant_lines(10),
    old_text=variant_lines(2),
    expected=st.integers(1, 2),
    fuzzy=st.sampled_from([None, 0.8]),
)
@settings(max_examples=80, deadline=None)
def test_no_stage_replaces_after_a_stricter_stage_found_too_many(
    text: str, old_text: str, expected: int, fuzzy: float | None
) -> None:
    assume(old_text.strip())
    threshold = fuzzy or 0.9
    outcome = match_edit(text, old_text, "z = 0\n", expected=expected, fuzzy_threshold=fuzzy)
    if isinstance(outcome, MatchMissing):
        decided = len(STAGES)
    else:
        decided = STAGES.index(outcome.stage)
        found = find_stage(
            text, old_text, "z = 0\n", outcome.stage, expected=expected, fuzzy_threshold=threshold
        )
        found_count = len(found or ())
        if isinstance(outcome, MatchFound):
            assert found_count == expected == len(outcome.replacements)
        else:  # too many, or as many as expected but two of them share text
            ordered = sorted(found or (), key=lambda r: r.start)
            overlap = any(a.end > b.start for a, b in itertools.pairwise(ordered))
            assert found_count > expected or (found_count == expected and overlap)
    for stricter in STAGES[:decided]:
        if stricter is Stage.FUZZY:
            continue
        count = len(find_stage(text, old_text, "z = 0\n", stricter, expected=expected) or ())
        assert count < expected, f"{stricter.value} found {count} but did not decide"


@st.composite
def python_blocks(draw: st.DrawFn) -> tuple[list[str], int, int]:
    """Distinct indented lines, and a block of them to edit."""
    names = draw(st.lists(st.text("abcdefgh", min_size=3, max_size=6), min_size=3, unique=True))
    levels = draw(st.lists(st.integers(0, 3), min_size=len(names), max_size=len(names)))
    lines = [
        "    " * level + f"{name} = call({name!r})"
        for name, level in zip(names, levels, strict=True)
    ]
    start = draw(st.integers(0, len(lines) - 1))
    end = draw(st.integers(start + 1, min(len(lines), start + 4)))
    return lines, start, end


@pytest.mark.deep
@given(
    block=python_blocks(),
    file_ending=ending,
    indent_shift=st.sampled_from([0, 2, 4, 8]),
    trailing=st.sampled_from(["", " ", "\t "]),
)
@FAST
def test_loose_match_keeps_bytes_outside_the_block(
    block: tuple[list[str], int, int], file_ending: str, indent_shift: int, trailing: str
) -> None:
    lines, start, end = block
    text = "".join(line + file_ending for line in lines)
    copied = [" " * indent_shift + line + trailing for line in lines[start:end]]
    changed = [*copied[:-1], copied[-1].replace("call", "other")]

    outcome = match_edit(text, "\n".join(copied) + "\n", "\n".join(changed) + "\n")

    assert isinstance(outcome, MatchFound)
    result = apply_replacements(text, outcome.replacements)
    head = "".join(line + file_ending for line in lines[:start])
    tail = "".join(line + file_ending for line in lines[end:])
    edited = [*lines[start : end - 1], lines[end - 1].replace("call", "other")]
    assert result == head + "".join(line + file_ending for line in edited) + tail
    strictest = Stage.EXACT if file_ending == "\n" else Stage.LINE_ENDINGS_TRAILING_WS
    if indent_shift == 0 and not trailing:
        assert outcome.stage is strictest


def _occurrences(text: str, needle: str) -> int:
    """Occurrences including overlapping ones ("===" is twice in "====")."""
    return sum(1 for i in range(len(text)) if text.startswith(needle, i))


def test_overlapping_occurrences_are_ambiguous() -> None:
    # Found by hypothesis: "===" sits at offsets 4 and 5 of "::::====".
    from harness.tools.builtin._edit_matching import MatchAmbiguous

    assert isinstance(match_edit("::::====", "===", ":"), MatchAmbiguous)
