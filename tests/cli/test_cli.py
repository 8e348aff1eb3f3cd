"""The harness command: in-process with CliRunner and as real subprocesses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update({"HARNESS_STATE_DIR": str(tmp_path / "state"), "HARNESS_WORKDIR": str(tmp_path)})
    env.update(extra)
    return env


def _harness(tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=_env(tmp_path, **extra),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.deep
def test_run_echo_offline_as_a_subprocess(tmp_path: Path) -> None:
    done = _harness(tmp_path, "run", "hello")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "hello"
    assert "stop_reason: final" in lines[1]


@pytest.mark.deep
def test_health_rejects_unknown_tool_in_one_line(tmp_path: Path) -> None:
    done = _harness(tmp_path, "health", HARNESS_ENABLED_TOOLS="read,nope")
    assert done.returncode != 0
    errors = done.stderr.strip().splitlines()
    assert len(errors) == 1
    assert "nope" in errors[0] and "HARNESS_ENABLED_TOOLS" in errors[0]
    assert "read, write, edit, bash, explore" in errors[0]


@pytest.mark.parametrize(
    ("variable", "value", "fragment"),
    [
        ("HARNESS_PROVIDER", "gpt5", "HARNESS_PROVIDER"),
        ("HARNESS_MAX_STEPS", "many", "HARNESS_MAX_STEPS"),
        ("HARNESS_MAX_STEPS", "0", "HARNESS_MAX_STEPS"),
        ("HARNESS_TRACE_MODE", "verbose", "HARNESS_TRACE_MODE"),
        ("HARNESS_TOOL_DENYLIST", "rm", "HARNESS_TOOL_DENYLIST"),
    ],
    ids=["provider", "steps-text", "steps-zero", "trace-mode", "denylist"],
)
def test_bad_settings_name_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, fragment: str
) -> None:
    for key, val in _env(tmp_path).items():
        monkeypatch.setenv(key, val)
    monkeypatch.setenv(variable, value)
    result = CliRunner().invoke(app, ["health"])
    assert result.exit_code == 2
    assert fragment in result.output


def test_health_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, val in _env(tmp_path, HARNESS_ENABLED_TOOLS="read,write").items():
        monkeypatch.setenv(key, val)
    result = CliRunner().invoke(app, ["health", "--json"])
    info = json.loads(result.output)
    assert info["provider"] == "echo" and info["enabled_tools"] == ["read", "write"]


def test_run_json_and_scripted_provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    script = tmp_path / "script.yaml"
    script.write_text("- tool: read\n  arguments: {path: a.txt}\n- done reading\n")
    env = _env(tmp_path, HARNESS_PROVIDER="scripted", HARNESS_SCRIPT=str(script))
    for key, val in env.items():
        monkeypatch.setenv(key, val)
    result = CliRunner().invoke(app, ["run", "--json", "read a.txt"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["text"], data["stop_reason"], data["steps"]) == ("done reading", "final", 2)


@pytest.mark.deep
def test_trace_show_renders_the_outline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    done = _harness(tmp_path, "run", "--json", "hello")
    trace_path = json.loads(done.stdout)["trace_path"]
    shown = _harness(tmp_path, "trace", "show", "--outline", trace_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == ["agent.run", "  agent.step", "    llm.call"]
    for key, val in _env(tmp_path).items():
        monkeypatch.setenv(key, val)
    rendered = CliRunner().invoke(app, ["trace", "show", trace_path])
    assert rendered.exit_code == 0
    assert "agent.run" in rendered.output and "llm.call" in rendered.output


@pytest.mark.deep
def test_trace_show_on_a_corrupt_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    done = _harness(tmp_path, "trace", "show", str(bad))
    assert done.returncode != 0 and "bad.json" in done.stderr


@pytest.mark.deep
def test_approval_flow_through_the_cli(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool": "write", "arguments": {"path": "approval-demo-key.txt", "content": "k"}},
                "created the file",
            ]
        )
    )
    extra = {
        "HARNESS_PROVIDER": "scripted",
        "HARNESS_SCRIPT": str(script),
        "HARNESS_ENABLED_TOOLS": "read,write",
    }
    paused = _harness(tmp_path, "run", "--json", "--session", "demo", "make it", **extra)
    data = json.loads(paused.stdout)
    assert data["stop_reason"] == "approval_required"
    listed = _harness(tmp_path, "approvals", **extra)
    assert data["approval_id"] in listed.stdout and "tool=write" in listed.stdout
    # A fresh process resumes with the script's next turn (chosen by conversation).
    approved = _harness(tmp_path, "approve", "--yes", data["approval_id"], **extra)
    assert approved.returncode == 0, approved.stderr
    assert "created the file" in approved.stdout
    assert (tmp_path / "approval-demo-key.txt").read_text() == "k"
    again = _harness(tmp_path, "approve", "--yes", data["approval_id"], **extra)
    assert again.returncode == 1 and "already consumed" in again.stderr


_LONG_TASK = "Refactor the parser.\nKeep the 'quotes' and $VARS as they are.\n" + "x " * 5000


@pytest.mark.parametrize("source", ["stdin", "file"])
def test_run_reads_a_long_task_from_stdin_or_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    for key, val in _env(tmp_path).items():
        monkeypatch.setenv(key, val)
    task = tmp_path / "task.txt"
    task.write_text(_LONG_TASK + "\n")
    args = ["run", "--json", "-"] if source == "stdin" else ["run", "--json", "--prompt-file"]
    if source == "file":
        args.append(str(task))
    stdin = _LONG_TASK + "\n" if source == "stdin" else None
    result = CliRunner().invoke(app, args, input=stdin)
    assert result.exit_code == 0, result.output
    # The echo provider answers with the task it was given: all of it, as typed.
    assert json.loads(result.output)["text"] == _LONG_TASK


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run"], "no task given: harness run 'TEXT', harness run - (read stdin)"),
        (["run", "hi", "--prompt-file", "{task}"], "not both"),
        (["run", "--prompt-file", "{missing}"], "cannot read --prompt-file"),
    ],
    ids=["none", "both", "missing-file"],
)
def test_run_says_how_to_give_the_task(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    for key, val in _env(tmp_path).items():
        monkeypatch.setenv(key, val)
    (tmp_path / "task.txt").write_text("hi\n")
    paths = {"task": str(tmp_path / "task.txt"), "missing": str(tmp_path / "nope.txt")}
    result = CliRunner().invoke(app, [arg.format(**paths) for arg in args])
    assert result.exit_code == 2
    assert message in result.output
