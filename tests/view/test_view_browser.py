"""The trace page and the index of eval reports (``harness view DIR``) in a real
headless Chromium, opened from file://.

Screenshots of each page go to the test's tmp dir (``*.png``).
"""

from __future__ import annotations

import zlib
from pathlib import Path
from typing import Any

import pytest

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.view import build_trace_page, index_data, load_view_input, write_index_page
from tests.tracing.scripted_run import SECRET, record_traces
from tests.view.reports import synthetic_reports
from tests.view.traces import big_tree, overlapping_tree


def _open(page: Any, html: str, folder: Path, name: str) -> Path:
    file = folder / f"{name}.html"
    file.write_text(html, "utf-8")
    page.goto(file.as_uri())
    page.wait_for_selector("body[data-ready='1']")
    return file


def _visible_labels(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "#rows .row",
            "rows => rows.filter(r => r.offsetParent !== null).map(r => (r.dataset.kind + ' '"
            " + (r.querySelector('.name')?.textContent || '')).trim())",
        )
    )


@pytest.mark.deep
def test_scripted_run_rows_marks_and_attributes(page: Any, shots: Path, tmp_path: Path) -> None:
    paused, resumed = record_traces(tmp_path, trace_mode="replay")
    _open(page, build_trace_page([paused, resumed]), tmp_path, "trace")
    page.screenshot(path=str(shots / "trace-page.png"), full_page=True)

    # Depth 0-1 open, deeper rows collapsed except on the way to an approval or subagent.
    assert _visible_labels(page) == [
        "agent.run",
        "agent.step",
        "llm.call",
        "tool.call read",
        "tool.call read",
        "agent.step",
        "llm.call",
        "tool.call explore",
        "subagent.run",
        "agent.step",
        "llm.call",
        "tool.call write",
        "approval.pause",
    ]
    assert page.text_content('.row[data-kind="approval.pause"] .mark') == "waiting for approval"
    assert page.text_content('.row[data-kind="subagent.run"] .mark') == "subagent"
    assert page.text_content('#summary [data-fact="capture"] .v') == "replay"

    # Expand the subagent: its model call appears, rendered only now.
    subagent = page.locator('.row[data-kind="subagent.run"]')
    assert subagent.get_attribute("aria-expanded") == "false"
    assert page.locator('.row[data-kind="subagent.run"] + .children .row').count() == 0
    subagent.locator(".toggle").click()
    assert subagent.get_attribute("aria-expanded") == "true"
    assert "llm.call" in _visible_labels(page)[9]

    # Click a tool.call: its attributes and payload show in the side panel.
    page.locator('.row[data-kind="tool.call"]').nth(1).click()
    details = page.locator("#details")
    assert details.locator("h3").text_content() == "tool.call read"
    keys = details.locator("td.attr-key").all_text_contents()
    assert {"tool_name", "tool_call_id", "observation_chars", "latency_ms"} <= set(keys)
    row = details.locator("tr.attr", has_text="tool_name")
    assert row.locator("td.attr-value").text_content() == "read"
    assert details.locator("pre.payload").first.text_content() == '{"path":"b.txt"}'
    page.screenshot(path=str(shots / "trace-tool-details.png"), full_page=True)

    # The write's arguments are shown redacted, as stored.
    page.locator('.row[data-kind="tool.call"]', has_text="write").click()
    assert "deploy-key.txt" in (details.text_content() or "")
    assert SECRET not in (page.content())

    # The list names each trace by its case (no report here: its session) and provider.
    assert page.locator(".trace-item .t-provider").all_text_contents() == ["scripted/scripted"] * 2
    assert page.locator(".trace-item .t-case").first.text_content() == paused.session_key
    # The list switches to the resumed run.
    page.locator(".trace-item").nth(1).click()
    assert page.text_content('#summary [data-fact="trace"] .v') == resumed.trace_id
    assert page.text_content('.row[data-kind="approval.resume"] .mark') == "resumed after approval"
    page.screenshot(path=str(shots / "trace-resumed.png"), full_page=True)


