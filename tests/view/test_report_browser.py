"""The eval-report and compare pages in a real headless Chromium, from file://,
on a real report written by ``harness eval`` (the committed suite, replayed).

Screenshots of each page go to the test's tmp dir (``*.png``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.evals import EvalReport, EvalRow, Verdict, load_report
from harness.evals.aggregate import aggregate_rows
from harness.evals.mutant_results import MutantOutcome, MutantResult
from harness.evals.provenance import Source
from harness.tracing import TraceTree
from harness.view import write_compare_page, write_view_page
from tests.view.reports import ROOT, edited, remove, run_harness_eval

pytestmark = pytest.mark.deep

HOSTILE = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2><!--"


@pytest.fixture(scope="module")
def real_report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A report of ``harness eval --epochs 2`` on two scenarios of the committed suite."""
    report = tmp_path_factory.mktemp("eval") / "report.json"
    left = run_harness_eval(report)
    try:
        yield report
    finally:
        remove(left)


def _open(page: Any, html: Path) -> None:
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']")


def test_report_page_shows_every_case_with_its_source_and_trace(
    page: Any, shots: Path, real_report: Path, tmp_path: Path
) -> None:
    report = load_report(real_report)
    cases = aggregate_rows(report.rows)
    # Two scenarios on each of the suite's four providers (chat, messages, responses,
    # gemini).
    assert len(cases) == 8 and all(runs.runs == 2 for runs in cases.values())
    kept = {Path(path).parent for row in report.rows for path in row.traces}
    assert kept == {real_report.with_name("report-traces")}  # beside the report, not in /tmp
    html = write_view_page([real_report], tmp_path / "report.html")
    _open(page, html)
    page.screenshot(path=str(shots / "report-page.png"), full_page=True)

    rows = page.locator("tr.case-row")
    assert rows.count() == len(cases)
    for (case, provider, *_), runs in cases.items():
        row = page.locator(f'tr.case-row[data-case="{case}"][data-provider="{provider}"]')
        assert row.count() == 1, (case, provider)
        sources = "+".join(source.value for source in runs.sources)
        assert row.get_attribute("data-source") == sources == "simulator"
        assert row.locator("td.source").text_content() == "simulator "
        assert row.locator(".badge").text_content() == "2/2 100%"
        assert "95% CI 34%–100%" in (row.locator(".interval").text_content() or "")
        # pass^2 (both epochs passed) with the Wilson interval to the square.
        assert row.locator(".pass-k").text_content() == "pass^2 100% [12%–100%]"
        assert row.locator(".synthetic").count() == 1  # simulator tokens are marked
        # One trace button per trace file of each epoch's runs.
        assert row.locator(".trace-link").count() == sum(len(r.traces) for r in runs.rows) >= 2

    # A run's trace opens in the same file: the trace page, in a frame.
    first = page.locator('tr.case-row[data-case="edit"] .trace-link').first
    first.click()
    frame = page.frame_locator("#viewer-frame")
    frame.locator('.row[data-kind="agent.run"]').wait_for()
    assert frame.locator('.row[data-kind="llm.call"]').count() >= 1
    assert page.text_content("#viewer-path") == first.get_attribute("title")
    page.screenshot(path=str(shots / "report-trace.png"))
    page.click("#viewer-close")
    assert page.locator("#viewer").is_hidden()


def test_the_trace_modal_shows_a_clicked_span_in_a_wide_pane(
    page: Any, shots: Path, real_report: Path, tmp_path: Path
) -> None:
    # A report's run has one trace per button: the one-trace layout, in a frame.
    html = write_view_page([real_report], tmp_path / "report.html")
    _open(page, html)
    link = page.locator('tr.case-row[data-case="edit"] .trace-link').first
    expected = TraceTree.load(Path(link.get_attribute("title") or ""))
    link.click()
    frame = page.frame_locator("#viewer-frame")
    row = frame.locator('.row[data-kind="llm.call"]').first
    llm = expected.span_by_id(row.get_attribute("data-span-id") or "")
    assert llm is not None
    row.click()
    details = frame.locator("#details")
    page.screenshot(path=str(shots / "report-trace-details.png"))
    assert details.bounding_box()["width"] >= 300
    assert details.locator("h3").text_content() == "llm.call"
    keys = details.locator("td.attr-key").all_text_contents()
    assert llm.attributes and set(llm.attributes) <= set(keys)


