"""The committed streaming cassettes replay the scenario evals over SSE, offline.

``--harness-stream on`` runs every provider eval with a streaming provider and
its ``-stream`` cassette; the evals' verdicts are the same as for the plain runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


# The default run replays these eval files streaming; the deep tier all of evals/.
SAMPLE = ("evals/test_subagent_flow.py", "evals/test_policy_flow.py")


@pytest.mark.deep
def test_the_scenario_evals_pass_replaying_their_streaming_cassettes() -> None:
    _assert_streaming_replays(("evals",))


@pytest.mark.deep
def test_a_sample_of_the_evals_passes_replaying_its_streaming_cassettes() -> None:
    _assert_streaming_replays(SAMPLE)


def _assert_streaming_replays(targets: tuple[str, ...]) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    # A basetemp of its own: in the shared temp root, pytest's removal of old
    # folders as it exits races with every other pytest on the machine.
    with tempfile.TemporaryDirectory() as basetemp:
        done = subprocess.run(
            [
                *(sys.executable, "-m", "pytest", *targets, "-q", "-rA"),
                *("-p", "no:randomly", "-p", "no:xdist", "--harness-stream", "on"),
                *("--basetemp", f"{basetemp}/runs"),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    passed = [line for line in done.stdout.splitlines() if line.startswith("PASSED ")]
    streamed = [line for line in passed if "stream-" in line]
    stems = {Path(target).stem for target in targets if target != "evals"}
    stream_cassettes = [
        p
        for p in sorted((ROOT / "cassettes").rglob("*-stream.yaml"))
        if not stems or p.parent.name in stems
    ]
    assert streamed and len(streamed) == len(passed) == len(stream_cassettes), done.stdout[-2000:]
    assert {"stream-openai", "stream-anthropic"} <= {
        part for line in streamed for part in ("stream-openai", "stream-anthropic") if part in line
    }
