"""The index of a folder of reports, as data: whole run dates, the layout's
choices, and the files skipped (``harness view DIR``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.view import ViewError, index_data, write_index_page
from harness.view._report_folder import read_report_folder, run_time


def _row(case: str, provider: str = "openai", verdict: Verdict = Verdict.PASS) -> EvalRow:
    return EvalRow(
        scenario=case,
        nodeid=f"evals/test_x.py::test_{case}",
        provider=provider,
        verdict=verdict,
        source=Source.SIMULATOR,
        message="" if verdict is Verdict.PASS else f"{case} went wrong",
    )


def _write(path: Path, created_at: str, *rows: EvalRow) -> Path:
    EvalReport(created_at=created_at, rows=rows).write(path)
    return path


def _embedded(page: Path) -> dict[str, Any]:
    text = page.read_text("utf-8")
    start = text.index('id="harness-data">') + len('id="harness-data">')
    data: dict[str, Any] = json.loads(text[start : text.index("</script>", start)])
    return data


def test_runs_show_whole_dates_in_utc_and_sort_by_the_moment(tmp_path: Path) -> None:
    # 10:00 at +02:00 is 08:00 UTC: earlier than 09:00Z, though it sorts later as text.
    east = _write(tmp_path / "east.json", "2026-03-01T10:00:00+02:00", _row("a"))
    utc = _write(tmp_path / "utc.json", "2026-03-01T09:00:00.123456Z", _row("a"))
    reports = [(EvalReport.model_validate_json(p.read_bytes()), str(p)) for p in (east, utc)]
    runs = index_data(reports)["runs"]
    assert [run["name"] for run in runs] == ["utc.json", "east.json"]
    assert [run["when"] for run in runs] == ["2026-03-01 09:00:00 UTC", "2026-03-01 08:00:00 UTC"]


def test_a_report_without_a_zoned_time_is_dated_by_its_file(tmp_path: Path) -> None:
    path = tmp_path / "naive.json"
    naive = {"schema_version": 3, "created_at": "2026-03-01T10:00:00", "rows": []}
    path.write_text(json.dumps(naive), "utf-8")
    os.utime(path, (1_780_000_000, 1_780_000_000))
    report = EvalReport.model_validate_json(path.read_bytes())
    found = run_time(report, path)
    assert found is not None and found.from_file
    assert found.whole == "2026-05-28 20:26:40 UTC (file time)"
    unset = EvalReport.model_validate_json(b'{"rows": []}')  # created_at: the load time
    assert run_time(unset, tmp_path / "gone.json") is None


@pytest.mark.parametrize(
    ("reports", "matrix", "provider_column", "filters"),
    [
        pytest.param([["openai", "anthropic"]], False, True, ["provider"], id="one-run"),
        pytest.param([["openai"], ["openai"]], True, False, [], id="one-provider"),
        pytest.param([["openai", "anthropic"]] * 2, True, True, ["provider"], id="full"),
    ],
)
def test_the_layout_leaves_out_a_matrix_or_column_with_nothing_to_tell_apart(
    tmp_path: Path,
    reports: list[list[str]],
    matrix: bool,
    provider_column: bool,
    filters: list[str],
) -> None:
    loaded = [
        (
            EvalReport(
                created_at=f"2026-03-0{n + 1}T00:00:00+00:00",
                rows=tuple(_row("a", provider) for provider in providers),
            ),
            f"r{n}.json",
        )
        for n, providers in enumerate(reports)
    ]
    layout = index_data(loaded)["layout"]
    assert layout["matrix"] is matrix
    assert layout["provider_column"] is provider_column
    assert layout["filters"] == filters  # one source: no source filter; none failed: no verdict
    assert layout["reason_column"] is False and layout["cost_column"] is False


def test_a_failure_brings_the_reason_column_and_the_verdict_filter() -> None:
    report = EvalReport(rows=(_row("a"), _row("b", verdict=Verdict.FAIL)))
    layout = index_data([(report, "r.json")])["layout"]
    assert layout["reason_column"] and "verdict" in layout["filters"]


def test_a_corrupt_or_foreign_report_is_skipped_with_a_note_not_a_refusal(tmp_path: Path) -> None:
    _write(tmp_path / "eval-good.json", "2026-03-01T00:00:00+00:00", _row("a"))
    (tmp_path / "eval-cut.json").write_text('{"schema_version": 3, "rows": [', "utf-8")
    (tmp_path / "eval-future.json").write_text('{"schema_version": 99, "rows": []}', "utf-8")
    bad_row = {"schema_version": 3, "rows": [{"scenario": "a", "nodeid": "x", "verdict": "maybe"}]}
    (tmp_path / "eval-invalid.json").write_text(json.dumps(bad_row), "utf-8")
    data = _embedded(write_index_page(tmp_path, tmp_path / "index.html"))
    assert [run["name"] for run in data["runs"]] == ["eval-good.json"]
    problems = {note["name"]: note["problem"] for note in data["skipped"]}
    assert set(problems) == {"eval-cut.json", "eval-future.json", "eval-invalid.json"}
    assert "corrupt" in problems["eval-cut.json"]
    assert "schema_version 99" in problems["eval-future.json"]
    assert "verdict" in problems["eval-invalid.json"]
    for problem in problems.values():  # one line each, without the file's name again
        assert "\n" not in problem and "eval-" not in problem and len(problem) <= 300


def test_a_folder_of_only_unreadable_reports_names_them(tmp_path: Path) -> None:
    (tmp_path / "eval-future.json").write_text('{"schema_version": 99, "rows": []}', "utf-8")
    with pytest.raises(ViewError, match=r"no readable eval report.*eval-future.json: has sch"):
        write_index_page(tmp_path, tmp_path / "index.html")
    assert read_report_folder(tmp_path).reports == ()