GREETING = "SENTINEL-GREET-7F3A91C4E2"  # in fixtures/: the model can only know it by a read


def test_a_replayed_rows_transcript_shows_the_tool_result_and_the_final_answer(
    page: Any, shots: Path, real_report: Path, tmp_path: Path
) -> None:
    # The eval's traces are metadata-mode: the transcript comes from the cassette.
    cassettes = [ROOT / "cassettes"]
    html = write_view_page([real_report], tmp_path / "report.html", cassettes)
    _open(page, html)
    row = page.locator('tr.case-row[data-case="edit"][data-provider="openai"]')
    assert row.locator(".tx-link").count() == 2  # one per epoch
    row.locator(".tx-link").first.click()
    pane = page.locator("#viewer-tx")
    pane.locator(".tx-entry").first.wait_for()
    page.screenshot(path=str(shots / "report-transcript.png"))
    kinds = pane.locator(".tx-entry").evaluate_all("es => es.map(e => e.dataset.type)")
    assert kinds[:3] == ["msg", "msg", "answer"] and kinds[-1] == "final"
    assert pane.locator(".tx-msg.role-system").count() == 1
    assert "greeting.txt" in (pane.locator(".tx-msg.role-user").text_content() or "")
    reads = pane.locator('.tx-entry[data-type="tool"]', has_text="tool result · read")
    assert GREETING in (reads.first.locator(".tx-text").text_content() or "")
    calls = pane.locator(".tx-call").all_text_contents()
    assert '→ read {"path": "greeting.txt"}' in calls
    final = pane.locator('.tx-entry[data-type="final"] .tx-text').text_content() or ""
    assert GREETING in final
    assert "test_edit_flow" in (page.text_content("#viewer-path") or "")
    page.click("#viewer-close")

    # The run's trace (metadata mode) opens with the same transcript beside its waterfall.
    row.locator(".trace-link").first.click()
    frame = page.frame_locator("#viewer-frame")
    frame.locator('.row[data-kind="agent.run"]').wait_for()
    frame.locator("#show-transcript").click()
    shown = frame.locator('#transcript .tx-entry[data-type="final"] .tx-text')
    assert GREETING in (shown.text_content() or "")
    assert frame.locator("#waterfall").is_hidden()
    page.screenshot(path=str(shots / "report-trace-transcript.png"))


def test_a_row_whose_trace_file_is_gone_says_so(
    page: Any, shots: Path, real_report: Path, tmp_path: Path
) -> None:
    def hostile(row: dict[str, Any]) -> bool:
        if (row["scenario"], row["provider"]) == ("edit", "openai"):
            row.update(verdict="fail", message=HOSTILE)
            row["traces"] = [str(tmp_path / "gone.json")]
        return True

    html = write_view_page(
        [edited(real_report, tmp_path / "r.json", hostile)], tmp_path / "report.html"
    )
    _open(page, html)
    row = page.locator('tr.case-row[data-case="edit"][data-provider="openai"]')
    assert row.locator(".trace-link").count() == 0
    assert row.locator(".trace-missing").count() == 2  # both epochs point at the gone file
    assert "gone" in (row.locator(".trace-missing").first.get_attribute("title") or "")
    assert row.locator(".badge").text_content() == "0/2 0%"
    assert HOSTILE in (row.locator(".reason").text_content() or "")
    assert page.evaluate("window.pwned") is None
    page.screenshot(path=str(shots / "report-missing.png"), full_page=True)


