"""``harness eval``: replay the repo's evals, print the table, compare and merge reports.

``harness eval`` itself runs as a subprocess from the repo root (it starts pytest
on ``evals/``); ``compare`` and ``merge`` only read files, so they run in process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.evals import Verdict, load_cases, load_report

ROOT = Path(__file__).resolve().parents[2]
HAND_WRITTEN = (
    "approval[approve]",
    "approval[reject]",
    "concurrent",
    "edit",
    "max_steps",
    "policy",
    "subagent",
)
CASES = tuple(f"case[{case.name}]" for case in load_cases(ROOT / "evals" / "cases"))
SCENARIOS = HAND_WRITTEN + CASES
TARGETS = (
    "anthropic/claude-sonnet-4-6",
    "openai/gpt-4.1-mini",
    "openai-responses/gpt-4.1-mini",
    "gemini/gemini-2.5-flash",
)
RUNS = len(SCENARIOS) * len(TARGETS)


def harness_eval(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``harness eval ARGS`` from the repo root, then drop its copy under .harness/."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    done = subprocess.run(
        [sys.executable, "-m", "harness", "eval", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    # Every run also keeps a timestamped copy in the project; it is not ours to keep.
    match = re.search(r"^report: (\S+?\.json)", done.stdout, re.MULTILINE)
    if match and Path(match.group(1)).parent == ROOT / ".harness" / "reports":
        Path(match.group(1)).unlink(missing_ok=True)
    return done


@pytest.fixture(scope="module")
def evaluated(eval_replay: Any) -> tuple[str, Path]:
    """One replay of every eval (shared with the other tests of the run that need
    one): what it printed and the report it wrote."""
    assert eval_replay.returncode == 0, eval_replay.stdout + eval_replay.stderr
    return eval_replay.stdout, eval_replay.report


@pytest.mark.deep
def test_eval_prints_a_row_per_scenario_and_provider(evaluated: tuple[str, Path]) -> None:
    stdout, report_path = evaluated
    table = stdout[stdout.index("scenario  ") :]
    header, rule, *body = table.splitlines()
    assert header.split() == [
        "scenario",
        "provider/model",
        "source",
        "verdict",
        "steps",
        "llm",
        "tools",
        "tokens",
        "in/out",
        "duration",
        "shape",
    ]
    assert set(rule) == {"-", " "}
    rows = [line.split() for line in body[:RUNS]]
    assert sorted((r[0], r[1]) for r in rows) == sorted((s, t) for s in SCENARIOS for t in TARGETS)
    # Every committed cassette was recorded against `harness sim`: the table says so,
    # and marks its token counts synthetic.
    assert {(r[2], r[3]) for r in rows} == {("simulator", "pass")}
    assert all(r[7].endswith("*") for r in rows)
    assert body[RUNS] == f"{RUNS} eval run(s): {RUNS} pass"
    assert body[RUNS + 1] == f"cost: – ({RUNS} synthetic row(s), not priced)"
    assert (
        body[RUNS + 2] == "* synthetic tokens (simulator or scripted): no real model counted them"
    )
    assert body[RUNS + 3] == f"report: {report_path}"  # exactly --report PATH, no second copy

    report = load_report(report_path)
    assert len(report.rows) == RUNS and report.passed
    assert report.record_mode == "none"
    assert {(row.source, row.tokens_synthetic) for row in report.rows} == {("simulator", True)}
    shapes = {row.scenario: row.shape_ok for row in report.rows}
    # Cases check a trace outline of their own, not a golden shape.
    assert shapes == {**dict.fromkeys(HAND_WRITTEN, True), **dict.fromkeys(CASES)}
    for row in report.rows:
        assert row.steps > 0 and row.llm_calls > 0 and row.tool_calls > 0 and row.tokens > 0
        assert row.shape is not None and row.shape.startswith("agent.run")


def _edited(report_path: Path, target: Path) -> Path:
    """A copy of the report where edit/openai failed and subagent/anthropic changed shape."""
    data: dict[str, Any] = json.loads(report_path.read_text("utf-8"))
    for row in data["rows"]:
        if (row["scenario"], row["provider"]) == ("edit", "openai"):
            row.update(verdict="fail", message="verdict: greeting.py is unchanged")
        if (row["scenario"], row["provider"]) == ("subagent", "anthropic"):
            read = "        tool.call read\n"
            row["shape"] = row["shape"].replace(read, read + "        tool.call bash\n", 1)
    target.write_text(json.dumps(data), "utf-8")
    return target


@pytest.mark.deep
def test_compare_shows_the_flip_and_the_shape_change(
    evaluated: tuple[str, Path], tmp_path: Path
) -> None:
    old = evaluated[1]
    new = _edited(old, tmp_path / "new.json")
    runner = CliRunner()

    shown = runner.invoke(app, ["eval", "compare", str(old), str(new), "--fail-on", "never"])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    flip = lines.index("REGRESSION: edit [openai]")
    assert lines[flip + 1 : flip + 4] == [
        "  pass rate: 1/1 100% [21–100] -> 0/1 0% [0–79]",
        "  every old run passed and the rate fell by 100% >= max drop 50% (p=0.5)",
        "  new fail: verdict: greeting.py is unchanged",
    ]
    shape = lines.index("changed: subagent [anthropic]")
    assert lines[shape + 1] == "  trace shape changed:"
    assert [line for line in lines if line.startswith(("    +", "    -"))] == [
        "    --- old",
        "    +++ new",
        "    +        tool.call bash",
    ]
    assert lines[-1] == (
        "2 case(s) changed: 1 regression(s), 0 weaker, 0 inconclusive, 1 other change(s); "
        "0 not run, 0 slower"
    )

    gated = runner.invoke(app, ["eval", "compare", str(old), str(new), "--fail-on", "regression"])
    assert gated.exit_code == 1
    assert gated.stdout == shown.stdout
    same = runner.invoke(app, ["eval", "compare", str(old), str(old), "--fail-on", "change"])
    assert same.exit_code == 0
    assert same.stdout.splitlines()[0] == "sources: old simulator, new simulator"
    assert same.stdout.splitlines()[-1] == "no changes between the two reports"


@pytest.mark.deep
def test_merge_combines_shards_and_refuses_overlaps(
    evaluated: tuple[str, Path], tmp_path: Path
) -> None:
    whole = json.loads(evaluated[1].read_text("utf-8"))
    shards = []
    providers = ("openai", "openai-responses", "anthropic", "gemini")
    for provider in providers:
        shard = {**whole, "rows": [r for r in whole["rows"] if r["provider"] == provider]}
        shards.append(tmp_path / f"{provider}.json")
        shards[-1].write_text(json.dumps(shard), "utf-8")
    merged = tmp_path / "merged.json"
    runner = CliRunner()

    done = runner.invoke(app, ["eval", "merge", *map(str, shards), "--output", str(merged)])
    assert done.exit_code == 0, done.output
    assert f"merged {len(providers)} report(s) into {merged}" in done.stdout
    assert load_report(merged).rows == load_report(evaluated[1]).rows

    overlap = runner.invoke(
        app, ["eval", "merge", str(shards[0]), str(merged), "--output", str(tmp_path / "x.json")]
    )
    assert overlap.exit_code == 2
    assert "merge reports of disjoint shards only" in overlap.stderr
    assert not (tmp_path / "x.json").exists()


@pytest.mark.deep
def test_epochs_repeat_each_scenario_and_show_pass_rates(tmp_path: Path) -> None:
    report = tmp_path / "epochs.json"
    done = harness_eval("--epochs", "2", "--report", str(report), "--harness-provider", "openai")
    assert done.returncode == 0, done.stdout + done.stderr
    rows = load_report(report).rows
    assert sorted(row.scenario for row in rows) == sorted(SCENARIOS * 2)
    assert {row.verdict for row in rows} == {Verdict.PASS}
    assert len({row.nodeid for row in rows}) == 2 * len(SCENARIOS)
    rates = done.stdout[done.stdout.index("pass rate per scenario") :].splitlines()[
        1 : 3 + len(SCENARIOS)
    ]
    suite = rates.pop(-2)
    assert suite.startswith(f"  mean over {len(SCENARIOS)} case(s): pass@1 100% [")
    assert ", pass^2 100% [" in suite
    assert sorted(line.split()[0] for line in rates[:-1]) == sorted(SCENARIOS)
    expected = ["openai/gpt-4.1-mini", "2/2", "100%", "[34–100]†", "pass^2", "100%", "[12–100]"]
    assert all(line.split()[1:] == expected for line in rates[:-1])
    assert rates[-1].startswith("  † epochs replayed a shared recording")
    by_epoch = {(row.scenario, row.epoch): row.cassette for row in rows}
    assert by_epoch[("edit", 0)] == by_epoch[("edit", 1)] == "test_edit_flow.yaml"
