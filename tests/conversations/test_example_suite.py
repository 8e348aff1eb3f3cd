"""The conversation suite (``evals/conversations``): honest cases, replayed offline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.evals import load_cases

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "evals" / "conversations"


def test_each_case_has_a_state_goal_and_a_sentinel_only_a_tool_result_holds() -> None:
    cases = load_cases(SUITE, root=ROOT)
    assert {case.name for case in cases} == {
        "retail-refund",
        "retail-address",
        "retail-cancel",
        "retail-exchange",
        "telecom-router",
        "telecom-plan",
        "telecom-roaming",
        "telecom-signal",
    }
    for case in cases:
        assert case.user is not None and case.checks.state is not None, case.name
        workspace = ROOT / "fixtures" / case.workspace
        assert (workspace / case.checks.state.path).is_file(), case.name
        files = "".join(p.read_text("utf-8") for p in workspace.iterdir() if p.is_file())
        sentinels = [s for s in case.checks.said_contains if s.startswith("SENTINEL-")]
        assert sentinels and all(s in files for s in sentinels), case.name
        assert not any(s in text for s in sentinels for text in case.user.texts()), case.name


@pytest.mark.deep  # 32 rows in a pytest subprocess
def test_the_suite_replays_offline_on_every_provider() -> None:
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "evals/test_cases.py", "-q", "-p", "no:randomly",
            "--harness-cases", "evals/conversations",
            "--harness-cassette-dir", "evals/conversations/cassettes",
            "--harness-block-live",
        ],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    assert "32 passed" in done.stdout
