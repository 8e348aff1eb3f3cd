"""``harness eval`` at scale: generated cases, recorded once, replayed serially and -n auto.

Run: ``python bench/eval_scale.py`` (sizes 50, 200, 500 cases) or
``python bench/eval_scale.py --quick`` (50 cases, one run each, a few minutes
here); ``--cases 100,334`` picks the sizes. Each case is one row per provider
(openai, openai-responses, anthropic, gemini: every runtime provider;
``--providers`` narrows it), a one-tool,
two-call task: read ``note.txt``, report the sentinel it holds.

For each size, in a temp project (loopback only):

1. generate the case file, one small workspace per case and a simulator script;
2. record every row once against the in-process simulator (``--record-mode once``);
3. replay with ``harness eval`` serially and with ``-n auto``: wall time, CPU
   time of the process tree (the machine is shared: CPU is the steadier figure),
   per-row wall cost and the peak RSS summed over the process tree;
4. the per-row overhead of harness: the marginal serial cost of a row (between
   the smallest and the largest size) minus the floor, i.e. the same agent run
   in this process on the same SDKs parsing the same recorded bodies served by
   an in-memory transport (no pytest, no cassette, no report). Both are taken
   in turns (floor, small, large, floor), at least twice, and the median of
   the turns' differences is shown: the machine's speed drifts. Beside it, in
   the same turns, pytest's own floor: the marginal cost of a row of a trivial
   test (``pass``, parametrised with as many ids, the same plugins loaded). It
   is part of the overhead, which no pytest-based eval escapes; it says how
   much of the overhead is pytest's per-test protocol and how much harness's.

``--against DIR`` also replays each size, serially and with ``-n auto``, with
the ``harness`` package in DIR (``git archive main harness | tar -x -C DIR``),
each turn running both trees one after the other, and prints the ratios;
``--dist worksteal`` picks pytest-xdist's mode for the ``-n auto`` runs. The
runs keep their scratch where ``harness eval`` puts it (a roomy tmpfs when
there is one, see ``harness.evals.scratch``); ``--disk-scratch`` also replays
serially with it in the system temp folder, to show what the disk costs.

``--breakdown`` replays the largest size once more, serially, with
``bench/row_timer.py`` loaded into pytest, and prints where a row's time goes
(medians per row): pytest's phases, each fixture's setup and teardown, and the
harness functions in ``BREAKDOWN_WRAP``.

Then ``--mutants`` on 50 rows (mutants per second), the ``harness view`` page
of the largest report (size, and its open time in headless Chromium when
Playwright and a Chromium are there), and ``eval compare`` / ``eval merge`` of
synthetic 1,000- and 10,000-row reports made from the real rows.

Targets (issue 27, 2 cores): 1,000 rows replayed < 15 s with ``-n auto`` and
< 25 s serially; per-row harness overhead <= 5 ms; view < 2 MB and < 1 s;
compare and merge < 2 s. Printed, never asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PROVIDERS = ("openai", "openai-responses", "anthropic", "gemini")
TARGETS = {"auto_1000": 15.0, "serial_1000": 25.0, "overhead_ms": 5.0, "view_mb": 2.0}
SCRIPT = """version: 1
rules:
  - when: {has_tool_results: false}
    reply: {tool_calls: [{name: read, arguments: {path: note.txt}}]}
  - when: {has_tool_results: true}
    fill: "(SENTINEL-GEN-[A-Z0-9]+)"
    reply: "The marker in note.txt is {match}."
