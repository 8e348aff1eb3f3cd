"""How fast the trace page of ``harness view`` is usable, in headless Chromium.

Builds the page for a 1,000-span trace (and a 5,000-span one for headroom),
opens it from file:// and prints, best and median of several loads:

- ``load``: navigation start to a usable page (rows rendered, script done), as
  the page itself reports it (``performance.now()`` at the end of its script);
- ``expand``: click on a collapsed node until the next frame is painted;
- ``expand all``: every row rendered, until the next frame.

The target: load and expand under 1 s at 1,000 spans. Printed, not asserted.

Then an eval-report page of 40 cases x 3 epochs, each run with its own
100-span trace embedded (120 traces), and the compare page of two such reports:
``load`` as above, and ``open trace``: a click on a run's trace link until the
trace page in its frame is ready.
Then (issues #25 and #27):

- the index of 100 reports x 100 cases (``harness view DIR``): ``load``, and
  ``filter``: a change of the verdict filter until the next frame (target: load
  < 1 s, filter < 100 ms);
- a transcript of a 200-step run (a replay-mode trace, every model call resending
  the history): a click on the run's transcript button until the next frame,
  the first click decoding the page's packed traces (target < 300 ms);
- an eval-report page of 1,000 rows, each with its own metadata trace and the
  transcript of a committed cassette: page size (target < 2 MB), ``load``
  (the first rows usable; target < 1 s), ``all rows built`` (the rest follow
  between frames) and ``open trace`` (the first one decodes the packed traces).

Each figure is printed with the CPU time of the Python side beside the wall time
where Python does the work; browser figures are the page's own clock.
Needs Playwright and a Chromium (``HARNESS_CHROMIUM`` or ``chromium`` on PATH).
Run: ``python bench/view_bench.py [trace] [report] [index] [transcript] [thousand]``
(all by default).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.tracing import Tracer, TraceTree
from harness.view import (
    build_compare_page,
    build_report_page,
    build_trace_page,
    write_index_page,
)
from tests.view.conftest import chromium_path, launch_chromium
from tests.view.reports import ROOT, synthetic_reports
from tests.view.traces import big_tree

LOADS = 7
EXPAND = """() => new Promise(done => {
  const row = document.querySelector('.row[aria-expanded="false"]');
  const started = performance.now();
  row.querySelector('.toggle').click();
  requestAnimationFrame(() => setTimeout(() => done(performance.now() - started), 0));
})"""
EXPAND_ALL = """() => new Promise(done => {
  const started = performance.now();
  document.getElementById('expand-all').click();
  requestAnimationFrame(() => setTimeout(() => done([performance.now() - started,
    document.querySelectorAll('#rows .row').length]), 0));
})"""


def measure(browser: object, page_file: Path) -> dict[str, list[float]]:
    results: dict[str, list[float]] = {"load": [], "expand": [], "expand all": []}
    rows = 0
    for _ in range(LOADS):
        page = browser.new_page(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
        page.goto(page_file.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        results["load"].append(float(page.eval_on_selector("body", "b => b.dataset.readyMs")))
        results["expand"].append(float(page.evaluate(EXPAND)))
        elapsed, rows = page.evaluate(EXPAND_ALL)
        results["expand all"].append(float(elapsed))
        page.close()
    results["rows after expand all"] = [float(rows)]
    return results


OPEN_TRACE = """() => new Promise(done => {
  const frame = document.getElementById('viewer-frame');
  const started = performance.now();
  frame.addEventListener('load', () => {
    const ready = () => frame.contentDocument.body.dataset.ready === '1'
      ? done(performance.now() - started) : requestAnimationFrame(ready);
    ready();
  }, { once: true });
  document.querySelector('.trace-link').click();
})"""


def big_report(folder: Path, cases: int = 40, epochs: int = 3) -> EvalReport:
    """``cases`` x ``epochs`` simulator runs, each with its own trace file in ``folder``."""
    rows = []
    for case in range(cases):
        for epoch in range(epochs):
            trace = folder / f"t-{case}-{epoch}.json"
            trace.write_text(big_tree(100).to_json(), "utf-8")
            rows.append(
                EvalRow(
                    scenario=f"case-{case:02d}",
                    nodeid=f"evals/test_cases.py::test_case[epoch{epoch}-{case}]",
                    provider="openai",
                    source=Source.SIMULATOR,
                    verdict=Verdict.FAIL if (case + epoch) % 7 == 0 else Verdict.PASS,
                    message="assert the answer names the version"
                    if (case + epoch) % 7 == 0
                    else "",
                    epoch=epoch,
                    steps=3,
                    tool_calls=2,
                    input_tokens=1500,
                    output_tokens=60,
                    shape="agent.run\n  agent.step\n    llm.call"
                    + "\n    tool.call read" * (case % 3),
                    traces=(str(trace),),
                )
            )
    return EvalReport(rows=tuple(rows))


def report_pages(browser: object, tmp: Path) -> None:
    old = big_report(tmp)
    new = old.model_copy(
        update={
            "rows": tuple(
                row.model_copy(update={"verdict": Verdict.FAIL})
                if row.scenario == "case-03"
                else row
                for row in old.rows
            )
        }
    )
    pages = {
        "report": build_report_page([(old, "old.json")]),
        "compare": build_compare_page((old, "old.json"), (new, "new.json")),
    }
    for name, html in pages.items():
        page_file = tmp / f"{name}.html"
        page_file.write_text(html, "utf-8")
        loads: list[float] = []
        opens: list[float] = []
        for _ in range(LOADS):
            page = browser.new_page(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
            page.goto(page_file.as_uri())
            page.wait_for_selector("body[data-ready='1']")
            loads.append(float(page.eval_on_selector("body", "b => b.dataset.readyMs")))
            if name == "report":
                opens.append(float(page.evaluate(OPEN_TRACE)))
            page.close()
        size_kb = page_file.stat().st_size / 1024
        print(f"{name} page, {len(old.rows)} runs, page {size_kb:.0f} KiB")
        print(f"  {'load':11s} {min(loads):8.1f} ms  {statistics.median(loads):8.1f} ms")
        if opens:
            print(f"  {'open trace':11s} {min(opens):8.1f} ms  {statistics.median(opens):8.1f} ms")


FILTER = """() => new Promise(done => {
  const select = document.getElementById('f-verdict');
  const started = performance.now();
  select.value = select.value === 'failed' ? '' : 'failed';
  select.dispatchEvent(new Event('change'));
  requestAnimationFrame(() => setTimeout(() => done(performance.now() - started), 0));
})"""
OPEN_TRANSCRIPT = """() => new Promise(done => {
  const started = performance.now();
  document.querySelector('.tx-link').click();
  const ready = () => document.querySelector('#viewer-tx .tx-entry')
    ? requestAnimationFrame(() => setTimeout(() => done([performance.now() - started,
        document.querySelectorAll('#viewer-tx .tx-entry').length]), 0))
    : requestAnimationFrame(ready);
  ready();
})"""


def _print(label: str, values: list[float]) -> None:
    print(f"  {label:15s} {min(values):8.1f} ms  {statistics.median(values):8.1f} ms")


def _timed(build: object) -> tuple[object, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    result = build()  # type: ignore[operator]
    return result, (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def index_page(browser: object, tmp: Path) -> None:
    folder = tmp / "reports"
    folder.mkdir()
    synthetic_reports(folder, reports=100, cases=100)
    target, wall, cpu = _timed(lambda: write_index_page(folder, tmp / "index.html"))
    assert isinstance(target, Path)
    size_kb = target.stat().st_size / 1024
    print(
        f"index, 100 reports x 100 cases, page {size_kb:.0f} KiB, built in {wall:.0f} ms"
        f" wall / {cpu:.0f} ms CPU"
    )
    loads, filters = [], []
    for _ in range(LOADS):
        page = browser.new_page(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
        page.goto(target.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        loads.append(float(page.eval_on_selector("body", "b => b.dataset.readyMs")))
        filters.extend(float(page.evaluate(FILTER)) for _ in range(2))
        page.close()
    _print("load", loads)
    _print("filter", filters)


def long_run(steps: int = 200) -> TraceTree:
    """A replay-mode run of ``steps`` steps, each a model call (resending the whole
    history, as a chat API gets it) and a read."""
    tracer = Tracer(mode="replay")
    root = tracer.begin_trace("agent.run", session_key="long")
    history: list[dict[str, str]] = [
        {"role": "system", "content": "You are a careful agent."},
        {"role": "user", "content": "Read every shard and report its marker."},
    ]
    for step in range(steps):
        with tracer.span("agent.step", attributes={"step": step + 1}):
            with tracer.span("llm.call") as call:
                tracer.set_payload(call, "messages", list(history))
                tracer.set_payload(call, "response_text", "" if step < steps - 1 else "done")
            with tracer.span("tool.call", "read") as tool:
                tracer.set_payload(tool, "arguments", {"path": f"shard-{step}.txt"})
                tracer.set_payload(tool, "observation", f"shard {step}: SENTINEL-{step:04d}\n" * 8)
        history += [
            {"role": "assistant", "content": ""},
            {"role": "tool", "content": f"shard {step}: SENTINEL-{step:04d}"},
        ]
    tree = tracer.end_trace(root, attributes={"stop_reason": "final", "steps": steps})
    assert tree is not None
    return tree


def transcript_open(browser: object, tmp: Path) -> None:
    trace = tmp / "long-run.json"
    trace.write_text(long_run().to_json(), "utf-8")
    row = EvalRow(
        scenario="long",
        nodeid="e::long",
        provider="openai",
        verdict=Verdict.PASS,
        source=Source.SIMULATOR,
        traces=(str(trace),),
    )
    html = tmp / "long.html"
    html.write_text(build_report_page([(EvalReport(rows=(row,)), str(tmp / "r.json"))]), "utf-8")
    opens, entries = [], 0
    for _ in range(LOADS):
        page = browser.new_page(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
        page.goto(html.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        elapsed, entries = page.evaluate(OPEN_TRANSCRIPT)
        opens.append(float(elapsed))
        page.close()
    print(
        f"transcript of a 200-step run ({entries} entries),"
        f" page {html.stat().st_size / 1024:.0f} KiB"
    )
    _print("open transcript", opens)


def thousand_rows(browser: object, tmp: Path, rows: int = 1000) -> None:
    folder = tmp / "thousand"
    folder.mkdir()
    cassettes = sorted((ROOT / "cassettes").rglob("*.yaml"))
    made = []
    for number in range(rows):
        trace = folder / f"t-{number}.json"
        trace.write_text(big_tree(30).to_json(), "utf-8")
        cassette = cassettes[number % len(cassettes)]
        provider, model = cassette.relative_to(ROOT / "cassettes").parts[:2]
        test_file = cassette.parent.relative_to(ROOT / "cassettes" / provider / model)
        made.append(
            EvalRow(
                scenario=f"case-{number // 2:03d}-{cassette.stem}",
                nodeid=f"{test_file}.py::{cassette.stem}[{number}]",
                provider=provider,
                model=model,
                source=Source.SIMULATOR,
                verdict=Verdict.FAIL if number % 13 == 0 else Verdict.PASS,
                message="the answer lacks the marker" if number % 13 == 0 else "",
                steps=3,
                tool_calls=2,
                input_tokens=1500,
                output_tokens=60,
                cassette=cassette.name,
                traces=(str(trace),),
            )
        )
    report = EvalReport(rows=tuple(made))
    html, wall, cpu = _timed(
        lambda: build_report_page(
            [(report, str(folder / "r.json"))], cassettes=[ROOT / "cassettes"]
        )
    )
    page_file = tmp / "thousand.html"
    page_file.write_text(str(html), "utf-8")
    size = page_file.stat().st_size
    print(
        f"report of {rows} rows ({len(cassettes)} cassettes), page {size / 1e6:.2f} MB"
        f" ({size / 1024:.0f} KiB), built in {wall:.0f} ms wall / {cpu:.0f} ms CPU"
    )
    loads, complete, opens = [], [], []
    for _ in range(LOADS):
        page = browser.new_page(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
        page.goto(page_file.as_uri())
        page.wait_for_selector("body[data-ready='1']")
        loads.append(float(page.eval_on_selector("body", "b => b.dataset.readyMs")))
        page.wait_for_selector("body[data-complete='1']", state="attached")
        complete.append(float(page.evaluate("() => performance.now()")))
        opens.append(float(page.evaluate(OPEN_TRACE)))
        page.close()
    _print("load", loads)
    _print("all rows built", complete)
    _print("open trace", opens)


def main() -> None:
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        sys.exit("no Chromium: install the Debian package chromium or set HARNESS_CHROMIUM")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = launch_chromium(playwright, executable, Path(tmp) / "home")
        print(f"Chromium {browser.version}, best / median of {LOADS} loads")
        chosen = set(sys.argv[1:]) or {"trace", "report", "index", "transcript", "thousand"}
        for spans in (1000, 5000) if "trace" in chosen else ():
            page_file = Path(tmp) / f"trace-{spans}.html"
            page_file.write_text(build_trace_page([big_tree(spans)]), "utf-8")
            size_kb = page_file.stat().st_size / 1024
            print(f"{spans} spans, page {size_kb:.0f} KiB")
            for label, values in measure(browser, page_file).items():
                if label.startswith("rows"):
                    print(f"  {label}: {values[0]:.0f}")
                    continue
                print(f"  {label:11s} {min(values):8.1f} ms  {statistics.median(values):8.1f} ms")
        sections = {
            "report": report_pages,
            "index": index_page,
            "transcript": transcript_open,
            "thousand": thousand_rows,
        }
        for name, section in sections.items():
            if name in chosen:
                section(browser, Path(tmp))
        browser.close()


if __name__ == "__main__":
    main()
