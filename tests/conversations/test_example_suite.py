"""The conversation suite (``evals/conversations``): honest cases, replayed offline.

The default tier replays a sample (two conversations, one provider) in process;
the deep tier replays every row on every provider, as CI's line does.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import openai
import pytest

import harness.app
import harness.conversations
import harness.recording
import harness.tools.builtin
import harness.wires.openai.provider
from harness.evals import load_cases

PRELOADED = (
    openai,
    harness.app,
    harness.conversations,
    harness.recording,
    harness.tools.builtin,
    harness.wires.openai.provider,
)

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "evals" / "conversations"
SAMPLE = ("retail-wrong-id", "telecom-data")
SAMPLE_MODULE = "test_conversation_sample"


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
        "retail-wrong-id",
        "telecom-data",
    }
    for case in cases:
        assert case.user is not None and case.checks.state is not None, case.name
        workspace = ROOT / "fixtures" / case.workspace
        assert (workspace / case.checks.state.path).is_file(), case.name
        files = "".join(p.read_text("utf-8") for p in workspace.iterdir() if p.is_file())
        sentinels = [s for s in case.checks.said_contains if s.startswith("SENTINEL-")]
        assert sentinels and all(s in files for s in sentinels), case.name
        assert not any(s in text for s in sentinels for text in case.user.texts()), case.name


def test_a_sample_replays_offline_on_one_provider(pytester: pytest.Pytester) -> None:
    # The two newest conversations: a wrong id corrected, and a user tool with a
    # judge, from the suite's own cassettes. The runner module gets a name of its
    # own (an outer session may have imported evals/test_cases.py already), so its
    # cassettes are copied to the paths that name gives.
    evals = pytester.path / "evals"
    evals.mkdir()
    shutil.copy(ROOT / "evals" / "conftest.py", evals / "conftest.py")
    shutil.copy(ROOT / "evals" / "test_cases.py", evals / f"{SAMPLE_MODULE}.py")
    shutil.copytree(
        ROOT / "fixtures" / "conversations", pytester.path / "fixtures" / "conversations"
    )
    recorded = SUITE / "cassettes" / "openai" / "gpt-4.1-mini" / "evals" / "test_cases"
    copied = pytester.path / "cassettes" / "openai" / "gpt-4.1-mini" / "evals" / SAMPLE_MODULE
    copied.mkdir(parents=True)
    for name in SAMPLE:
        shutil.copy(recorded / f"test_cases-{name}.yaml", copied)
    result = pytester.runpytest(
        f"evals/{SAMPLE_MODULE}.py", "-p", "no:randomly", "-k", " or ".join(SAMPLE),
        "--harness-provider", "openai",
        "--harness-cases", str(SUITE),
        "--harness-cassette-dir", str(pytester.path / "cassettes"),
        "--harness-block-live",
    )  # fmt: skip
    result.assert_outcomes(passed=2)


@pytest.mark.deep  # 40 rows in a pytest subprocess
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
    assert "40 passed" in done.stdout
