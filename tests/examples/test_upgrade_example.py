"""The worked upgrade example (examples/upgrade) still works, replayed through the CLI.

It is the README's upgrade workflow on a raw-SDK agent: a report per model
(``harness eval --report``, the new model by ``--harness-model``), the gate
(``harness eval compare``) and the page (``harness view --compare``). Replay
only: the cassettes were recorded against ``harness sim serve`` (see
examples/upgrade/README.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from harness.evals import Verdict, load_report

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "examples" / "cassettes"
OLD, NEW = "gpt-4.1-mini", "gpt-5-mini"
TESTS = ("test_reads_the_code_from_the_notes", "test_follows_the_notes_to_the_code")


def _harness(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd,
        env=clean,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@dataclass(frozen=True)
class Upgrade:
    old: Path
    new: Path
    old_run: subprocess.CompletedProcess[str]
    new_run: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def upgrade(tmp_path_factory: pytest.TempPathFactory) -> Upgrade:
    """Both models' reports, replayed as the example's README runs them."""
    folder = tmp_path_factory.mktemp("upgrade")
    common = ("eval", "--evals-dir", "examples/upgrade", "--harness-cassette-dir")
    old, new = folder / "old.json", folder / "new.json"
    old_run = _harness(*common, str(CASSETTES), "--report", str(old), "-p", "no:randomly")
    new_run = _harness(
        *common, str(CASSETTES), "--harness-model", NEW, "--report", str(new), "-p", "no:randomly"
    )
    return Upgrade(old, new, old_run, new_run)


@pytest.mark.parametrize("model", [OLD, NEW])
def test_each_model_has_its_own_recordings_naming_it(model: str) -> None:
    for test in TESTS:
        path = CASSETTES / model / "examples" / "upgrade" / "test_upgrade" / f"{test}.yaml"
        interactions = yaml.safe_load(path.read_text("utf-8"))["interactions"]
        sent = {json.loads(i["request"]["body"])["model"] for i in interactions}
        assert sent == {model}, path  # recording the new model never overwrote the old one


@pytest.mark.deep  # two `harness eval` replays in subprocesses
def test_the_new_model_fails_the_pointer_case_and_the_gate_says_regression(
    upgrade: Upgrade, tmp_path: Path
) -> None:
    assert upgrade.old_run.returncode == 0, upgrade.old_run.stdout + upgrade.old_run.stderr
    assert upgrade.new_run.returncode == 1, upgrade.new_run.stdout + upgrade.new_run.stderr
    rows = {r.scenario: (r.model, r.verdict) for r in load_report(upgrade.new).rows}
    assert rows == {
        "upgrade-direct": (NEW, Verdict.PASS),
        "upgrade-pointer": (NEW, Verdict.FAIL),
    }
    assert {r.model for r in load_report(upgrade.old).rows} == {OLD}

    gate = _harness("eval", "compare", str(upgrade.old), str(upgrade.new), "--json")
    assert gate.returncode == 1, gate.stdout + gate.stderr  # regression: the default gate fails
    statuses = {case["case"]: case["status"] for case in json.loads(gate.stdout)["cases"]}
    assert statuses == {"upgrade-direct": "same", "upgrade-pointer": "regression"}

    page = tmp_path / "upgrade.html"
    shown = _harness("view", "--compare", str(upgrade.old), str(upgrade.new), "-o", str(page))
    assert shown.returncode == 0, shown.stderr
    assert "upgrade-pointer" in page.read_text("utf-8")