def test_compare_page_puts_the_regression_first(
    page: Any, shots: Path, real_report: Path, tmp_path: Path
) -> None:
    def regress(row: dict[str, Any]) -> bool:
        key = (row["scenario"], row["provider"])
        if key == ("edit", "openai"):  # 2/2 -> 0/2: every old run passed, all lost
            row.update(verdict="fail", message="verdict: greeting.py is unchanged")
        if key == ("subagent", "anthropic"):
            read = "tool.call read\n"
            row["shape"] = row["shape"].replace(read, read + "    tool.call bash\n", 1)
        if key == ("subagent", "openai"):
            row["source"] = "live"
        return key != ("edit", "anthropic")  # not run in the new report

    new = edited(real_report, tmp_path / "new.json", regress)
    html = write_compare_page(
        real_report, new, tmp_path / "compare.html", cassettes=[ROOT / "cassettes"]
    )
    _open(page, html)
    page.screenshot(path=str(shots / "compare-page.png"), full_page=True)

    statuses = page.eval_on_selector_all(
        "tr.change", "rows => rows.map(r => [r.dataset.case, r.dataset.provider, r.dataset.status])"
    )
    assert statuses[0] == ["edit", "openai", "regression"]
    assert [s[2] for s in statuses] == [
        "regression",
        "changed",
        "changed",
        "same",
        "same",
        "same",
        "same",
        "not run",
    ]
    assert {s[1] for s in statuses if s[2] == "same"} == {"openai-responses", "gemini"}
    assert statuses[-1] == ["edit", "anthropic", "not run"]
    first = page.locator("tr.change").first
    assert first.locator(".badge").text_content() == "REGRESSION"
    assert first.locator(".rate .old").text_content() == "2/2 100%"
    assert first.locator(".rate .new").text_content() == "0/2 0%"
    assert float(first.locator("td.num").first.text_content() or "nan") < 1

    # The sources differ (one row is now live): the page warns.
    warning = page.locator("#source-warning")
    assert warning.is_visible() and "different sources" in (warning.text_content() or "")
    assert page.text_content('[data-side="new"] [data-fact="sources"] .v') == "live, simulator"

    # The changed outline, side by side, the added span highlighted on the new side.
    shape = page.locator('tr.shape-row[data-case="subagent"]')
    assert shape.is_hidden()
    page.locator('tr.change[data-case="subagent"][data-provider="anthropic"] .shape-toggle').click()
    assert shape.is_visible()
    inserted = shape.locator("tr.op-insert")
    assert inserted.count() == 1
    assert inserted.locator("td.new").text_content() == "    tool.call bash"
    assert inserted.locator("td.old").text_content() == ""
    assert shape.locator("tr.op-equal").count() >= 3
    page.screenshot(path=str(shots / "compare-shape.png"), full_page=True)

    # The regression's answers, old beside new, each run linking its trace and transcript.
    answers = page.locator('tr.answers-row[data-case="edit"][data-provider="openai"]')
    assert answers.is_visible()
    old_runs = answers.locator('[data-side="old"] .run')
    new_runs = answers.locator('[data-side="new"] .run')
    assert old_runs.count() == new_runs.count() == 2
    assert [r.get_attribute("data-verdict") for r in new_runs.all()] == ["fail", "fail"]
    assert GREETING in (old_runs.first.locator(".answer").text_content() or "")
    assert "greeting.py is unchanged" in (new_runs.first.locator(".message").text_content() or "")
    assert old_runs.first.locator(".trace-link").count() >= 1
    assert new_runs.first.locator(".tx-link").count() == 1
    # A case that is the same keeps its answers folded away, built when asked for.
    assert page.locator('tr.answers-row[data-provider="openai-responses"]').count() == 0
    same = page.locator('tr.change[data-provider="openai-responses"]').first
    same.locator(".answers-toggle").click()
    shown = page.locator('tr.answers-row[data-provider="openai-responses"]')
    assert shown.count() == 1 and shown.is_visible()
    assert same.evaluate("r => r.nextElementSibling.classList.contains('answers-row')")
    answers.locator(".tx-pair").click()
    # The pair is built after the packed transcripts are decoded (a promise): wait for it.
    page.wait_for_selector("body[data-open-transcript='pair']", state="attached")
    columns = page.locator("#viewer-tx .tx-cols > div")
    assert columns.count() == 2
    assert columns.nth(0).get_attribute("data-side") == "old"
    for column in columns.all():
        final = column.locator('.tx-entry[data-type="final"] .tx-text').text_content() or ""
        assert GREETING in final
    page.screenshot(path=str(shots / "compare-transcripts.png"))
    page.click("#viewer-close")
    new_runs.first.locator(".trace-link").first.click()
    page.frame_locator("#viewer-frame").locator('.row[data-kind="agent.run"]').wait_for()