@pytest.mark.deep
@pytest.mark.parametrize("count", [1, 2], ids=["one-trace", "many-traces"])
def test_the_details_pane_is_wide_and_shows_the_clicked_span(
    page: Any, shots: Path, tmp_path: Path, count: int
) -> None:
    # With one trace the list is hidden; the pane once fell into a 1 px column.
    traces = record_traces(tmp_path, trace_mode="replay")[:count]
    _open(page, build_trace_page(traces), tmp_path, f"details-{count}")
    assert page.locator(".trace-item").count() == (0 if count == 1 else count)
    page.locator('.row[data-kind="tool.call"]').first.click()
    details = page.locator("#details")
    page.screenshot(path=str(shots / f"details-{count}.png"))
    assert details.bounding_box()["width"] >= 300
    assert details.locator("h3").text_content() == "tool.call read"
    value = details.locator("tr.attr", has_text="tool_name").locator("td.attr-value")
    assert value.text_content() == "read"
    assert value.bounding_box()["width"] >= 100  # the value is readable, not squeezed
    read = next(span for span in traces[0].walk() if span.kind == "tool.call")
    times = details.locator("tr.attr", has_text="started_at").locator("td.attr-value")
    assert times.text_content() == read.started_at.replace("+00:00", "Z")  # from the offset
    waterfall = page.locator("#waterfall").bounding_box()
    assert waterfall["x"] + waterfall["width"] <= details.bounding_box()["x"]  # side by side


@pytest.mark.deep
def test_concurrent_calls_overlap_on_the_time_axis(page: Any, shots: Path, tmp_path: Path) -> None:
    _open(page, build_trace_page([overlapping_tree()]), tmp_path, "parallel")
    boxes = [bar.bounding_box() for bar in page.locator('.row[data-kind="tool.call"] .bar').all()]
    first, second, third = boxes
    assert first["x"] < second["x"] + second["width"] and second["x"] < first["x"] + first["width"]
    assert third["x"] >= max(first["x"] + first["width"], second["x"] + second["width"]) - 1
    marks = page.locator('.row[data-kind="tool.call"] .mark-par').count()
    assert marks == 2
    page.screenshot(path=str(shots / "parallel.png"), full_page=True)


@pytest.mark.deep
def test_metadata_trace_says_why_there_is_no_payload(page: Any, tmp_path: Path) -> None:
    paused, _ = record_traces(tmp_path, trace_mode="metadata")
    _open(page, build_trace_page([paused]), tmp_path, "metadata")
    assert page.locator(".trace-item").count() == 0  # one trace: no list
    page.locator('.row[data-kind="llm.call"]').first.click()
    assert "metadata mode" in (page.text_content("#details .note") or "")


@pytest.mark.deep
def test_hostile_payload_is_shown_as_text(page: Any, tmp_path: Path) -> None:
    from harness.tracing import Tracer

    tracer = Tracer(mode="replay")
    root = tracer.begin_trace("agent.run")
    hostile = "</script><script>window.pwned=1</script><img src=x onerror=alert(1)><!--"
    tracer.set_payload(root, "prompt", hostile)
    tree = tracer.end_trace(root)
    assert tree is not None
    _open(page, build_trace_page([tree]), tmp_path, "hostile")
    page.locator('.row[data-kind="agent.run"]').click()
    assert page.text_content("#details pre.payload") == hostile
    assert page.evaluate("window.pwned") is None


@pytest.mark.deep
def test_a_thousand_spans_load_and_expand(page: Any, shots: Path, tmp_path: Path) -> None:
    tree = big_tree(1000)
    _open(page, build_trace_page([tree]), tmp_path, "big")
    assert page.text_content('#summary [data-fact="spans"] .v') == "1000"
    first = page.locator('.row[data-kind="subagent.run"][aria-expanded="false"]').first
    collapsed = page.locator(f'.row[data-span-id="{first.get_attribute("data-span-id")}"]')
    collapsed.locator(".toggle").click()
    assert collapsed.get_attribute("aria-expanded") == "true"
    page.click("#expand-all")
    assert page.locator("#rows .row").count() == 1000
    page.screenshot(path=str(shots / "big.png"))


