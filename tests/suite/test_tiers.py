"""The deep tier: deselected by default, run with ``--deep``, alone with ``--deep -m deep``."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

TESTS = """
import pytest

def test_fast():
    pass

@pytest.mark.deep
def test_everything():
    pass

@pytest.mark.parametrize("n", [1, pytest.param(2, marks=pytest.mark.deep)])
def test_sampled(n):
    pass
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest((ROOT / "conftest.py").read_text("utf-8"))
    pytester.makepyfile(test_tiered=TESTS)
    return pytester


def test_the_default_run_deselects_the_deep_tier(project: pytest.Pytester) -> None:
    result = project.runpytest_inprocess("-v")
    result.assert_outcomes(passed=2, deselected=2)
    result.stdout.fnmatch_lines(["*test_fast PASSED*", "*test_sampled?1? PASSED*"])


def test_deep_runs_both_tiers(project: pytest.Pytester) -> None:
    project.runpytest_inprocess("--deep").assert_outcomes(passed=4)


def test_deep_with_the_marker_runs_only_the_deep_tier(project: pytest.Pytester) -> None:
    result = project.runpytest_inprocess("--deep", "-m", "deep", "-v")
    result.assert_outcomes(passed=2, deselected=2)
    result.stdout.fnmatch_lines(["*test_everything PASSED*", "*test_sampled?2? PASSED*"])


def test_the_deep_tier_of_this_repo_is_not_empty() -> None:
    # Each deep test stands behind a sampled default one; the marker must be in use.
    deep = [
        path
        for path in (ROOT / "tests").rglob("test_*.py")
        if "pytest.mark.deep" in path.read_text("utf-8") and path.name != "test_tiers.py"
    ]
    assert len(deep) >= 5, deep
