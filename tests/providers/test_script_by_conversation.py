"""A file-driven script picks its turn by the conversation, so it is the same in every process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.core import ConfigurationError, LLMRequest, Message, ProviderError, ToolCall
from harness.providers import ScriptedProvider
from harness.providers.script_file import scripted_provider_from_file

CALL = ToolCall(id="c1", name="read", arguments={"path": "a"})


def _request(assistant_turns: int) -> LLMRequest:
    messages = [Message.system("sys"), Message.user("go")]
    for index in range(assistant_turns):
        call = ToolCall(id=f"c{index}", name="read", arguments={"path": "a"})
        messages += [Message.assistant("", (call,)), Message.tool(call.id, "text")]
    return LLMRequest(messages=tuple(messages))


def test_the_turn_follows_the_assistant_turns_already_in_the_conversation() -> None:
    provider = ScriptedProvider(["one", "two", "three"], by_conversation=True)
    assert provider.complete(_request(2)).text == "three"
    assert provider.complete(_request(0)).text == "one"
    assert provider.complete(_request(0)).text == "one"  # same request, same answer
    assert provider.complete(_request(1)).text == "two"
    provider.assert_complete()


def test_running_past_the_script_names_the_count_and_the_way_out() -> None:
    provider = ScriptedProvider(["one"], by_conversation=True)
    with pytest.raises(ProviderError, match=r"already holds 1 assistant turn.* has 1.*new session"):
        provider.complete(_request(1))


def test_unused_turns_still_fail_assert_complete() -> None:
    provider = ScriptedProvider(["one", "two"], by_conversation=True)
    provider.complete(_request(0))
    with pytest.raises(AssertionError, match="1 unused turn"):
        provider.assert_complete()


def test_the_python_default_stays_a_strict_queue_in_order() -> None:
    provider = ScriptedProvider(["one", "two"])
    assert provider.complete(_request(5)).text == "one"
    assert provider.complete(_request(0)).text == "two"
    with pytest.raises(ProviderError, match="ran out of turns at step 3"):
        provider.complete(_request(0))


def test_the_file_provider_chooses_by_conversation(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool": "read", "arguments": {"path": "a"}}, "done"]))
    provider = scripted_provider_from_file(script)
    assert provider.by_conversation
    assert provider.complete(_request(1)).text == "done"


def _harness(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.deep
def test_run_then_approve_twice_reaches_final_across_three_processes(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    for folder in ("build", "dist"):  # files to lose: over the overlay, that is what pauses
        (work / folder).mkdir()
        (work / folder / "keep.txt").write_text("keep\n")
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool": "bash", "arguments": {"command": "rm -rf build; echo 1 > one"}},
                {"tool": "bash", "arguments": {"command": "rm -rf dist; echo 2 > two"}},
                "cleaned both",
            ]
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_STATE_DIR=str(tmp_path / "state"),
        HARNESS_WORKDIR=str(work),
        HARNESS_PROVIDER="scripted",
        HARNESS_SCRIPT=str(script),
        HARNESS_ENABLED_TOOLS="read,bash",
    )

    paused = _harness(env, "run", "--json", "--session", "demo", "clean up")  # process 1
    assert paused.returncode == 3, paused.stderr  # 3: paused for approval
    first = json.loads(paused.stdout)
    assert first["stop_reason"] == "approval_required", paused.stderr
    assert not (work / "one").exists()

    again = _harness(env, "approve", "--yes", first["approval_id"])  # process 2: turn 2, not turn 1
    assert again.returncode == 3, again.stderr  # 3: the resumed run paused again
    assert (work / "one").read_text() == "1\n" and not (work / "two").exists()
    pending = json.loads(_harness(env, "approvals", "--json").stdout)
    assert len(pending) == 1 and "rm -rf dist" in json.dumps(pending[0]["arguments"])
    assert pending[0]["approval_id"] != first["approval_id"]

    done = _harness(env, "approve", "--yes", pending[0]["approval_id"])  # process 3: turn 3
    assert done.returncode == 0, done.stderr
    assert "cleaned both" in done.stdout and "final" in done.stdout
    assert (work / "two").read_text() == "2\n"
    assert json.loads(_harness(env, "approvals", "--json").stdout) == []


def test_a_deeply_nested_script_is_a_configuration_error(tmp_path: Path) -> None:
    script = tmp_path / "deep.json"
    script.write_text("[" * 5000 + "]" * 5000)
    with pytest.raises(ConfigurationError, match=r"deep\.json.* nests 5000 levels deep"):
        scripted_provider_from_file(script)