@pytest.mark.deep
def test_the_transcript_view_folds_long_texts_and_shows_them_whole(
    page: Any, shots: Path, tmp_path: Path
) -> None:
    paused, resumed = record_traces(tmp_path, trace_mode="replay")
    _open(page, build_trace_page([paused, resumed]), tmp_path, "transcript")
    page.click("#show-transcript")
    box = page.locator("#transcript")
    assert page.locator("#waterfall").is_hidden() and box.is_visible()
    kinds = box.locator(".tx-entry").evaluate_all("es => es.map(e => e.dataset.type)")
    assert kinds[:3] == ["msg", "msg", "answer"]
    assert box.locator(".tx-mark.kind-sub").count() == 2  # the subagent's start and end
    assert box.locator(".tx-mark.kind-approval").text_content().startswith("waiting for approval")
    sub = box.locator('.tx-entry[data-type="answer"]', has_text="Report: version 7")
    assert sub.evaluate("e => parseFloat(e.style.marginLeft)") > 0  # nested one level
    assert SECRET not in page.content()
    page.screenshot(path=str(shots / "transcript.png"), full_page=True)

    # The resumed run: its history is named, not repeated; the final answer ends it.
    page.locator(".trace-item").nth(1).click()
    assert box.is_visible()
    assert box.locator(".tx-mark.kind-history").count() == 1
    assert box.locator(".tx-entry").last.get_attribute("data-type") == "final"


@pytest.mark.deep
def test_a_long_hostile_tool_result_is_folded_text(page: Any, shots: Path, tmp_path: Path) -> None:
    from harness.tracing import Tracer

    hostile = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"
    long = hostile + "\n" + "\n".join(f"row {i:04d}" for i in range(600))
    tracer = Tracer(mode="replay", max_payload_chars=100_000)
    root = tracer.begin_trace("agent.run")
    with tracer.span("agent.step"):
        with tracer.span("llm.call") as call:
            tracer.set_payload(call, "messages", [{"role": "user", "content": hostile}])
        with tracer.span("tool.call", "read") as tool:
            tracer.set_payload(tool, "observation", long)
    tree = tracer.end_trace(root)
    assert tree is not None
    _open(page, build_trace_page([tree]), tmp_path, "fold")
    page.click("#show-transcript")
    result = page.locator('#transcript .tx-entry[data-type="tool"]')
    text = result.locator(".tx-text")
    assert text.get_attribute("data-folded") == "1"
    assert len(text.text_content() or "") < 1300
    more = result.locator(".tx-more")
    assert more.text_content() == f"show all ({len(long):,} chars, 601 lines)"
    more.click()
    assert text.text_content() == long
    assert page.locator(".tx-msg.role-user .tx-text").text_content() == hostile
    assert page.evaluate("window.pwned") is None
    page.screenshot(path=str(shots / "transcript-fold.png"))


INDEX_HOSTILE = "</script><script>window.pwned=1</script><img src=x onerror=window.pwned=2>"


def _open_file(page: Any, html: Path) -> None:
    page.goto(html.as_uri())
    page.wait_for_selector("body[data-ready='1']")


def _pixel(page: Any, x: float, y: float) -> tuple[int, int, int]:
    """The colour on screen at (x, y): a 1x1 screenshot, whose one PNG row needs no
    unfiltering (every PNG filter of a lone pixel predicts from zeros)."""
    png = page.screenshot(clip={"x": x, "y": y, "width": 1, "height": 1})
    assert png[12:16] == b"IHDR" and png[24] == 8  # 8 bits per channel
    data, at = b"", 8
    while at < len(png):
        length = int.from_bytes(png[at : at + 4], "big")
        if png[at + 4 : at + 8] == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    red, green, blue = zlib.decompress(data)[1:4]
    return red, green, blue


def _matrix_cells(page: Any, case: str) -> list[tuple[str, tuple[int, int, int]]]:
    """Each run cell of ``case``'s row, newest first, as (the tooltip on hover, the
    colour drawn at the cell's centre)."""
    strip = page.locator(f'tr.case[data-case="{case}"] .strip')
    box = strip.bounding_box()
    runs = page.locator("th.run-h").count()
    assert box is not None and box["width"] == 20 * runs
    centres = [(box["x"] + 20 * n + 10, box["y"] + box["height"] / 2) for n in range(runs)]
    page.mouse.move(0, 0)
    colours = [_pixel(page, x, y) for x, y in centres]
    tips = []
    for number, (x, y) in enumerate(centres):
        page.mouse.move(x, y)
        assert page.get_attribute("#tip", "data-run") == str(number)
        tips.append(page.text_content("#tip") or "")
    page.mouse.move(0, 0)
    assert page.locator("#tip").is_hidden()
    return list(zip(tips, colours, strict=True))


