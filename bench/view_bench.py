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
Needs Playwright and a Chromium (``HARNESS_CHROMIUM`` or ``chromium`` on PATH).
Run: ``python bench/view_bench.py``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.view import build_compare_page, build_report_page, build_trace_page
from tests.view.conftest import chromium_path, launch_chromium
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


def main() -> None:
    from playwright.sync_api import sync_playwright

    executable = chromium_path()
    if executable is None:
        sys.exit("no Chromium: install the Debian package chromium or set HARNESS_CHROMIUM")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as playwright:
        browser = launch_chromium(playwright, executable)
        print(f"Chromium {browser.version}, best / median of {LOADS} loads")
        for spans in (1000, 5000):
            page_file = Path(tmp) / f"trace-{spans}.html"
            page_file.write_text(build_trace_page([big_tree(spans)]), "utf-8")
            size_kb = page_file.stat().st_size / 1024
            print(f"{spans} spans, page {size_kb:.0f} KiB")
            for label, values in measure(browser, page_file).items():
                if label.startswith("rows"):
                    print(f"  {label}: {values[0]:.0f}")
                    continue
                print(f"  {label:11s} {min(values):8.1f} ms  {statistics.median(values):8.1f} ms")
        report_pages(browser, Path(tmp))
        browser.close()


if __name__ == "__main__":
    main()
