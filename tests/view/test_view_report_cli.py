"""``harness view`` on eval reports and ``--compare`` as a real subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.view import unpack_json
from tests.cli.test_view_cli import _harness
from tests.tracing.scripted_run import record_traces


def _report(path: Path, verdict: Verdict, traces: tuple[str, ...] = ()) -> Path:
    row = EvalRow(
        scenario="edit",
        nodeid="evals/test_edit.py::test_edit",
        provider="openai",
        source=Source.SIMULATOR,
        verdict=verdict,
        traces=traces,
    )
    EvalReport(rows=(row,)).write(path)
    return path


def _data(page: Path) -> dict[str, object]:
    text = page.read_text("utf-8")
    start = text.index('id="harness-data">') + len('id="harness-data">')
    data: dict[str, object] = json.loads(text[start : text.index("</script>", start)])
    return data


@pytest.mark.deep
def test_a_report_with_trace_files_gets_one_page_with_them(tmp_path: Path) -> None:
    paused, resumed = record_traces(tmp_path)
    assert paused.path is not None and resumed.path is not None
    report = _report(tmp_path / "report.json", Verdict.PASS, (str(paused.path),))
    out = tmp_path / "out.html"
    done = _harness(tmp_path, "view", str(report), str(resumed.path), "-o", str(out))
    assert done.returncode == 0, done.stderr
    data = _data(out)
    assert isinstance(data["packed"], str)
    traces = unpack_json(data["packed"])["traces"]
    assert isinstance(traces, list)
    assert [t["id"] for t in traces] == [paused.trace_id, resumed.trace_id]
    assert data["extra"] == [1]  # the trace given beside the report is listed apart


@pytest.mark.deep
def test_compare_writes_the_page_next_to_the_new_report(tmp_path: Path) -> None:
    old = _report(tmp_path / "old.json", Verdict.PASS)
    new = _report(tmp_path / "new.json", Verdict.FAIL)
    done = _harness(tmp_path, "view", "--compare", str(old), str(new))
    assert done.returncode == 0, done.stderr
    page = tmp_path / "old-vs-new.html"
    assert done.stdout.strip() == str(page.resolve())
    changes = _data(page)["changes"]
    assert isinstance(changes, list) and changes[0]["status"] == "regression"


@pytest.mark.deep
def test_compare_refuses_traces_and_extra_paths_in_one_line(tmp_path: Path) -> None:
    paused, _ = record_traces(tmp_path)
    assert paused.path is not None
    report = _report(tmp_path / "r.json", Verdict.PASS)
    trace = _harness(tmp_path, "view", "--compare", str(report), str(paused.path))
    assert trace.returncode == 2 and len(trace.stderr.splitlines()) == 1
    assert "not an eval report" in trace.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("{nope", "utf-8")
    broken = _harness(tmp_path, "view", "--compare", str(report), str(bad))
    assert broken.returncode == 2 and len(broken.stderr.splitlines()) == 1
    assert "--compare takes two eval reports" in broken.stderr
    assert "trace file" not in broken.stderr
    both = _harness(tmp_path, "view", str(report), "--compare", str(report), str(report))
    assert both.returncode == 2 and "not both" in both.stderr
    nothing = _harness(tmp_path, "view")
    assert nothing.returncode == 2 and "--compare OLD NEW" in nothing.stderr


@pytest.mark.deep
def test_a_folder_of_reports_gets_the_index(tmp_path: Path) -> None:
    _report(tmp_path / "eval-a.json", Verdict.PASS)
    _report(tmp_path / "eval-b.json", Verdict.FAIL)
    done = _harness(tmp_path, "view", str(tmp_path))
    assert done.returncode == 0, done.stderr
    page = Path(done.stdout.strip())
    assert page == (tmp_path / "harness-view.html").resolve()
    data = _data(page)
    assert [run["name"] for run in data["runs"]] == ["eval-b.json", "eval-a.json"]  # type: ignore[index]
    (case,) = data["cases"]  # type: ignore[misc]
    assert case["passes"] == 1 and case["runs"] == 2 and case["failed"]


def test_a_cassettes_folder_that_is_not_one_is_refused_in_one_line(tmp_path: Path) -> None:
    report = _report(tmp_path / "r.json", Verdict.PASS)
    done = _harness(tmp_path, "view", str(report), "--cassettes", str(tmp_path / "nowhere"))
    assert done.returncode != 0
    assert "--cassettes" in done.stderr and "is not a folder" in done.stderr


def test_a_foreign_report_in_the_folder_is_noted_and_the_rest_shown(tmp_path: Path) -> None:
    _report(tmp_path / "eval-a.json", Verdict.PASS)
    (tmp_path / "eval-b.json").write_text('{"schema_version": 99, "rows": []}', "utf-8")
    done = _harness(tmp_path, "view", str(tmp_path))
    assert done.returncode == 0, done.stderr  # it refused the whole folder before
    data = _data(Path(done.stdout.strip()))
    assert [run["name"] for run in data["runs"]] == ["eval-a.json"]  # type: ignore[index]
    (note,) = data["skipped"]  # type: ignore[misc]
    assert note["name"] == "eval-b.json" and "schema_version 99" in note["problem"]