def test_a_hostile_trace_opens_in_its_frame_as_text(page: Any, shots: Path, tmp_path: Path) -> None:
    from harness.tracing import Tracer

    tracer = Tracer(mode="replay")
    root = tracer.begin_trace("agent.run")
    tracer.set_payload(root, "prompt", HOSTILE + " $& $1 __HARNESS_VIEW_DATA__")
    tree = tracer.end_trace(root)
    assert tree is not None
    trace = tmp_path / "hostile-trace.json"
    trace.write_text(tree.to_json(), "utf-8")
    row = EvalRow(
        scenario=HOSTILE,
        nodeid="e::x",
        provider="openai",
        verdict=Verdict.PASS,
        source=Source.LIVE,
        traces=(str(trace),),
    )
    html = write_view_page([_write_report(tmp_path, EvalReport(rows=(row,)))], tmp_path / "h.html")
    _open(page, html)
    assert page.text_content("tr.case-row .case-name") == HOSTILE
    page.click(".trace-link")
    frame = page.frame_locator("#viewer-frame")
    frame.locator('.row[data-kind="agent.run"]').click()
    shown = frame.locator("#details pre.payload").text_content()
    assert shown == HOSTILE + " $& $1 __HARNESS_VIEW_DATA__"
    assert page.evaluate("window.pwned") is None
    assert page.frames[1].evaluate("window.pwned") is None
    page.screenshot(path=str(shots / "hostile-trace.png"))


def test_a_judged_runs_transcript_ends_with_the_judges_verdict_and_reason(
    page: Any, shots: Path, tmp_path: Path
) -> None:
    from harness.evals.judge import JudgeResult
    from tests.tracing.scripted_run import record_traces

    _, resumed = record_traces(tmp_path, trace_mode="replay")
    reason = "the answer never names the file " + HOSTILE
    row = EvalRow(
        scenario="judged",
        nodeid="e::judged",
        provider="openai",
        verdict=Verdict.FAIL,
        source=Source.SCRIPTED,
        traces=(str(resumed.path),),
        judge=JudgeResult(verdict="fail", reason=reason, model="judge-model"),
    )
    html = write_view_page([_write_report(tmp_path, EvalReport(rows=(row,)))], tmp_path / "j.html")
    _open(page, html)
    page.click(".tx-link")
    last = page.locator("#viewer-tx .tx-entry").last
    last.wait_for()
    assert last.get_attribute("data-type") == "judge"
    assert last.locator("b").text_content() == "judge: fail"
    assert last.locator(".tx-text").text_content() == reason
    final = page.locator('#viewer-tx .tx-entry[data-type="final"] .tx-text')
    assert final.text_content() == "Wrote deploy-key.txt after approval."
    assert page.evaluate("window.pwned") is None
    page.screenshot(path=str(shots / "judged-transcript.png"))


