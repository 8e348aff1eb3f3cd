"""The committed streaming cassettes replay the scenario evals over SSE, offline.

``--harness-stream on`` runs every provider eval with a streaming provider and
its ``-stream`` cassette; the evals' verdicts are the same as for the plain runs.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_scenario_evals_pass_replaying_their_streaming_cassettes() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "evals", "-q", "-rA"),
            *("-p", "no:randomly", "-p", "no:xdist", "--harness-stream", "on"),
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
    stream_cassettes = sorted((ROOT / "cassettes").rglob("*-stream.yaml"))
    assert streamed and len(streamed) == len(passed) == len(stream_cassettes), done.stdout[-2000:]
    assert {"stream-openai", "stream-anthropic"} <= {
        part for line in streamed for part in ("stream-openai", "stream-anthropic") if part in line
    }
