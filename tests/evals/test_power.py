"""pass^k and the power of the gate's Fisher test, against scipy and as properties."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.evals._gate import GateSettings, Status, judge_rates
from harness.evals._stats import (
    EXACT_MAX_RUNS,
    detectable_drop,
    drop_power,
    epochs_needed,
    fisher_drop_p,
    pass_hat_k,
)


def _scipy_stats() -> Any:
    return pytest.importorskip("scipy.stats")


def _scipy_power(old_rate: float, drop: float, n1: int, n2: int, alpha: float) -> float:
    """Power by brute force with scipy: every outcome, Fisher's test on each."""
    stats = _scipy_stats()
    total = 0.0
    for x in range(n1 + 1):
        for y in range(n2 + 1):
            table = [[x, n1 - x], [y, n2 - y]]
            if stats.fisher_exact(table, alternative="greater").pvalue < alpha:
                total += stats.binom.pmf(x, n1, old_rate) * stats.binom.pmf(y, n2, old_rate - drop)
    return float(total)


@st.composite
def counts(draw: st.DrawFn, max_runs: int = 20) -> tuple[int, int]:
    runs = draw(st.integers(min_value=1, max_value=max_runs))
    return draw(st.integers(min_value=0, max_value=runs)), runs


@settings(max_examples=200, deadline=None)
@given(counts(), st.data())
def test_pass_hat_k_is_the_unbiased_estimator(count: tuple[int, int], data: st.DataObject) -> None:
    special = pytest.importorskip("scipy.special")
    passes, runs = count
    k = data.draw(st.integers(min_value=1, max_value=runs))
    expected = special.comb(passes, k, exact=True) / special.comb(runs, k, exact=True)
    assert pass_hat_k(passes, runs, k) == pytest.approx(expected, rel=1e-12)
    assert pass_hat_k(passes, runs, 1) == pytest.approx(passes / runs)
    assert pass_hat_k(passes, runs, runs) == (1.0 if passes == runs else 0.0)
    if k > 1:  # all of more runs passing is never likelier
        assert pass_hat_k(passes, runs, k) <= pass_hat_k(passes, runs, k - 1) + 1e-12


def test_pass_hat_k_refuses_k_beyond_the_runs() -> None:
    with pytest.raises(ValueError, match="1 <= k <= runs"):
        pass_hat_k(2, 3, 4)


@pytest.mark.parametrize(
    ("old_rate", "drop", "n1", "n2"),
    [
        pytest.param(1.0, 0.3, 20, 20, marks=pytest.mark.deep),
        pytest.param(0.8, 0.3, 10, 10, marks=pytest.mark.deep),
        (0.5, 0.4, 12, 7),
        pytest.param(0.9, 0.5, 3, 5, marks=pytest.mark.deep),
        (1.0, 1.0, 5, 5),
    ],
)
def test_exact_power_matches_scipy_brute_force(
    old_rate: float, drop: float, n1: int, n2: int
) -> None:
    expected = _scipy_power(old_rate, drop, n1, n2, 0.05)
    assert drop_power(old_rate, drop, n1, n2, 0.05) == pytest.approx(expected, abs=1e-12)


def test_reference_values() -> None:
    # Checked against _scipy_power; written out so a change of method shows here.
    assert drop_power(1.0, 0.3, 20, 20, 0.05) == pytest.approx(0.76249, abs=1e-4)
    assert drop_power(1.0, 0.3, 21, 21, 0.05) == pytest.approx(0.80162, abs=1e-4)
    assert detectable_drop(1.0, 20, 20, 0.05) == pytest.approx(0.3134, abs=2e-4)
    assert detectable_drop(1.0, 10, 10, 0.05) == pytest.approx(0.4837, abs=2e-4)
    # One to three runs a side: Fisher's smallest p-value is >= 0.05, nothing is detectable.
    assert [detectable_drop(1.0, n, n, 0.05) for n in (1, 2, 3)] == [None, None, None]
    assert epochs_needed(1.0, 1 / 3, 0.05) == 19


@pytest.mark.deep  # scipy's Fisher test on 2,601 tables per case
def test_the_normal_approximation_tracks_fisher_above_the_exact_range() -> None:
    n = EXACT_MAX_RUNS + 10
    for old_rate, drop in ((1.0, 0.1), (0.5, 0.2), (0.9, 0.1)):
        exact = _scipy_power(old_rate, drop, n, n, 0.05)
        assert drop_power(old_rate, drop, n, n, 0.05) == pytest.approx(exact, abs=0.06)


rates = st.integers(min_value=1, max_value=20).map(lambda k: k / 20)
alphas = st.sampled_from([0.01, 0.05, 0.1])


