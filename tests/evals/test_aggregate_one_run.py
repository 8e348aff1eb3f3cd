"""A case of one run takes a shortcut through ``CaseRuns``; it must agree with the
general derivation, which the same run twice goes through."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.evals import EvalRow, Source, Verdict
from harness.evals.aggregate import CaseRuns

FIELDS = ("steps", "llm_calls", "tool_calls", "input_tokens", "output_tokens")

rows = st.builds(
    EvalRow,
    scenario=st.just("case"),
    nodeid=st.just("evals/test_x.py::test_case[openai]"),
    provider=st.just("openai"),
    model=st.sampled_from(["gpt-4.1-mini", "claude-sonnet-4-6", "m"]),
    verdict=st.sampled_from(list(Verdict)),
    steps=st.integers(0, 50),
    llm_calls=st.integers(0, 50),
    tool_calls=st.integers(0, 50),
    input_tokens=st.integers(0, 10**6),
    output_tokens=st.integers(0, 10**6),
    duration_s=st.floats(0, 1e4, allow_nan=False),
    shape=st.none() | st.sampled_from(["", "run > llm", "run > llm > tool"]),
    source=st.sampled_from(list(Source)),
    cassette=st.none() | st.just("test_case.yaml"),
)


@given(rows)
def test_one_run_derives_what_the_same_run_twice_derives(row: EvalRow) -> None:
    key = ("case", "openai", "agent", "evals/test_x.py::test_case")
    once, twice = CaseRuns(key, (row,)), CaseRuns(key, (row, row))
    assert once.models == twice.models
    assert once.sources == twice.sources
    assert once.recordings == twice.recordings
    assert once.shapes == twice.shapes
    assert once.median_duration() == twice.median_duration()
    for field in FIELDS:
        assert once.mean(field) == twice.mean(field), field
    assert once.synthetic == twice.synthetic
    assert (once.runs, once.passes) == (twice.runs // 2, twice.passes // 2)


@given(rows, rows)
def test_a_skipped_run_counts_for_nothing_in_the_means(skipped: EvalRow, row: EvalRow) -> None:
    key = ("case", "openai", "agent", "evals/test_x.py::test_case")
    skipped = skipped.model_copy(update={"verdict": Verdict.SKIP})
    both, alone = CaseRuns(key, (skipped, row)), CaseRuns(key, (row,))
    for field in FIELDS:
        assert both.mean(field) == alone.mean(field), field
    assert both.median_duration() == alone.median_duration()
    assert both.shapes == alone.shapes
