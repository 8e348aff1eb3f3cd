"""The committed baselines are reports of the committed suite, one per provider/model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.evals import Verdict, load_report

ROOT = Path(__file__).resolve().parents[2]
BASELINES = ROOT / "evals" / "baselines"
COMPARED = ("verdict", "steps", "llm_calls", "tool_calls", "input_tokens", "output_tokens", "shape")


def _targets() -> list[tuple[str, str]]:
    cassettes = ROOT / "cassettes"
    return sorted((m.parent.name, m.name) for m in cassettes.glob("*/*") if any(m.rglob("*.yaml")))


def test_every_recorded_provider_and_model_has_a_passing_baseline() -> None:
    expected = {f"{p}-{m}.json" for p, m in _targets()}
    assert expected == {p.name for p in BASELINES.glob("*.json")}
    for provider, model in _targets():
        report = load_report(BASELINES / f"{provider}-{model}.json")
        assert {(r.provider, r.model) for r in report.rows} == {(provider, model)}
        assert report.rows and {r.verdict for r in report.rows} == {Verdict.PASS}


@pytest.mark.deep
def test_a_fresh_replay_matches_the_baselines_and_the_ci_gate_passes(eval_replay: Any) -> None:
    new = eval_replay.report
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    harness = [sys.executable, "-m", "harness", "eval"]
    assert eval_replay.returncode == 0, eval_replay.stdout[-2000:] + eval_replay.stderr[-2000:]
    fresh = {(r.scenario, r.provider): r for r in load_report(new).rows}
    for baseline in sorted(BASELINES.glob("*.json")):
        for row in load_report(baseline).rows:
            now = fresh[(row.scenario, row.provider)]
            differs = [f for f in COMPARED if getattr(row, f) != getattr(now, f)]
            assert not differs, f"{baseline.name} {row.scenario}: {differs} changed; regenerate"
        gate = subprocess.run(
            [*harness, "compare", str(baseline), str(new), "--fail-on", "regression"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert gate.returncode == 0, gate.stdout
