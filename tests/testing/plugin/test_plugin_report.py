"""The plugin's eval report: ``--harness-report``, ``--harness-epochs`` and xdist (pytester)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.evals import Verdict, load_report

EVAL_TESTS = """
import pytest

from harness.providers import tool_call


@pytest.mark.eval("reads")
def test_reads(harness_app, scripted_provider, workspace):
    workspace.write("a.txt", "alpha")
    scripted_provider.add(tool_call("read", path="a.txt"), "alpha it is")
    assert harness_app.run("read a.txt").text == "alpha it is"


@pytest.mark.eval
def test_breaks(harness_app, scripted_provider):
    scripted_provider.add("wrong")
    result = harness_app.run("go")
    assert result.text == "right", "verdict: the answer was wrong"


@pytest.mark.eval("sized")
@pytest.mark.parametrize("size", ["small", "big"])
def test_sized(harness_app, scripted_provider, size):
    scripted_provider.add(f"{size} done")
    assert harness_app.run(size).text == f"{size} done"


@pytest.mark.eval("leftover")
def test_leftover(harness_app, scripted_provider):
    scripted_provider.add("used", "left over")
    harness_app.run("go")


def test_not_an_eval(harness_app, scripted_provider):
    scripted_provider.add("fine")
    assert harness_app.run("go").text == "fine"
"""

READ_SHAPE = "agent.run\n  agent.step\n    llm.call\n    tool.call read\n  agent.step\n    llm.call"
ANSWER_SHAPE = "agent.run\n  agent.step\n    llm.call"


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Run pytest in process (configured by the ``pytester`` of tests/conftest.py)."""
    return pytester.runpytest(*args)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A generated project of eval tests, with warnings as errors."""
    pytester.makepyfile(test_evals=EVAL_TESTS)
    return pytester


def report_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of a report file, read through the validating loader."""
    return [row.model_dump(mode="json") for row in load_report(path).rows]


def test_report_has_one_row_per_eval_test(project: pytest.Pytester) -> None:
    path = project.path / "out" / "report.json"
    run(project, "--harness-report", str(path)).assert_outcomes(passed=5, failed=1, errors=1)
    rows = {row["nodeid"]: row for row in report_rows(path)}
    assert sorted(rows) == [
        "test_evals.py::test_breaks",
        "test_evals.py::test_leftover",
        "test_evals.py::test_reads",
        "test_evals.py::test_sized[big]",
        "test_evals.py::test_sized[small]",
    ]
    reads = rows["test_evals.py::test_reads"]
    assert reads["scenario"] == "reads" and reads["verdict"] == "pass" and reads["message"] == ""
    assert (reads["steps"], reads["tool_calls"], reads["llm_calls"]) == (2, 1, 2)
    assert (reads["input_tokens"], reads["output_tokens"]) == (0, 3)  # scripted: words out
    assert (reads["provider"], reads["model"], reads["shape"]) == (
        "scripted",
        "scripted",
        READ_SHAPE,
    )

    breaks = rows["test_evals.py::test_breaks"]
    assert (breaks["scenario"], breaks["verdict"]) == ("test_breaks", "fail")
    assert "verdict: the answer was wrong" in breaks["message"]
    assert breaks["shape"] == ANSWER_SHAPE

    leftover = rows["test_evals.py::test_leftover"]
    assert leftover["verdict"] == "error"
    assert "ScriptedProvider has 1 unused turn(s)" in leftover["message"]

    sized = [rows[f"test_evals.py::test_sized[{s}]"] for s in ("small", "big")]
    assert [(r["scenario"], r["verdict"]) for r in sized] == [
        ("sized[small]", "pass"),
        ("sized[big]", "pass"),
    ]


@pytest.mark.parametrize(
    "style",
    [
        "auto",
        "short",
        "line",
        "no",
        "native",
    ],
)
def test_failure_messages_do_not_depend_on_the_traceback_style(
    project: pytest.Pytester, style: str
) -> None:
    path = project.path / "report.json"
    run(project, "--harness-report", str(path), f"--tb={style}", "-k", "breaks or leftover")
    rows = {row["scenario"]: row["message"] for row in report_rows(path)}
    assert "AssertionError: verdict: the answer was wrong" in rows["test_breaks"]
    assert "ScriptedProvider has 1 unused turn(s)" in rows["leftover"]


@pytest.mark.deep
def test_epochs_repeat_only_eval_tests(project: pytest.Pytester) -> None:
    path = project.path / "report.json"
    result = run(project, "--harness-report", str(path), "--harness-epochs", "3")
    result.assert_outcomes(passed=1 + 4 * 3, failed=3, errors=3)
    rows = report_rows(path)
    assert len(rows) == 5 * 3
    reads = [row for row in rows if row["scenario"] == "reads"]
    assert sorted(row["nodeid"] for row in reads) == [
        f"test_evals.py::test_reads[epoch{n}]"
        for n in range(1, 4)  # epochs count from 1
    ]
    assert {row["verdict"] for row in reads} == {Verdict.PASS.value}
    assert sum(row["scenario"] == "sized[big]" for row in rows) == 3


@pytest.mark.deep
def test_xdist_report_rows_equal_the_serial_ones(project: pytest.Pytester) -> None:
    serial, parallel = project.path / "serial.json", project.path / "parallel.json"
    run(project, "--harness-report", str(serial)).assert_outcomes(passed=5, failed=1, errors=1)
    run(project, "--harness-report", str(parallel), "-n", "2").assert_outcomes(
        passed=5, failed=1, errors=1
    )

    documents = [json.loads(path.read_text("utf-8")) for path in (serial, parallel)]
    for document in documents:
        del document["created_at"]
        for row in document["rows"]:
            del row["duration_s"], row["import_s"], row["traces"]  # run-specific times
    assert len(documents[0]["rows"]) == 5
    assert documents[1] == documents[0]


def test_every_eval_test_gets_a_row(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    pytester.makepyfile(
        """
        import pytest


        @pytest.mark.eval("plain")
        def test_plain(tmp_path):
            assert not tmp_path.exists(), "verdict: the folder exists"


        @pytest.mark.eval("live")
        @pytest.mark.live
        def test_live(harness_run_log):
            pass
        """
    )
    path = pytester.path / "report.json"
    run(pytester, "--harness-report", str(path)).assert_outcomes(failed=1, skipped=1)
    rows = sorted((row["scenario"], row["verdict"]) for row in report_rows(path))
    assert rows == [("live", "skip"), ("plain", "fail")]
