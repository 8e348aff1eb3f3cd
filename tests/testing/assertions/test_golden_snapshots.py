"""Golden trace shapes stored by syrupy: written, compared in outline text, reported."""

from __future__ import annotations

import pytest

from tests.testing.plugin.test_plugin import GOLDEN_TEST

pytest.importorskip("syrupy")

READ_OUTLINE = (
    "agent.run\n  agent.step\n    llm.call\n    tool.call read\n  agent.step\n    llm.call\n"
)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(test_shape=GOLDEN_TEST)
    monkeypatch.setenv("GOLDEN_TOOL", "read")
    # Under xdist this test runs in a worker, and syrupy takes any process with
    # PYTEST_XDIST_WORKER set for one: the inner run would leave its report to a
    # controller that does not exist, and print none.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    return pytester


def golden(project: pytest.Pytester, name: str = "test_golden") -> str:
    return str(project.path / "evals" / "shapes" / "scripted" / "scripted" / f"{name}.txt")


@pytest.mark.deep
def test_snapshot_update_writes_the_outline_then_it_matches(project: pytest.Pytester) -> None:
    missing = project.runpytest()
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*test_golden.txt does not exist*--snapshot-update*"])

    written = project.runpytest("--snapshot-update")
    written.assert_outcomes(passed=1)
    written.stdout.fnmatch_lines(["*1 snapshot generated*"])
    with open(golden(project), encoding="utf-8") as stored:
        assert stored.read() == READ_OUTLINE

    again = project.runpytest()
    again.assert_outcomes(passed=1)
    again.stdout.fnmatch_lines(["*1 snapshot passed*"])


@pytest.mark.deep
def test_a_changed_trace_fails_with_an_outline_diff(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.runpytest("--snapshot-update").assert_outcomes(passed=1)
    monkeypatch.setenv("GOLDEN_TOOL", "write")
    changed = project.runpytest()
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(
        [
            "*test_golden.txt differs from this run's trace*--snapshot-update*",
            "*- *tool.call read*",
            "*+ *tool.call write*",
        ]
    )
    with open(golden(project), encoding="utf-8") as stored:
        assert stored.read() == READ_OUTLINE  # a failing run leaves the golden alone


@pytest.mark.deep
def test_a_golden_no_test_uses_is_reported_then_deleted(project: pytest.Pytester) -> None:
    project.runpytest("--snapshot-update").assert_outcomes(passed=1)
    stale = golden(project, "test_removed")
    with open(stale, "w", encoding="utf-8") as handle:
        handle.write(READ_OUTLINE)

    report = project.runpytest()
    report.stdout.fnmatch_lines(["*1 snapshot passed. 1 snapshot unused.*"])
    assert report.ret != 0  # syrupy fails a run that leaves a golden unused

    project.runpytest("--snapshot-update").stdout.fnmatch_lines(["*1 unused snapshot deleted*"])
    assert not (project.path / stale).exists()
    assert (project.path / golden(project)).exists()


@pytest.mark.deep
def test_without_syrupy_the_outline_file_is_compared_directly(project: pytest.Pytester) -> None:
    project.runpytest("-p", "no:syrupy", "--update-shapes").assert_outcomes(passed=1)
    with open(golden(project), encoding="utf-8") as stored:
        assert stored.read() == READ_OUTLINE
    plain = project.runpytest("-p", "no:syrupy")
    plain.assert_outcomes(passed=1)
    assert "snapshot" not in plain.stdout.str()
    # The file written without syrupy is the one syrupy reads.
    project.runpytest().stdout.fnmatch_lines(["*1 snapshot passed*"])
