"""A held changeset across processes: `harness run` pauses, `harness approve`/`reject` decides.

Approve applies exactly what was shown; reject discards it; a file changed in
the meantime refuses the approve (nothing applied, still pending); an expired
approval's layer is removed; a layer altered after the pause is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.core import LLMRequest, LLMResponse
from harness.providers import ScriptedProvider, tool_call
from harness.tools.sandbox import choose_sandbox

pytestmark = pytest.mark.skipif(
    not choose_sandbox("auto").overlay, reason="bwrap cannot mount an overlay here"
)

DATA = "".join(f"row {i}\n" for i in range(40))
COMMAND = "echo trimming; sed -i '1,30d' data.txt; echo new > created.txt"


def _env(tmp_path: Path, script: list[Any], **extra: str) -> dict[str, str]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    # XDG_STATE_HOME (the approval key's folder) is this test session's, as for the
    # in-process application that pauses: both processes sign with one key.
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_STATE_DIR=str(tmp_path / "state"),
        HARNESS_WORKDIR=str(tmp_path / "work"),
        HARNESS_PROVIDER="scripted",
        HARNESS_SCRIPT=str(path),
        HARNESS_ENABLED_TOOLS="read,bash",
        **extra,
    )
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "data.txt").write_text(DATA)
    return env


def _harness(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _pause(env: dict[str, str], timeout: int = 3600) -> dict[str, Any]:
    """Process A (this one) runs and pauses; the decisions below are process B's."""
    settings = Settings(
        workdir=Path(env["HARNESS_WORKDIR"]),
        state_dir=Path(env["HARNESS_STATE_DIR"]),
        enabled_tools=("read", "bash"),
        approval_timeout_seconds=timeout,
    )
    app = build_application(
        settings, provider=ScriptedProvider([tool_call("bash", command=COMMAND)])
    )
    try:
        result = app.run("trim the data", session="demo")
    finally:
        app.close()
    assert result.stop_reason == "approval_required", result.text
    return {"approval_id": result.approval_id}


def _record(tmp_path: Path) -> dict[str, Any]:
    path = next((tmp_path / "state" / "sessions" / "demo" / "approvals").glob("*.json"))
    loaded: dict[str, Any] = json.loads(path.read_text())
    return loaded


def _layers(tmp_path: Path) -> list[Path]:
    base = tmp_path / "state" / "layers"
    return sorted(base.iterdir()) if base.is_dir() else []


TURNS = [{"tool": "bash", "arguments": {"command": COMMAND}}, "trimmed"]


@pytest.mark.deep
def test_approve_in_another_process_applies_what_was_shown(tmp_path: Path) -> None:
    env = _env(tmp_path, TURNS)
    paused = _pause(env)
    work = tmp_path / "work"
    assert (work / "data.txt").read_text() == DATA and not (work / "created.txt").exists()
    listed = _harness(env, "approvals").stdout
    assert "nothing has reached the workdir yet" in listed
    assert "modified data.txt (+0 -30)" in listed and "created created.txt" in listed
    assert "-row 0" in listed and "trimming" in listed  # the diff and the command's output
    assert len(_layers(tmp_path)) == 1

    approved = _harness(env, "approve", paused["approval_id"])

    assert approved.returncode == 0, approved.stderr
    assert (work / "data.txt").read_text() == DATA[len("".join(f"row {i}\n" for i in range(30))) :]
    assert (work / "created.txt").read_text() == "new\n"
    assert _record(tmp_path)["status"] == "consumed"
    assert _layers(tmp_path) == []


@pytest.mark.deep
def test_reject_discards_the_changes(tmp_path: Path) -> None:
    env = _env(tmp_path, TURNS)
    paused = _pause(env)

    rejected = _harness(env, "reject", paused["approval_id"], "keep the rows")

    assert rejected.returncode == 0, rejected.stderr
    assert (tmp_path / "work" / "data.txt").read_text() == DATA
    assert not (tmp_path / "work" / "created.txt").exists()
    assert _record(tmp_path)["status"] == "rejected"
    assert _layers(tmp_path) == []