def test_the_mutants_section_lists_each_eval_and_its_survivors(
    page: Any, shots: Path, tmp_path: Path
) -> None:
    def result(eval_id: str, mutant: str, outcome: MutantOutcome, order: int) -> MutantResult:
        return MutantResult(
            eval_nodeid=eval_id,
            scenario=eval_id.split("::")[1],
            provider="openai",
            model="gpt-4.1-mini",
            source=Source.SIMULATOR,
            mutant=mutant,
            operator=mutant.split("-")[0],
            description=f"{mutant} of the recorded answers",
            order=order,
            outcome=outcome,
        )

    mutants = (
        result("e::edit", "original", MutantOutcome.PASS, 0),
        result("e::edit", "drop-1", MutantOutcome.KILLED, 1),
        result("e::edit", "swap-2", MutantOutcome.KILLED, 2),
        result("e::policy", "original", MutantOutcome.PASS, 0),
        result("e::policy", "drop-1", MutantOutcome.KILLED, 1),
        result("e::policy", "truncate-2", MutantOutcome.SURVIVED, 2),
    )
    report = EvalReport(mutants=mutants)
    _open(page, write_view_page([_write_report(tmp_path, report)], tmp_path / "m.html"))
    assert page.locator("#mutants-section").is_visible()
    edit = page.locator('tr.mutant-row[data-eval="e::edit"]')
    policy = page.locator('tr.mutant-row[data-eval="e::policy"]')
    assert edit.locator("td.num").text_content() == "2/2"
    assert edit.locator("ul.survivors").count() == 0
    assert policy.locator("td.num").text_content() == "1/2"
    assert edit.locator(".badge").text_content() == "ok"
    assert policy.locator(".badge").text_content() == "1 survived"
    survivors = policy.locator("ul.survivors li").all_text_contents()
    assert survivors == ["truncate-2 (truncate): truncate-2 of the recorded answers"]
    page.screenshot(path=str(shots / "mutants.png"), full_page=True)


def test_model_names_stay_whole_and_a_long_reason_says_there_is_more(
    page: Any, shots: Path, tmp_path: Path
) -> None:
    reason = "\n".join(f"line {i} of why the case failed" for i in range(12))

    def row(case: str, verdict: Verdict, message: str = "") -> EvalRow:
        return EvalRow(
            scenario=case,
            nodeid=f"e::{case}",
            provider="anthropic",
            model="claude-sonnet-4-6",
            verdict=verdict,
            source=Source.LIVE,
            message=message,
        )

    page.set_viewport_size({"width": 1000, "height": 800})  # where the name used to break
    failing = EvalReport(rows=(row("edit", Verdict.FAIL, reason), row("plan", Verdict.PASS)))
    _open(page, write_view_page([_write_report(tmp_path, failing)], tmp_path / "f.html"))
    page.screenshot(path=str(shots / "report-layout.png"), full_page=True)
    models = page.locator("tr.case-row td:nth-child(2) .mono")
    assert models.all_text_contents() == ["claude-sonnet-4-6"] * 2
    lines = models.evaluate_all(
        "ms => ms.map(m => m.offsetHeight / parseFloat(getComputedStyle(m).lineHeight))"
    )
    assert all(count < 1.5 for count in lines), lines  # one line: the name did not break
    shown = page.locator('tr.case-row[data-case="edit"] .reason')
    assert shown.text_content() == "fail: " + reason  # all of it is there, cut only on screen
    box = shown.evaluate("r => [r.clientHeight, r.scrollHeight, getComputedStyle(r).overflowY]")
    assert box[0] < box[1] and box[2] == "hidden"  # no scrolling inside the box
    more = page.locator('tr.case-row[data-case="edit"] .reason-more')
    assert (
        more.is_visible() and more.text_content() == f"show all (12 lines, {len(reason) + 6} chars)"
    )
    more.click()
    assert shown.evaluate("r => r.clientHeight >= r.scrollHeight")
    assert more.text_content() == "show less"
    assert page.locator('tr.case-row[data-case="plan"] .reason-more').count() == 0

    passing = EvalReport(rows=(row("edit", Verdict.PASS), row("plan", Verdict.PASS)))
    _open(page, write_view_page([_write_report(tmp_path, passing)], tmp_path / "p.html"))
    # No column that is empty in every row: no failure, no cost (live, but no token
    # counted), no trace; each named in the note under the table.
    heads = page.locator("#cases thead th").all_text_contents()
    assert heads == ["case", "provider / model", "source", "result"]
    note = page.text_content("#case-notes") or ""
    assert "Not shown: steps (no run counted a step)" in note and "cost (no run is priced)" in note
    assert "trace (no run has a trace file or a transcript" in note and "failure" not in note
    assert page.locator('#summary [data-fact="cost"]').count() == 0
    assert page.locator("#mutants-section").is_hidden()  # no mutant was run
    page.screenshot(path=str(shots / "report-no-failures.png"), full_page=True)


