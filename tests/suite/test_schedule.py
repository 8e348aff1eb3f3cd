"""The suite's scheduler (tests/suite/schedule.py): every test runs once, a group on one worker."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LOOSE = """
import os

import pytest

@pytest.mark.parametrize("n", range(60))
def test_loose(n):
    print("ran", os.environ["PYTEST_XDIST_WORKER"])
"""

GROUPED = """
import os

import pytest

pytestmark = pytest.mark.xdist_group("heavy")

@pytest.mark.parametrize("n", range(12))
def test_grouped(n):
    print("group", os.environ["PYTEST_XDIST_WORKER"])
"""


@pytest.mark.deep  # starts two xdist workers; every default run uses the scheduler anyway
def test_every_test_runs_once_and_a_group_stays_on_one_worker(pytester: pytest.Pytester) -> None:
    pytester.makeconftest((ROOT / "conftest.py").read_text("utf-8"))
    pytester.makepyfile(test_loose=LOOSE, test_grouped=GROUPED)
    result = pytester.runpytest_subprocess("-n", "2", "-rA", "-p", "no:randomly")
    result.assert_outcomes(passed=72)
    out = result.stdout.str()
    assert "BatchedGroupScheduling" not in out  # no scheduler error printed
    workers = {line.split()[-1] for line in out.splitlines() if line.startswith("group ")}
    assert len(workers) == 1, workers
    loose = {line.split()[-1] for line in out.splitlines() if line.startswith("ran ")}
    assert loose == {"gw0", "gw1"}, loose
