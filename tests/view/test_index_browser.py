"""The index of a folder of eval reports (``harness view DIR``) in a real headless
Chromium: runs newest first, the case x run matrix, failed cases first, filters."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.view import index_data, load_view_input, write_index_page
from tests.view.reports import synthetic_reports

HOSTILE = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"


def _open(page: Any, html: Path) -> None:
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']")


def _visible_cases(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "tr.case", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.case)"
        )
    )


def test_the_index_shows_runs_newest_first_and_the_case_matrix(
    page: Any, shots: Path, tmp_path: Path
) -> None:
    files = synthetic_reports(tmp_path, reports=5, cases=8)
    html = write_index_page(tmp_path, tmp_path / "index.html")
    _open(page, html)
    page.screenshot(path=str(shots / "index.png"), full_page=True)
    runs = page.eval_on_selector_all("tr.run", "rows => rows.map(r => r.dataset.source)")
    assert runs == [str(path) for path in reversed(files)]  # newest first

    reports = [load_view_input(path) for path in files]
    assert all(isinstance(report, EvalReport) for report in reports)
    cases = page.locator("tr.case")
    assert cases.count() == 8
    # Failed cases first: every case that failed in some run comes before any that never did.
    failed = [f"case-{c:03d}" for c in range(8) if any((c * 3 + r) % 7 == 0 for r in range(5))]
    shown = _visible_cases(page)
    assert set(shown[: len(failed)]) == set(failed) and len(failed) < 8
    # One cell per run, newest left: case-000 fails in run 0 (the oldest), so its last cell.
    row = page.locator('tr.case[data-case="case-000"]')
    verdicts = row.locator("td[data-verdict]").evaluate_all("ts => ts.map(t => t.dataset.verdict)")
    assert verdicts == ["pass", "pass", "pass", "pass", "fail"]
    assert row.locator(".rate").text_content() == "80%"
    assert "lacks the marker" in (row.locator(".reason").text_content() or "")
    title = row.locator("td[data-verdict='fail'] .cell").get_attribute("title") or ""
    assert "eval-000.json" in title and "lacks the marker" in title


def test_filters_and_search_hide_and_show_rows(page: Any, shots: Path, tmp_path: Path) -> None:
    synthetic_reports(tmp_path, reports=4, cases=12)
    _open(page, write_index_page(tmp_path, tmp_path / "index.html"))
    assert len(_visible_cases(page)) == 12
    page.select_option("#f-provider", "anthropic")
    assert len(_visible_cases(page)) == 6
    assert all(int(name[-3:]) % 2 == 1 for name in _visible_cases(page))
    page.select_option("#f-source", "live")  # case % 3 == 0, odd: 3 and 9
    assert set(_visible_cases(page)) == {"case-003", "case-009"}
    page.select_option("#f-provider", "")
    page.select_option("#f-source", "")
    page.select_option("#f-verdict", "passing")
    passing = set(_visible_cases(page))
    page.select_option("#f-verdict", "failed")
    failing = set(_visible_cases(page))
    assert passing and failing and not passing & failing and len(passing | failing) == 12
    page.screenshot(path=str(shots / "index-failed.png"), full_page=True)
    page.select_option("#f-verdict", "")
    page.fill("#f-text", "case-004 LACKS")  # a failure reason's words, any case
    assert _visible_cases(page) == ["case-004"]
    page.fill("#f-text", "")
    assert len(_visible_cases(page)) == 12
    assert page.text_content("#shown") == "12 of 12 cases"


def test_hostile_names_stay_text_and_a_case_missing_from_a_run_is_marked(
    page: Any, tmp_path: Path
) -> None:
    def row(case: str, verdict: Verdict) -> EvalRow:
        return EvalRow(
            scenario=case,
            nodeid=f"e::{case}",
            verdict=verdict,
            source=Source.SCRIPTED,
            message=HOSTILE if verdict is Verdict.FAIL else "",
        )

    old = EvalReport(created_at="2026-01-01T00:00:00+00:00", rows=(row(HOSTILE, Verdict.PASS),))
    new = EvalReport(
        created_at="2026-02-01T00:00:00+00:00",
        rows=(row(HOSTILE, Verdict.FAIL), row("added", Verdict.PASS)),
    )
    old.write(tmp_path / "a.json")
    new.write(tmp_path / "b.json")
    (tmp_path / "not-a-report.json").write_text('{"root": {}}', "utf-8")
    _open(page, write_index_page(tmp_path, tmp_path / "index.html"))
    assert page.locator("tr.run").count() == 2
    assert page.locator("tr.case .case-name").first.text_content() == HOSTILE
    added = page.locator('tr.case[data-case="added"] td[data-verdict]')
    assert added.evaluate_all("ts => ts.map(t => t.dataset.verdict)") == ["pass", "none"]
    assert page.evaluate("window.pwned") is None


def test_index_data_groups_epochs_into_one_cell() -> None:
    rows = tuple(
        EvalRow(scenario="c", nodeid="e::c", verdict=v, epoch=i, source=Source.SCRIPTED)
        for i, v in enumerate([Verdict.PASS, Verdict.FAIL])
    )
    data = index_data([(EvalReport(rows=rows), "r.json")])
    (case,) = data["cases"]
    assert case["cells"] == [[1, 2, "mixed"]] and case["failed"] and case["rate"] == 0.5