"""
TEST_MODULE = '''"""Generated cases (bench/eval_scale.py)."""

# The runner and the fixtures it ships (its __all__): a tree given with --against
# may ship fewer of them.
from harness.testing.cases_suite import *  # noqa: F403
'''


def sentinel(i: int) -> str:
    return "SENTINEL-GEN-" + hashlib.sha256(str(i).encode()).hexdigest()[:10].upper()


def generate(project: Path, cases: int) -> None:
    """A project of ``cases`` generated cases: case file, workspaces, test module, ini."""
    (project / "evals" / "cases").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", "utf-8")
    (project / "evals" / "test_cases.py").write_text(TEST_MODULE, "utf-8")
    lines = ["version: 1", "cases:"]
    for i in range(cases):
        folder = project / "fixtures" / "gen" / f"w{i:04d}"
        folder.mkdir(parents=True)
        (folder / "note.txt").write_text(f"Case {i} marker: {sentinel(i)}\n", "utf-8")
        lines += [
            f"  - name: gen-{i:04d}",
            f"    workspace: gen/w{i:04d}",
            f"    prompt: Case {i} - read note.txt and report the marker it holds.",
            "    tools: [read]",
            "    max_steps: 3",
            "    checks:",
            "      calls: [read note.txt]",
            "      steps: 2",
            f"      answer_contains: [{sentinel(i)}]",
            "      tools_called: {read: 1}",
        ]
    (project / "evals" / "cases" / "gen.yaml").write_text("\n".join(lines) + "\n", "utf-8")


@dataclass(frozen=True)
class Run:
    """One ``harness eval`` subprocess: wall and CPU seconds, peak RSS (MiB), rows, exit."""

    wall: float
    cpu: float
    rss_mib: float
    rows: int
    passed: int
    code: int
    stdout: str


def _tree_rss_kib(root_pid: int) -> int:
    """Resident memory of ``root_pid`` and its descendants, from /proc."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as stat:
                fields = stat.read().rpartition(")")[2].split()
            parents[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * resource.getpagesize() // 1024
        except (OSError, ValueError, IndexError):
            continue
    tree, frontier = {root_pid}, [root_pid]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(rss.get(pid, 0) for pid in tree)


@contextmanager
def _rss_sampler(pid: int) -> Iterator[list[int]]:
    peak = [0]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.1):
            peak[0] = max(peak[0], _tree_rss_kib(pid))

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield peak
    finally:
        done.set()
        thread.join()