def _palette(page: Any) -> dict[str, tuple[int, int, int]]:
    """The page's verdict colours (its CSS variables), as RGB."""
    values = page.evaluate(
        "() => Object.fromEntries(['pass', 'fail', 'error', 'skip', 'mixed'].map(v =>"
        " [v, getComputedStyle(document.documentElement).getPropertyValue('--' + v).trim()]))"
    )
    return {k: tuple(int(v[i : i + 2], 16) for i in (1, 3, 5)) for k, v in values.items()}


HATCH = {(0xF1, 0xF2, 0xF5), (0xFF, 0xFF, 0xFF)}


def _visible_cases(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "tr.case", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.case)"
        )
    )


@pytest.mark.deep
def test_the_index_shows_runs_newest_first_and_the_case_matrix(
    page: Any, shots: Path, tmp_path: Path
) -> None:
    files = synthetic_reports(tmp_path, reports=5, cases=8)
    html = write_index_page(tmp_path, tmp_path / "index.html")
    _open_file(page, html)
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
    cells = _matrix_cells(page, "case-000")
    palette = _palette(page)
    verdicts = ["pass", "pass", "pass", "pass", "fail"]
    assert [colour for _, colour in cells] == [palette[v] for v in verdicts]
    for (tip, _), path, verdict in zip(cells, reversed(files), verdicts, strict=True):
        assert tip.startswith(f"{path.name} (") and f"): {verdict}" in tip
    assert "lacks the marker" in cells[-1][0] and "lacks the marker" not in cells[0][0]
    assert row.locator(".rate").text_content() == "80%"
    assert "lacks the marker" in (row.locator(".reason").text_content() or "")


@pytest.mark.deep
def test_filters_and_search_hide_and_show_rows(page: Any, shots: Path, tmp_path: Path) -> None:
    synthetic_reports(tmp_path, reports=4, cases=12)
    _open_file(page, write_index_page(tmp_path, tmp_path / "index.html"))
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


@pytest.mark.deep
def test_hostile_names_stay_text_and_a_case_missing_from_a_run_is_marked(
    page: Any, tmp_path: Path
) -> None:
    def row(case: str, verdict: Verdict) -> EvalRow:
        return EvalRow(
            scenario=case,
            nodeid=f"e::{case}",
            verdict=verdict,
            source=Source.SCRIPTED,
            message=INDEX_HOSTILE if verdict is Verdict.FAIL else "",
        )

    old = EvalReport(
        created_at="2026-01-01T00:00:00+00:00", rows=(row(INDEX_HOSTILE, Verdict.PASS),)
    )
    new = EvalReport(
        created_at="2026-02-01T00:00:00+00:00",
        rows=(row(INDEX_HOSTILE, Verdict.FAIL), row("added", Verdict.PASS)),
    )
    old.write(tmp_path / "a.json")
    new.write(tmp_path / "b.json")
    (tmp_path / "not-a-report.json").write_text('{"root": {}}', "utf-8")
    (tmp_path / "eval-cut.json").write_text('{"rows": [', "utf-8")  # a corrupt report
    _open_file(page, write_index_page(tmp_path, tmp_path / "index.html"))
    assert page.locator("tr.run").count() == 2
    # The files that are not reports are named, with why, above the runs.
    assert page.locator("#skipped").is_visible()
    notes = page.locator("#skipped li").all_text_contents()
    assert [note.split(":")[0] for note in notes] == ["eval-cut.json", "not-a-report.json"]
    assert "corrupt" in notes[0] and "looks like" not in notes[0]
    # Each run's whole date and time, in the runs table and over its matrix column.
    assert page.locator("tr.run td.when").all_text_contents() == [
        "2026-02-01 00:00:00 UTC",
        "2026-01-01 00:00:00 UTC",
    ]
    assert page.locator("th.run-h").first.text_content() == "#1 2026-02-01 00:00:00 UTC"
    assert page.locator("tr.case .case-name").first.text_content() == INDEX_HOSTILE
    (new_tip, new_colour), (old_tip, old_colour) = _matrix_cells(page, "added")
    assert new_tip.startswith("b.json (") and new_tip.endswith("): pass")
    assert new_colour == _palette(page)["pass"]
    assert old_tip == "a.json: not run" and old_colour in HATCH
    hostile = page.locator("tr.case").first.get_attribute("data-case")
    assert hostile == INDEX_HOSTILE
    (failed_tip, _), _ = _matrix_cells(page, INDEX_HOSTILE)
    assert failed_tip.endswith("): fail\nfail: " + INDEX_HOSTILE)  # the reason, as text
    assert page.evaluate("window.pwned") is None


