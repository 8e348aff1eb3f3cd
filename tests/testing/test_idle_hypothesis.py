"""Hypothesis's pytest plugin leaves a session that runs no Hypothesis test, so that
its summary never imports all of Hypothesis to print nothing; it stays where a
test (or a worker's report) needs it. Real pytest processes: the outer session has
imported Hypothesis already, so an in-process run could not show the import."""

from __future__ import annotations

import pytest

# Each process says, as it ends, whether Hypothesis got imported and whether its
# plugin is still registered. A report marked by the controller stands for a
# worker's report that carries Hypothesis's statistics.
CONFTEST = """
import os
import sys

import pytest

DURING = pytest.StashKey[bool]()
WHO = []


def pytest_configure(config):
    if not config.pluginmanager.has_plugin("hypothesispytest"):
        raise RuntimeError("Hypothesis's plugin is not loaded: the test shows nothing")
    # Not PYTEST_XDIST_WORKER: an outer xdist run hands its own down to this one.
    worker = getattr(config, "workerinput", None)
    WHO.append(worker["workerid"] if worker is not None else "main")


def pytest_runtest_setup(item):
    # Once collection is done, a process that collected no Hypothesis test has let
    # the plugin go: its report hook no longer runs on every report.
    item.config.stash.setdefault(DURING, item.config.pluginmanager.has_plugin("hypothesispytest"))


def pytest_runtest_logreport(report):
    if os.environ.get("MARK_REPORTS") and WHO == ["main"]:
        report.__dict__["_hypothesis_stats"] = "statistics of a worker's test"


def pytest_unconfigure(config):
    imported = "hypothesis" in sys.modules
    kept = config.pluginmanager.has_plugin("hypothesispytest")
    during = config.stash.get(DURING, "-")
    # One write(2) of a short line: the workers share the pipe, and print() may write
    # the text and its newline apart, so two workers' lines could run together.
    os.write(2, f"END {WHO[0]} during={during} imported={imported} kept={kept}\\n".encode())
"""

PLAIN = """
def test_plain():
    assert True
"""

GIVEN = """
from hypothesis import given, strategies as st


@given(st.integers())
def test_given(n):
    assert isinstance(n, int)
"""


def _ends(result: pytest.RunResult) -> set[str]:
    return {line.removeprefix("END ") for line in result.errlines if line.startswith("END ")}


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makeconftest(CONFTEST)
    # The suite's inner-run ini leaves Hypothesis's plugin out; these runs need it.
    pytester.makeini("[pytest]\nfilterwarnings = error\naddopts = -p no:randomly -p no:benchmark\n")
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)


def test_a_session_without_hypothesis_tests_never_imports_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain=PLAIN)
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    assert _ends(result) == {"main during=False imported=False kept=False"}


@pytest.mark.deep
def test_a_session_with_a_hypothesis_test_keeps_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain=PLAIN, test_given=GIVEN)
    result = _run(pytester)
    result.assert_outcomes(passed=2)
    assert _ends(result) == {"main during=True imported=True kept=True"}


@pytest.mark.deep
def test_the_statistics_option_keeps_the_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain=PLAIN)
    result = _run(pytester, "--hypothesis-show-statistics")
    result.assert_outcomes(passed=1)
    assert _ends(result) == {"main during=True imported=True kept=True"}
    assert "Hypothesis Statistics" in result.stdout.str()


@pytest.mark.deep
@pytest.mark.parametrize("marked", [False, True], ids=["plain", "reports-need-it"])
def test_under_xdist_the_controller_drops_it_unless_a_report_needs_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, marked: bool
) -> None:
    if marked:
        monkeypatch.setenv("MARK_REPORTS", "1")
    pytester.makepyfile(test_plain=PLAIN, test_other=PLAIN.replace("plain", "other"))
    result = _run(pytester, "-n", "2")
    result.assert_outcomes(passed=2)
    workers = {f"gw{n} during=False imported=False kept=False" for n in (0, 1)}
    # The controller runs no test; it lets the plugin go at the end, or keeps it.
    kept = "imported=True kept=True" if marked else "imported=False kept=False"
    main = f"main during=- {kept}"
    assert _ends(result) == {*workers, main}
