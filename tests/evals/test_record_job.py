"""The CI record job records (never replays) and never labels a simulator recording live.

The commands are read from ``.github/workflows/evals.yml``, so these tests
follow the workflow: the job's ``harness eval`` line, run against the
simulator with a cassette already in place, must re-record it (its
``recorded_at`` changes); the job's guard step must then refuse it as live, and
accept the same files once they say they came from a real API host.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.simulator import SimulatorServer

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "evals.yml"
INPUTS = {"provider": "openai", "model": "gpt-4.1-mini"}
EDIT_CASSETTE = Path("cassettes/openai/gpt-4.1-mini/evals/test_edit_flow/test_edit_flow.yaml")
OLD_TIME = "2000-01-01T00:00:00+00:00"


def _record_steps() -> list[str]:
    workflow: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    steps = workflow["jobs"]["record"]["steps"]
    return [" ".join(str(step["run"]).split()) for step in steps if "run" in step]


def _command(marker: str) -> list[str]:
    """The record job's step that runs ``marker``, inputs filled in, as argv."""
    (line,) = [run for run in _record_steps() if run.startswith(marker)]
    for name, value in INPUTS.items():
        line = line.replace(f"${{{{ inputs.{name} }}}}", value)
    assert "${{" not in line, f"an unfilled expression is left in {line!r}"
    return shlex.split(line)


def _recorded_at(path: Path) -> str:
    match = re.search(r"^\s*recorded_at: '?([^'\n]+)'?$", path.read_text("utf-8"), re.MULTILINE)
    assert match, f"{path} has no recorded_at"
    return match.group(1)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the suite whose edit cassette says it was recorded long ago."""
    for folder in ("evals", "fixtures", "cassettes"):
        shutil.copytree(
            ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    cassette = tmp_path / EDIT_CASSETTE
    text = cassette.read_text("utf-8")
    cassette.write_text(text.replace(_recorded_at(cassette), OLD_TIME, 1), "utf-8")
    return tmp_path


def test_the_record_job_uses_rewrite_and_guards_its_recording() -> None:
    steps = _record_steps()
    (record,) = [s for s in steps if s.startswith("harness eval")]
    assert "--record-mode rewrite" in record and "--record-mode once" not in record
    (guard,) = [s for s in steps if s.startswith("python .github/scripts/check_recording.py")]
    assert "--live" in guard and '--since "$RECORD_START"' in guard


@pytest.mark.deep
def test_the_record_job_command_re_records_an_existing_cassette(project: Path) -> None:
    command = _command("harness eval")
    assert command[:2] == ["harness", "eval"]
    started = datetime.now(UTC).replace(microsecond=0)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    with SimulatorServer(ROOT / "fixtures" / "sim" / "evals.yaml") as sim:
        extra = ["--harness-base-url", sim.url, "-k", "edit", "-p", "no:randomly"]
        done = subprocess.run(
            [sys.executable, "-m", "harness", *command[1:], *extra],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    cassette = project / EDIT_CASSETTE
    assert _recorded_at(cassette) != OLD_TIME, "the record job replayed the cassette"
    assert datetime.fromisoformat(_recorded_at(cassette)) >= started
    other = (
        project / "cassettes/anthropic/claude-sonnet-4-6/evals/test_edit_flow/test_edit_flow.yaml"
    )
    assert other.read_bytes() == (ROOT / other.relative_to(project)).read_bytes()

    guard = _command("python .github/scripts/check_recording.py")
    guard = [sys.executable if part == "python" else part for part in guard]
    guard = [started.isoformat() if part == "$RECORD_START" else part for part in guard]
    guard[1] = str(ROOT / guard[1])
    edit_only = project / "edit-only"
    shutil.copytree(cassette.parent, edit_only)
    refused = subprocess.run(
        [*guard[:-1], str(edit_only)], cwd=project, capture_output=True, text=True, check=False
    )
    assert refused.returncode == 1
    assert "(harness simulator), yet this job labels it live" in refused.stderr

    # The job records the plain and the streaming (-stream) cassette of the eval.
    assert {p.name for p in edit_only.glob("*.yaml")} == {
        cassette.name,
        cassette.name.replace(".yaml", "-stream.yaml"),
    }
    for recorded in edit_only.glob("*.yaml"):
        text = recorded.read_text("utf-8")
        live = re.sub(r"recorded_against: .*", "recorded_against: api.openai.com", text)
        recorded.write_text(live, "utf-8")
    accepted = subprocess.run(
        [*guard[:-1], str(edit_only)], cwd=project, capture_output=True, text=True, check=False
    )
    assert accepted.returncode == 0, accepted.stderr

    # The full folder still holds cassettes this run did not record: replayed, refused.
    stale = subprocess.run(guard, cwd=project, capture_output=True, text=True, check=False)
    assert stale.returncode == 1 and "it was replayed, not recorded" in stale.stderr