@settings(max_examples=150, deadline=None)
@given(rates, st.floats(0.0, 1.0), st.floats(0.0, 1.0), counts(), st.integers(1, 20), alphas)
def test_power_rises_with_the_drop(
    old_rate: float, a: float, b: float, sizes: tuple[int, int], n2: int, alpha: float
) -> None:
    n1 = sizes[1]
    small, large = sorted((a * old_rate, b * old_rate))
    assert (
        drop_power(old_rate, small, n1, n2, alpha)
        <= drop_power(old_rate, large, n1, n2, alpha) + 1e-12
    )


@settings(max_examples=100, deadline=None)
@given(rates, st.floats(0.01, 1.0), st.integers(EXACT_MAX_RUNS + 1, 2000), alphas)
def test_approximate_power_rises_with_the_runs(
    old_rate: float, share: float, runs: int, alpha: float
) -> None:
    drop = share * old_rate
    assert (
        drop_power(old_rate, drop, runs, runs, alpha)
        <= drop_power(old_rate, drop, runs + 1, runs + 1, alpha) + 1e-12
    )


def test_exact_power_is_not_monotone_in_the_runs() -> None:
    # Fisher's test is discrete: 16 runs a side see a 30-point drop less often
    # than 15 do. Hence epochs_needed asks for power at every count from N on.
    assert drop_power(1.0, 0.3, 16, 16, 0.05) < drop_power(1.0, 0.3, 15, 15, 0.05)


@settings(max_examples=60, deadline=None)
@given(rates, st.floats(0.05, 1.0), alphas)
def test_epochs_needed_reach_the_power_from_there_on(
    old_rate: float, share: float, alpha: float
) -> None:
    drop = share * old_rate
    needs = epochs_needed(old_rate, drop, alpha)
    if needs is None:  # beyond 10,000 runs a side
        assert drop_power(old_rate, drop, 10_000, 10_000, alpha) < 0.8
        return
    for n in range(needs, EXACT_MAX_RUNS + 5):
        assert drop_power(old_rate, drop, n, n, alpha) >= 0.8
    if needs > EXACT_MAX_RUNS + 1:  # the first count of the approximation that suffices
        assert drop_power(old_rate, drop, needs - 1, needs - 1, alpha) < 0.8
    larger = epochs_needed(old_rate, min(old_rate, drop * 1.5), alpha)
    assert larger is not None and larger <= needs  # a larger drop never needs more


@settings(max_examples=150, deadline=None)
@given(rates, counts(max_runs=30), st.integers(1, 30), alphas)
def test_the_detectable_drop_has_the_power_and_nothing_smaller_has(
    old_rate: float, sizes: tuple[int, int], n2: int, alpha: float
) -> None:
    n1 = sizes[1]
    drop = detectable_drop(old_rate, n1, n2, alpha)
    if drop is None:
        assert drop_power(old_rate, old_rate, n1, n2, alpha) < 0.8
        return
    assert 0 < drop <= old_rate
    assert drop_power(old_rate, drop, n1, n2, alpha) >= 0.8
    assert drop_power(old_rate, max(0.0, drop - 2e-4), n1, n2, alpha) < 0.8


@settings(max_examples=300, deadline=None)
@given(counts(), counts())
def test_a_drop_below_the_detectable_one_is_never_weaker_or_same(
    old: tuple[int, int], new: tuple[int, int]
) -> None:
    verdict = judge_rates(*old, *new, GateSettings())
    drop = old[0] / old[1] - new[0] / new[1]
    if drop <= 0:
        assert verdict.status is Status.SAME
    elif verdict.status is not Status.REGRESSION:
        seen = verdict.detectable
        if seen is None or drop < seen:
            assert verdict.status is Status.INCONCLUSIVE
            assert verdict.reason.startswith("inconclusive (needs ")
        else:
            assert verdict.status is Status.WEAKER
    # A significant drop stays a regression, whatever the power.
    if drop > 0 and fisher_drop_p(*old, *new) < 0.05:
        assert verdict.status is Status.REGRESSION


def test_a_detectable_drop_that_is_not_significant_is_weaker() -> None:
    # At 50% power the runs detect a 52-point drop from 80%; 52 points seen is not
    # significant (p 0.056): weaker, as before the gate knew its power.
    verdict = judge_rates(4, 5, 5, 18, GateSettings(power=0.5))
    assert verdict.status is Status.WEAKER and verdict.p_value > 0.05
    assert verdict.detectable is not None and verdict.drop >= verdict.detectable
    assert judge_rates(4, 5, 5, 18, GateSettings()).status is Status.INCONCLUSIVE


def test_power_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="power must be between 0 and 1"):
        GateSettings(power=1.0)
    assert math.isclose(GateSettings().power, 0.8)