@pytest.mark.deep
def test_every_verdict_has_its_colour_and_tooltip_in_the_matrix(page: Any, tmp_path: Path) -> None:
    def report(day: int, *verdicts: Verdict) -> None:
        rows = tuple(
            EvalRow(
                scenario="c",
                nodeid="e::c",
                verdict=v,
                epoch=i,
                source=Source.SCRIPTED,
                message="" if v is Verdict.PASS else f"{v.value} in r{day}",
            )
            for i, v in enumerate(verdicts)
        )
        EvalReport(created_at=f"2026-03-0{day}T00:00:00+00:00", rows=rows).write(
            tmp_path / f"r{day}.json"
        )

    report(1, Verdict.ERROR)
    report(2, Verdict.SKIP)
    report(3, Verdict.PASS, Verdict.FAIL)  # two epochs that disagree
    _open_file(page, write_index_page(tmp_path, tmp_path / "index.html"))
    palette = _palette(page)
    cells = _matrix_cells(page, "c")
    assert [colour for _, colour in cells] == [palette["mixed"], palette["skip"], palette["error"]]
    # Each cell names its own run's reason, not the case's newest one.
    assert [tip.split(": ", 1)[1] for tip, _ in cells] == [
        "mixed 1/2\nfail: fail in r3",
        "skip",
        "error\nerror: error in r1",
    ]
    assert len(set(palette.values())) == 5


@pytest.mark.deep
def test_one_run_is_a_list_in_a_panel_no_wider_than_its_table(
    page: Any, shots: Path, tmp_path: Path
) -> None:
    rows = tuple(
        EvalRow(scenario=f"c{n}", nodeid=f"e::c{n}", verdict=verdict, source=Source.SCRIPTED)
        for n, verdict in enumerate([Verdict.PASS, Verdict.FAIL, Verdict.PASS])
    )
    EvalReport(created_at="2026-03-01T12:34:56+00:00", rows=rows).write(tmp_path / "r.json")
    _open_file(page, write_index_page(tmp_path, tmp_path / "index.html"))
    page.screenshot(path=str(shots / "index-one-run.png"), full_page=True)
    assert page.text_content("#cases-title") == "Cases"
    assert page.locator(".strip").count() == 0 and page.locator("th.run-h").count() == 0
    heads = page.locator("#matrix-head th").all_text_contents()
    assert heads == ["case", "result", "failure"]  # one provider: no provider column
    assert page.locator("#f-provider").count() == 0 and page.locator("#f-verdict").count() == 1
    verdicts = page.locator("tr.case .verdict").all_text_contents()
    assert verdicts == ["fail", "pass", "pass"]
    box = page.locator("#matrix-box").bounding_box()
    table = page.locator("#matrix").bounding_box()
    assert box is not None and table is not None
    assert box["width"] <= table["width"] + 2  # the panel hugs its table: no empty half
    assert "provider scripted" in (page.text_content("#subtitle") or "")


def test_index_data_groups_epochs_into_one_cell() -> None:
    rows = tuple(
        EvalRow(scenario="c", nodeid="e::c", verdict=v, epoch=i, source=Source.SCRIPTED)
        for i, v in enumerate([Verdict.PASS, Verdict.FAIL])
    )
    data = index_data([(EvalReport(rows=rows), "r.json")])
    (case,) = data["cases"]
    assert case["cells"] == [[1, 2, "mixed", 0]] and case["failed"] and case["rate"] == 0.5
    assert data["reasons"] == ["fail"]