def _write_report(folder: Path, report: EvalReport) -> Path:
    path = folder / "constructed-report.json"
    report.write(path)
    return path


def test_a_big_reports_rows_all_come_aligned_and_a_late_long_reason_folds_on_screen(
    page: Any, shots: Path, tmp_path: Path
) -> None:
    reason = "\n".join(f"line {i} of why the case failed" for i in range(12))
    rows = tuple(
        EvalRow(
            scenario=f"case-{number:03d}",
            nodeid=f"e::case-{number:03d}",
            provider="openai",
            model="gpt-4.1-mini",
            verdict=Verdict.FAIL if number in (5, 320) else Verdict.PASS,
            source=Source.SCRIPTED,
            message=reason if number in (5, 320) else "",
        )
        for number in range(400)
    )
    _open(
        page, write_view_page([_write_report(tmp_path, EvalReport(rows=rows))], tmp_path / "b.html")
    )
    page.wait_for_selector("body[data-complete='1']", state="attached")
    names = page.eval_on_selector_all("tr.case-row", "rs => rs.map(r => r.dataset.case)")
    assert sorted(names) == [f"case-{n:03d}" for n in range(400)]
    early = page.locator('tr.case-row[data-case="case-005"] .reason-more')
    late = page.locator('tr.case-row[data-case="case-320"]')
    assert early.count() == 1  # the first chunk is measured at once
    assert late.locator(".reason-more").count() == 0  # off screen: not laid out yet
    late.scroll_into_view_if_needed()
    more = late.locator(".reason-more")
    more.wait_for()  # measured when it came on screen
    assert more.text_content() == f"show all (12 lines, {len(reason) + 6} chars)"
    page.screenshot(path=str(shots / "report-late-row.png"))
    # Every cell of a late row sits under its column's header.
    heads = page.eval_on_selector_all(
        "#cases thead th", "ths => ths.map(t => Math.round(t.getBoundingClientRect().left))"
    )
    cells = late.evaluate(
        "r => [...r.children].map(t => Math.round(t.getBoundingClientRect().left))"
    )
    assert cells == heads
    # And the columns are where the table layout puts them (the page laid out the
    # first chunk as a table and kept its widths; these rows are all alike).
    as_table = page.evaluate(
        """() => { const table = document.getElementById('cases');
          table.classList.remove('frozen');
          const lefts = [...table.querySelectorAll('thead th')]
            .map(t => Math.round(t.getBoundingClientRect().left));
          table.classList.add('frozen');
          return lefts; }"""
    )
    assert all(abs(a - b) <= 1 for a, b in zip(as_table, heads, strict=True)), (as_table, heads)
    more.click()
    assert late.locator(".reason").evaluate("r => r.clientHeight >= r.scrollHeight")
    # Grid rows still read as a table to a screen reader: Chromium's own
    # accessibility tree (not the markup) has a row per case and their cells.
    tree = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")
    roles = Counter(str(node.get("role", {}).get("value")) for node in tree["nodes"])
    assert roles["row"] >= 401, roles  # the header and every case
    # Cells of rows off screen (not laid out) are left out of the tree.
    assert roles["cell"] >= 60 * len(heads), roles