def harness_eval(
    project: Path,
    *args: str,
    report: Path | None = None,
    tree: Path | None = None,
    scratch: Path | None = None,
    env_extra: dict[str, str] | None = None,
) -> Run:
    """``harness eval ARGS`` in ``project``; the report goes to ``report``.

    ``tree``: a folder holding another ``harness`` package (e.g. ``git archive
    main harness | tar -x -C DIR``) to run instead of this one. ``scratch``: the
    run's scratch folder (``HARNESS_EVAL_TMPDIR``); by default harness picks it.
    """
    from harness.evals import Verdict, load_report

    report = report or project / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    if scratch is not None:
        env["HARNESS_EVAL_TMPDIR"] = str(scratch)
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(tree), env.get("PYTHONPATH", "")]).rstrip(":")
    env.update(env_extra or {})
    command = [sys.executable, "-m", "harness", "eval", "--report", str(report), *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    with _rss_sampler(process.pid) as peak:
        stdout, _ = process.communicate()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    rows = load_report(report).rows if report.exists() else ()
    passed = sum(1 for row in rows if row.verdict is Verdict.PASS)
    return Run(wall, cpu, peak[0] / 1024, len(rows), passed, process.returncode, stdout)


def record(project: Path, providers: tuple[str, ...]) -> Run:
    """Record every row against the simulator (one process, in-process server)."""
    import yaml

    from harness.simulator import SimulatorServer

    with SimulatorServer(yaml.safe_load(SCRIPT)) as sim:
        args = ["--record-mode", "once", "--harness-base-url", sim.url]
        if len(providers) == 1:
            args += ["--harness-provider", providers[0]]
        return harness_eval(project, *args, report=project / "recorded.json")


def provider_args(providers: tuple[str, ...]) -> list[str]:
    if len(providers) == len(PROVIDERS):
        return []
    return (
        ["-k", " or ".join(providers)] if len(providers) > 1 else ["--harness-provider", *providers]
    )


def show(label: str, run: Run) -> None:
    per_row = run.wall / run.rows * 1000 if run.rows else float("nan")
    ok = "" if run.code == 0 and run.passed == run.rows else f"  (exit {run.code}!)"
    print(
        f"  {label:<12} {run.rows:5d} rows {run.passed:5d} pass  wall {run.wall:6.2f} s  "
        f"cpu {run.cpu:6.2f} s  {per_row:5.1f} ms/row  peak RSS {run.rss_mib:6.0f} MiB{ok}"
    )
    if ok:
        print("\n".join("      " + line for line in run.stdout.splitlines()[-15:]))


def best(runs: list[Run]) -> Run:
    """The median run by wall time (the first of two)."""
    return sorted(runs, key=lambda r: r.wall)[(len(runs) - 1) // 2]


def floor_ms(project: Path, providers: tuple[str, ...], sample: int = 30) -> float:
    """Milliseconds per row of the bare agent run: the same SDKs parse the same
    recorded bodies from an in-memory transport; no pytest, cassette or report."""
    from harness._speed.gc_freeze import ImportFreezer
    from harness.evals.cases import load_cases

    cases = load_cases(project / "evals" / "cases")[:sample]
    # The collector set as an eval run sets it (harness._speed.gc_freeze): the two
    # sides of the difference run under the same thresholds and freezes. (Measured,
    # the interpreter's defaults cost the bare run less than this machine's drift.)
    freezer = ImportFreezer(threshold=0)
    freezer.start()
    try:
        timed = [_bare_runs(project, name, cases, freezer) for name in providers]
    finally:
        freezer.stop()
    return sum(seconds for seconds, _ in timed) / sum(runs for _, runs in timed) * 1000


def _bare_runs(project: Path, name: str, cases: list[Any], freezer: Any) -> tuple[float, int]:
    """Seconds of the bare runs of ``cases`` on provider ``name``, and their number."""
    import httpx2

    from harness import Settings, build_application
    from harness.evals.scratch import scratch_parent
    from harness.providers import AnthropicProvider, OpenAIProvider, OpenAIResponsesProvider
    from harness.recording import read_cassette

    total, runs = 0.0, 0
    folder = next((project / "cassettes" / name).iterdir())
    # The first run of an SDK imports the parts it loads lazily (its resources,
    # their types): a cost of the process, which the replay pays once too.
    for first, case in enumerate([cases[0], *cases]):
        path = folder / "evals" / "test_cases" / f"test_cases-{case.name}.yaml"
        bodies = [i.response["body"]["string"] for i in read_cassette(path).interactions]
        queue = list(bodies)

        def answer(request: httpx2.Request, queue: list[bytes] = queue) -> httpx2.Response:
            return httpx2.Response(
                200, content=queue.pop(0), headers={"content-type": "application/json"}
            )

        http = httpx2.Client(transport=httpx2.MockTransport(answer))
        provider: Any
        if name == "gemini":
            # google-genai sends through httpx (the 1.x line), not the twin the others use.
            import httpx
            from google import genai
            from google.genai import types

            from harness.wires.gemini.provider import GeminiProvider

            def answer_1x(request: httpx.Request, queue: list[bytes] = queue) -> httpx.Response:
                return httpx.Response(
                    200, content=queue.pop(0), headers={"content-type": "application/json"}
                )

            http.close()
            http = httpx.Client(transport=httpx.MockTransport(answer_1x))
            options = types.HttpOptions(api_version="v1beta", httpx_client=http)
            sdk = genai.Client(api_key="x", http_options=options)
            provider = GeminiProvider(folder.name, client=sdk)
        elif name == "anthropic":
            import anthropic

            sdk: Any = anthropic.Anthropic(api_key="x", max_retries=0, http_client=http)
            provider = AnthropicProvider(folder.name, client=sdk)
        else:
            import openai

            sdk = openai.OpenAI(api_key="x", max_retries=0, http_client=http)
            adapter = OpenAIProvider if name == "openai" else OpenAIResponsesProvider
            provider = adapter(folder.name, client=sdk)
        # Where harness eval keeps a row's folders (a tmpfs when there is one): on
        # the disk the bare run's own files would cost more than the replay's.
        with tempfile.TemporaryDirectory(dir=scratch_parent()) as tmp:
            work = Path(tmp) / "w"
            work.mkdir()
            src = project / "fixtures" / case.workspace / "note.txt"
            (work / "note.txt").write_bytes(src.read_bytes())
            settings = Settings(workdir=work, state_dir=Path(tmp) / "s", enabled_tools=case.tools)
            started = time.perf_counter()
            app = build_application(settings, provider=provider)
            app.run(case.prompt, session=case.session_name, max_steps=case.max_steps)
            app.close()
            if first:
                total += time.perf_counter() - started
                runs += 1
            else:
                freezer.after_test()  # the SDK's modules, frozen as the plugin freezes them
        sdk.close()
    return total, runs


TRIVIAL_MODULE = """import pytest


@pytest.mark.parametrize("row", range({rows}))
def test_row(row):
    pass
"""


def pytest_floor(folder: Path, rows: int) -> float:
    """Wall seconds of plain pytest on ``rows`` ids of a test that does nothing, run as
    ``harness eval`` runs pytest (its own basetemp, with every installed plugin)."""
    project = folder / f"trivial{rows}"
    if not project.exists():
        project.mkdir(parents=True)
        (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", "utf-8")
        (project / "test_trivial.py").write_text(TRIVIAL_MODULE.format(rows=rows), "utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    with tempfile.TemporaryDirectory() as basetemp:
        command = [sys.executable, "-m", "pytest", "-q", "--basetemp", basetemp + "/runs"]
        started = time.perf_counter()
        done = subprocess.run(command, cwd=project, env=env, capture_output=True, check=False)
        wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"the trivial pytest run failed: {done.stdout[-300:]!r}")
    return wall


def overhead(small: Path, big: Path, providers: tuple[str, ...], runs: int) -> None:
    """Per-row harness overhead: the marginal serial cost of a row minus the bare run.

    Both are measured side by side, in turns: the bare run, the small and the
    large replay, the bare run again. This machine's speed drifts by half
    within an hour, and a difference of two figures taken minutes apart would
    mostly measure the drift.
    """
    pick = provider_args(providers)
    pairs: list[tuple[float, float]] = []
    trivial: list[float] = []
    for _ in range(max(2, runs)):
        before = floor_ms(small, providers)
        a, b = harness_eval(small, *pick), harness_eval(big, *pick)
        after = floor_ms(small, providers)
        pairs.append(((b.wall - a.wall) * 1000 / (b.rows - a.rows), (before + after) / 2))
        low, high = pytest_floor(small.parent, a.rows), pytest_floor(small.parent, b.rows)
        trivial.append((high - low) * 1000 / (b.rows - a.rows))
    marginal = statistics.median(m for m, _ in pairs)
    floor = statistics.median(f for _, f in pairs)
    cost = statistics.median(m - f for m, f in pairs)
    shown = ", ".join(f"{m - f:.1f}" for m, f in pairs)
    print(
        f"per row (serial, marginal {a.rows}->{b.rows} rows, {len(pairs)} turns): "
        f"{marginal:.1f} ms; bare agent run {floor:.1f} ms; harness overhead {cost:.1f} ms "
        f"(turns: {shown}; target <= {TARGETS['overhead_ms']:g} ms)"
    )
    pytest_own = statistics.median(trivial)
    print(
        f"  of which pytest's own per-test floor (a trivial test, same plugins): "
        f"{pytest_own:.1f} ms (turns: {', '.join(f'{t:.1f}' for t in trivial)}); "
        f"harness's fixtures, cassette, checks and row: {cost - pytest_own:.1f} ms"
    )


# What --breakdown times inside the run, beside pytest's phases and every fixture.
BREAKDOWN_WRAP = (
    "harness.app:Application.run",
    "harness.app:build_application",
    "harness.providers._sdk_call:SdkProvider.complete",
    "harness.recording._session:_CassetteSession.__enter__",
    "harness.recording._session:_CassetteSession.__exit__",
    "harness.recording._cassette:HarnessCassette._load",
    "harness.recording._cassette:HarnessCassette.can_play_response_for",
    "harness.recording._cassette:HarnessCassette.play_response",
    "harness.testing.cassettes.recorded:_build",
    "harness.testing.rows.workspace:Workspace.copy_fixture",
    "harness.testing.rows.runlog:RunLog.traces",
    "harness.testing.rows.runlog:RunLog.summary",
    "harness.evals.checks:run_checks",
    "harness.testing.rows.evidence:Evidence.assert_metadata_trace",
)


def breakdown(project: Path, providers: tuple[str, ...]) -> None:
    """Where a row's time goes: one serial replay timed inside by ``bench/row_timer.py``.

    Medians per row over the rows of the run (the first rows, which import the
    SDKs, count as any other): the phases of pytest's protocol, each fixture's
    setup and teardown, and the harness functions in :data:`BREAKDOWN_WRAP`.
    """
    import json

    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "rows.json"
        env = {
            "PYTHONPATH": os.pathsep.join(
                [str(ROOT / "bench"), os.environ.get("PYTHONPATH", "")]
            ).rstrip(os.pathsep),
            "ROW_TIMER_WRAP": ",".join(BREAKDOWN_WRAP),
            "ROW_TIMER_OUT": str(out),
        }
        run = harness_eval(project, *provider_args(providers), "-p", "row_timer", env_extra=env)
        if run.code != 0 or not out.exists():
            print(f"breakdown: the timed run failed (exit {run.code})")
            print("\n".join("      " + line for line in run.stdout.splitlines()[-10:]))
            return
        table: dict[str, list[float]] = json.loads(out.read_text("utf-8"))
    rows = len(next(iter(table.values()), []))
    print(f"where a row's time goes ({rows} rows, serial, timed inside the run; ms per row):")
    print(f"  {'':<58} {'median':>7} {'p25':>7} {'p75':>7}")
    figures = []
    for label, seconds in table.items():
        ordered = sorted(seconds)
        quartiles = statistics.quantiles(ordered, n=4) if len(ordered) > 1 else ordered * 3
        figures.append((statistics.median(ordered) * 1000, label, quartiles))
    for median, label, (p25, _, p75) in sorted(figures, reverse=True):
        if median >= 0.01:
            print(f"  {label:<58} {median:7.3f} {p25 * 1000:7.3f} {p75 * 1000:7.3f}")


def view_figures(report: Path, out: Path) -> tuple[float, float | None, str]:
    """Page size (MB) of ``harness view REPORT`` and its open time in Chromium (s)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "harness", "view", str(report), "--output", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    build = time.perf_counter() - started
    if done.returncode != 0:
        return float("nan"), None, f"harness view failed: {done.stderr.strip()[-200:]}"
    size = out.stat().st_size / 1e6
    try:
        from playwright.sync_api import sync_playwright

        from tests.view.conftest import chromium_path, launch_chromium
    except ImportError:
        return size, None, f"build {build:.2f} s; no playwright"
    executable = chromium_path() or "/usr/bin/chromium"
    opens: list[float] = []
    built: list[float] = []
    with sync_playwright() as playwright, tempfile.TemporaryDirectory() as home:
        browser = launch_chromium(playwright, executable, Path(home))
        try:
            for _ in range(3):
                page = browser.new_page()
                started = time.perf_counter()
                page.goto(out.as_uri())
                page.wait_for_selector("body[data-ready='1']", timeout=60_000)
                opens.append(time.perf_counter() - started)
                # The rows past the first screen are built when the page is idle.
                page.wait_for_selector("body[data-complete='1']", timeout=60_000, state="attached")
                built.append(time.perf_counter() - started)
                page.close()
        finally:
            browser.close()
    rows = statistics.median(built)
    return size, statistics.median(opens), f"build {build:.2f} s; every row in {rows:.2f} s"


def scaled_report(
    source: Path, rows: int, out: Path, *, flip_every: int = 0, start: int = 0
) -> None:
    """A report of ``rows`` rows copied from ``source``'s, each copy a case of its own
    (rows ``start`` to ``start + rows`` of the endless copy)."""
    from harness.evals import Verdict, load_report

    report = load_report(source)
    made = []
    for k in range(start, start + rows):
        row = report.rows[k % len(report.rows)]
        copy = k // len(report.rows)
        update: dict[str, Any] = {
            "scenario": f"{row.scenario}#{copy}",
            "nodeid": row.nodeid.replace("[", f"[c{copy}-", 1),
        }
        if flip_every and k % flip_every == 0:
            update["verdict"] = Verdict.FAIL
        made.append(row.model_copy(update=update))
    report.model_copy(update={"rows": tuple(made)}).write(out)


def timed_cli(*args: str) -> tuple[float, float, int]:
    """Wall and CPU seconds of ``harness ARGS`` in a subprocess, and its exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "harness", *args], capture_output=True, text=True, check=False
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        wall,
        after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
        done.returncode,
    )


def compare_merge(source: Path, folder: Path) -> None:
    print("compare / merge of synthetic reports (target < 2 s each):")
    for rows in (1_000, 10_000):
        old, new = folder / f"old-{rows}.json", folder / f"new-{rows}.json"
        scaled_report(source, rows, old)
        scaled_report(source, rows, new, flip_every=97)
        wall, cpu, code = timed_cli("eval", "compare", str(old), str(new), "--fail-on", "never")
        print(f"  compare {rows:6d} rows: wall {wall:5.2f} s  cpu {cpu:5.2f} s  (exit {code})")
        # Two shards of rows/2 each: disjoint, as pytest-split's groups are.
        first, second = folder / f"shard1-{rows}.json", folder / f"shard2-{rows}.json"
        scaled_report(source, rows // 2, first)
        scaled_report(source, rows - rows // 2, second, start=rows // 2)
        merged = folder / f"merged-{rows}.json"
        wall, cpu, code = timed_cli(
            "eval", "merge", str(first), str(second), "--output", str(merged)
        )
        print(f"  merge   {rows:6d} rows: wall {wall:5.2f} s  cpu {cpu:5.2f} s  (exit {code})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default="50,200,500", help="case counts, comma-separated")
    parser.add_argument("--providers", default=",".join(PROVIDERS))
    parser.add_argument("--runs", type=int, default=2, help="replays per mode (median shown)")
    parser.add_argument("--quick", action="store_true", help="50 cases, one run each")
    parser.add_argument("--no-mutants", action="store_true")
    parser.add_argument("--no-view", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the temp projects")
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        help="also replay serially with the harness package in this folder, side by side",
    )
    parser.add_argument(
        "--dist", default=None, help="pytest-xdist mode for -n auto (load, worksteal, ...)"
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="also time one serial replay of the largest size from inside (bench/row_timer.py)",
    )
    parser.add_argument(
        "--disk-scratch",
        action="store_true",
        help="also replay serially with the run's scratch in the system temp folder (on disk)",
    )
    args = parser.parse_args()
    sizes = [50] if args.quick else [int(n) for n in args.cases.split(",")]
    runs = 1 if args.quick else args.runs
    providers = tuple(p for p in args.providers.split(",") if p)
    from harness.evals.scratch import scratch_parent

    print(f"harness eval at scale: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    disk = Path(tempfile.gettempdir())
    print(f"scratch: {scratch_parent() or disk} (--disk-scratch also runs it in {disk})")
    tmp = Path(tempfile.mkdtemp(prefix="harness-scale-"))
    serial_ms: dict[int, float] = {}
    largest: Path | None = None
    for cases in sizes:
        project = tmp / f"p{cases}"
        generate(project, cases)
        recorded = record(project, providers)
        print(f"{cases} cases x {len(providers)} providers:")
        show("record", recorded)
        pick = provider_args(providers)
        dist = ["--dist", args.dist] if args.dist else []
        # Each turn runs this tree and the base (if any), serially and -n auto, one
        # after the other: the machine's speed drifts, and the ratios would measure it.
        turns = []
        for _ in range(runs):
            turn = {"serial": harness_eval(project, *pick)}
            turn["-n auto"] = harness_eval(project, "-n", "auto", *dist, *pick)
            if args.against is not None:
                turn["serial base"] = harness_eval(project, *pick, tree=args.against)
                turn["-n auto base"] = harness_eval(
                    project, "-n", "auto", *dist, *pick, tree=args.against
                )
            if args.disk_scratch:
                turn["serial disk"] = harness_eval(project, *pick, scratch=disk)
            turns.append(turn)
        picked = {label: best([turn[label] for turn in turns]) for label in turns[0]}
        for label, run in picked.items():
            show(label, run)
        serial = picked["serial"]
        if args.against is not None:
            for label in ("serial", "-n auto"):
                mine, other = picked[label], picked[f"{label} base"]
                print(
                    f"  {label} this tree / base: wall {mine.wall / other.wall:.2f}x, "
                    f"cpu {mine.cpu / other.cpu:.2f}x (in turns, median of {runs})"
                )
        if serial.rows:
            serial_ms[serial.rows] = serial.wall * 1000
        largest = project
    if args.breakdown and largest is not None:
        breakdown(largest, providers)
    if len(serial_ms) > 1:
        overhead(tmp / f"p{min(sizes)}", tmp / f"p{max(sizes)}", providers, runs)
    elif serial_ms:
        floor = floor_ms(tmp / f"p{min(sizes)}", providers)
        print(f"bare agent run: {floor:.1f} ms per row (give two sizes for the marginal cost)")
    if not args.no_mutants:
        project = tmp / f"p{min(sizes)}"
        subset = [
            "--harness-provider",
            "openai",
            "-k",
            " or ".join(f"gen-{i:04d}" for i in range(50)),
        ]
        for label, extra in (("serial", []), ("-n auto", ["-n", "auto"])):
            started = time.perf_counter()
            run = harness_eval(project, "--mutants", "--fail-on", "never", *subset, *extra)
            from harness.evals import load_report

            mutants = len(load_report(project / "report.json").mutants)
            wall = time.perf_counter() - started
            print(
                f"  mutants {label:<8} {mutants} mutants of {min(50, min(sizes))} rows: wall "
                f"{wall:6.2f} s cpu {run.cpu:6.2f} s  {mutants / wall:5.1f} mutants/s "
                f"(exit {run.code})"
            )
    if largest is not None:
        report = largest / "report.json"
        harness_eval(largest, "-n", "auto", *provider_args(providers), report=report)
        if not args.no_view:
            size, opened, note = view_figures(report, tmp / "page.html")
            shown = f"{opened:.2f} s" if opened is not None else "n/a"
            print(
                f"view of {report.name} ({largest.name}): {size:.2f} MB, open {shown} ({note}); "
                f"target < {TARGETS['view_mb']:g} MB and < 1 s"
            )
        compare_merge(report, tmp)
    if args.keep:
        print(f"projects kept in {tmp}")
    else:
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