@pytest.mark.deep
def test_a_file_changed_meanwhile_refuses_the_approve_and_applies_nothing(
    tmp_path: Path,
) -> None:
    env = _env(tmp_path, TURNS)
    paused = _pause(env)
    (tmp_path / "work" / "data.txt").write_text(DATA + "a human's new line\n")

    approved = _harness(env, "approve", paused["approval_id"])

    assert approved.returncode != 0
    assert "changed since the command ran: data.txt" in approved.stderr + approved.stdout
    assert (tmp_path / "work" / "data.txt").read_text() == DATA + "a human's new line\n"
    assert not (tmp_path / "work" / "created.txt").exists()
    assert _record(tmp_path)["status"] == "pending"  # still decidable: reject, or restore


@pytest.mark.deep
def test_a_layer_altered_after_the_pause_is_refused(tmp_path: Path) -> None:
    env = _env(tmp_path, TURNS)
    paused = _pause(env)
    (layer,) = _layers(tmp_path)
    (layer / "upper" / "created.txt").write_text("swapped in after the human looked\n")

    approved = _harness(env, "approve", paused["approval_id"])

    assert approved.returncode != 0
    assert "created.txt (in the held layer)" in approved.stderr + approved.stdout
    assert not (tmp_path / "work" / "created.txt").exists()
    assert (tmp_path / "work" / "data.txt").read_text() == DATA


@pytest.mark.deep
def test_a_changeset_swapped_after_the_pause_is_refused(tmp_path: Path) -> None:
    env = _env(tmp_path, TURNS)
    paused = _pause(env)
    (layer,) = _layers(tmp_path)
    saved = json.loads((layer / "changeset.json").read_text())
    saved["changes"] = [c for c in saved["changes"] if c["path"] != "data.txt"]
    (layer / "changeset.json").write_text(json.dumps(saved))

    approved = _harness(env, "approve", paused["approval_id"])

    assert approved.returncode != 0
    assert "digest mismatch" in approved.stderr + approved.stdout
    assert not (tmp_path / "work" / "created.txt").exists()


@pytest.mark.deep
def test_expiry_removes_the_layer_and_applies_nothing(tmp_path: Path) -> None:
    env = _env(tmp_path, TURNS)
    paused = _pause(env, timeout=1)
    assert len(_layers(tmp_path)) == 1
    import time

    time.sleep(1.2)
    approved = _harness(env, "approve", paused["approval_id"])

    assert approved.returncode != 0 and "expired" in approved.stderr + approved.stdout
    assert _layers(tmp_path) == []
    assert (tmp_path / "work" / "data.txt").read_text() == DATA


def test_small_changes_apply_at_once_with_one_line_naming_them(tmp_path: Path) -> None:
    _env(tmp_path, [])
    settings = Settings(workdir=tmp_path / "work", state_dir=tmp_path / "state",
                        enabled_tools=("read", "bash"))  # fmt: skip
    provider = _Seeing([tool_call("bash", command="echo hi > hello.txt"), "done"])
    app = build_application(settings, provider=provider)
    try:
        result = app.run("greet", session="demo")
    finally:
        app.close()
    assert result.stop_reason == "final", result.text
    last = provider.requests[-1].messages[-1]
    assert str(last.content).endswith("exit code: 0\nchanges: created hello.txt")
    assert (tmp_path / "work" / "hello.txt").read_text() == "hi\n"
    assert _layers(tmp_path) == []


class _Seeing(ScriptedProvider):
    """The scripted provider, keeping each request (to read the observations sent)."""

    def __init__(self, turns: list[object]) -> None:
        super().__init__(turns)
        self.requests: list[LLMRequest] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        return super().complete(request)


def test_bash_left_ungated_by_the_user_applies_at_once(tmp_path: Path) -> None:
    _env(tmp_path, [])
    settings = Settings(
        workdir=tmp_path / "work",
        state_dir=tmp_path / "state",
        enabled_tools=("read", "bash"),
        approval_required_tools=("write",),
    )
    app = build_application(
        settings, provider=ScriptedProvider([tool_call("bash", command=COMMAND), "ok"])
    )
    try:
        result = app.run("trim the data", session="demo")
    finally:
        app.close()
    assert result.stop_reason == "final", result.text
    assert (tmp_path / "work" / "created.txt").read_text() == "new\n"
    assert _layers(tmp_path) == [] or all(
        not any((p / "upper").iterdir()) for p in _layers(tmp_path)
    )
