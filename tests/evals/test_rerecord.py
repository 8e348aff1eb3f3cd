"""Re-recording the evals against the simulator reproduces the committed cassettes.

The command is the documented one plus ``--harness-stream both``, which records
every provider eval a second time in streaming mode (``<test>-stream.yaml``).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.simulator import SimulatorServer

ROOT = Path(__file__).resolve().parents[2]
_VOLATILE = (
    (re.compile(r"^(\s*recorded_at: ).*$"), r"\1<time>"),
    # Only the metadata names the simulator's port: requests are stored under the
    # provider's canonical host, so match lines and their checksums must be equal.
    (re.compile(r"^(\s*recorded_against: 127\.0\.0\.1):\d+ "), r"\1:<port> "),
)


def _normalised(path: Path) -> list[str]:
    lines = []
    for line in path.read_text("utf-8").splitlines():
        for pattern, replacement in _VOLATILE:
            line = pattern.sub(replacement, line)
        lines.append(line)
    return lines


# The default run re-records these eval files; the deep tier all of evals/.
SAMPLE = ("evals/test_edit_flow.py", "evals/test_approval_flow.py")


@pytest.mark.deep
def test_rerecording_reproduces_the_committed_cassettes(tmp_path: Path) -> None:
    _assert_rerecording_reproduces(tmp_path, ("evals",))


@pytest.mark.deep
def test_rerecording_a_sample_reproduces_its_committed_cassettes(tmp_path: Path) -> None:
    _assert_rerecording_reproduces(tmp_path, SAMPLE)


def _assert_rerecording_reproduces(tmp_path: Path, targets: tuple[str, ...]) -> None:
    out = tmp_path / "cassettes"
    with SimulatorServer(ROOT / "fixtures" / "sim" / "evals.yaml") as server:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                *targets,
                "-q",
                "-p",
                "no:randomly",
                "--record-mode",
                "rewrite",
                "--harness-base-url",
                server.url,
                "--harness-stream",
                "both",
                "--harness-cassette-dir",
                str(out),
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    recorded = sorted(p.relative_to(out) for p in out.rglob("*.yaml"))
    stems = {Path(target).stem for target in targets if target != "evals"}
    committed = sorted(
        p.relative_to(ROOT / "cassettes")
        for p in (ROOT / "cassettes").rglob("*.yaml")
        if not stems or p.parent.name in stems
    )
    assert committed and recorded == committed
    for relative in recorded:
        assert _normalised(out / relative) == _normalised(ROOT / "cassettes" / relative), relative
