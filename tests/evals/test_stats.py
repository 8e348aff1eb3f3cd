"""Wilson intervals and the one-sided Fisher test against scipy.stats."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.evals._stats import Interval, fisher_drop_p, wilson_interval


def _scipy_stats() -> Any:
    """scipy.stats, imported by the tests that use it, not at collection on every worker."""
    return pytest.importorskip("scipy.stats")


@st.composite
def counts(draw: st.DrawFn, max_runs: int = 60) -> tuple[int, int]:
    runs = draw(st.integers(min_value=1, max_value=max_runs))
    return draw(st.integers(min_value=0, max_value=runs)), runs


@pytest.mark.deep
@settings(max_examples=400, deadline=None)
@given(counts(max_runs=500))
def test_wilson_matches_scipy(count: tuple[int, int]) -> None:
    passes, runs = count
    expected = _scipy_stats().binomtest(passes, runs).proportion_ci(method="wilson")
    got = wilson_interval(passes, runs)
    assert got.low == pytest.approx(expected.low, abs=1e-9)
    assert got.high == pytest.approx(expected.high, abs=1e-9)
    assert 0.0 <= got.low <= passes / runs <= got.high <= 1.0


@pytest.mark.deep
@settings(max_examples=400, deadline=None)
@given(counts(), counts())
def test_fisher_matches_scipy_one_sided(old: tuple[int, int], new: tuple[int, int]) -> None:
    table = [[old[0], old[1] - old[0]], [new[0], new[1] - new[0]]]
    expected = _scipy_stats().fisher_exact(table, alternative="greater").pvalue
    got = fisher_drop_p(old[0], old[1], new[0], new[1])
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)
    assert 0.0 <= got <= 1.0


@pytest.mark.deep
@settings(max_examples=200, deadline=None)
@given(counts(), counts())
def test_a_gain_is_never_a_significant_drop(old: tuple[int, int], new: tuple[int, int]) -> None:
    if new[0] / new[1] >= old[0] / old[1]:
        assert fisher_drop_p(old[0], old[1], new[0], new[1]) >= 0.5 - 1e-12


@pytest.mark.parametrize(
    ("old", "new", "significant"),
    [
        ((20, 20), (12, 20), True),
        ((18, 20), (8, 20), True),
        ((10, 20), (8, 20), False),
        ((3, 3), (1, 3), False),  # too few runs: only the deterministic-flip rule catches it
    ],
    ids=["20-to-12", "18-to-8", "10-to-8", "3-to-1"],
)
def test_fisher_at_the_issue_examples(
    old: tuple[int, int], new: tuple[int, int], significant: bool
) -> None:
    assert (fisher_drop_p(old[0], old[1], new[0], new[1]) < 0.05) is significant


@pytest.mark.parametrize(
    ("passes", "runs", "text"),
    [(3, 3, "[44–100]"), (0, 3, "[0–56]"), (1, 1, "[21–100]"), (10, 20, "[30–70]")],
    ids=["3of3", "0of3", "1of1", "10of20"],
)
def test_wilson_renders_as_percentages(passes: int, runs: int, text: str) -> None:
    assert wilson_interval(passes, runs).render() == text


def test_no_runs_is_the_whole_range() -> None:
    assert wilson_interval(0, 0) == Interval(0.0, 1.0)
    assert fisher_drop_p(0, 0, 0, 0) == 1.0


@pytest.mark.parametrize("bad", [(-1, 3), (4, 3), (0, -1)], ids=["negative", "over", "runs"])
def test_impossible_counts_are_refused(bad: tuple[int, int]) -> None:
    with pytest.raises(ValueError, match="passes <= runs"):
        wilson_interval(*bad)
    assert math.isfinite(fisher_drop_p(1, 2, 0, 2))
