"""The simulator as a command: one-line start-up errors, HARNESS_SCRIPT turn files and
its request log (real subprocesses and real sockets on 127.0.0.1)."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from harness.core.errors import ConfigurationError
from harness.providers.script_file import load_script as load_turn_file
from harness.simulator import SimulatorServer, check_host, load_script

TURN_FILE = """\
- tool: read
  arguments: {path: notes.txt}
- "The notes say hello."
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_SCRIPT"}
    return {**env, **extra}


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env or _env(),
        check=False,
    )


def _assert_one_line_error(done: subprocess.CompletedProcess[str], *parts: str) -> None:
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), done.stderr
    assert "Traceback" not in done.stderr
    for part in parts:
        assert part in lines[0], (part, lines[0])


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.yaml"
    path.write_text("version: 1\nturns: [pong]\n")
    return path


@pytest.mark.deep
@pytest.mark.parametrize(
    "entry",
    [
        ["-m", "harness.simulator"],
        ["-m", "harness", "sim", "serve"],
    ],
)
def test_start_up_errors_are_one_line_with_exit_2(
    entry: list[str], tmp_path: Path, script: Path, busy_port: int
) -> None:
    missing = tmp_path / "missing.yaml"
    _assert_one_line_error(
        _run(*entry, "--script", str(missing)), "cannot read simulator script", str(missing)
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("turns: [unclosed\n  - x: {\n")
    _assert_one_line_error(_run(*entry, "--script", str(broken)), "is not valid YAML")
    wrong = tmp_path / "wrong.yaml"
    wrong.write_text("version: 1\nturns:\n  - {}\nturn_order: sideways\n")
    _assert_one_line_error(
        _run(*entry, "--script", str(wrong)),
        "invalid simulator script",
        "turns.0",
        "turn_order",
    )
    _assert_one_line_error(
        _run(*entry, "--script", str(script), "--port", str(busy_port)),
        f"127.0.0.1:{busy_port}",
        "already in use",
    )
    # The simulator says "must be 0-65535"; the harness CLI checks the range first.
    _assert_one_line_error(_run(*entry, "--script", str(script), "--port", "70000"), "65535")


def test_no_script_names_the_variable() -> None:
    _assert_one_line_error(_run("-m", "harness.simulator"), "--script", "HARNESS_SCRIPT")


def test_server_start_raises_configuration_error_on_a_busy_port(busy_port: int) -> None:
    with pytest.raises(ConfigurationError, match="already in use"):
        SimulatorServer({"turns": ["x"]}, port=busy_port).start()


def _chat(url: str, messages: list[dict[str, object]]) -> dict[str, object]:
    with httpx2.Client(base_url=url) as client:
        reply = client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": messages, "tools": [_READ_TOOL]},
        )
    answer: dict[str, object] = reply.json()
    return answer


_READ_TOOL = {
    "type": "function",
    "function": {"name": "read", "parameters": {"type": "object", "properties": {}}},
}


def test_a_harness_script_turn_file_is_served_per_conversation(tmp_path: Path) -> None:
    path = tmp_path / "turns.yaml"
    path.write_text(TURN_FILE)
    assert len(load_turn_file(path)) == 2  # the file HARNESS_PROVIDER=scripted reads
    script = load_script(path)
    assert script.turn_order == "conversation"
    assert script.turns[0].tool_calls[0].name == "read"
    with SimulatorServer(path) as server:
        user = {"role": "user", "content": "what do the notes say?"}
        for _ in range(2):  # two conversations, each starts at turn 1
            first = _chat(server.url, [user])
            call = first["choices"][0]["message"]["tool_calls"][0]  # type: ignore[index]
            assert call["function"]["name"] == "read"
            assert json.loads(call["function"]["arguments"]) == {"path": "notes.txt"}
            second = _chat(
                server.url,
                [
                    user,
                    {"role": "assistant", "content": None, "tool_calls": [call]},
                    {"role": "tool", "tool_call_id": call["id"], "content": "hello"},
                ],
            )
            text = second["choices"][0]["message"]["content"]  # type: ignore[index]
            assert text == "The notes say hello."


def test_an_error_turn_answers_400(tmp_path: Path) -> None:
    path = tmp_path / "turns.json"
    path.write_text(json.dumps([{"error": "scripted failure"}]))
    with SimulatorServer(path) as server, httpx2.Client(base_url=server.url) as client:
        reply = client.post(
            "/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
        )
    assert reply.status_code == 400 and "scripted failure" in reply.text


@pytest.mark.deep
def test_harness_script_variable_serves_the_turn_file(tmp_path: Path) -> None:
    path = tmp_path / "turns.yaml"
    path.write_text(TURN_FILE)
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.simulator", "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(HARNESS_SCRIPT=str(path)),
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        answer = _chat(url, [{"role": "user", "content": "notes?"}])
        assert answer["choices"][0]["message"]["tool_calls"]  # type: ignore[index]
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    # The foreground server logs each request and what answered it.
    assert "harness.simulator POST /v1/chat/completions -> 200, answered by turn 1 of 2" in err


def test_each_request_is_logged_with_the_rule_that_answered(
    caplog: pytest.LogCaptureFixture,
) -> None:
    script = {
        "rules": [{"when": {"last_user_contains": "ping"}, "reply": "pong"}],
        "turns": ["first"],
    }
    with (
        caplog.at_level(logging.INFO, logger="harness.simulator"),
        SimulatorServer(script) as server,
        httpx2.Client(base_url=server.url) as client,
    ):
        for text in ("ping", "other", "again"):
            client.post(
                "/v1/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": text}]},
            )
        client.post("/v1/nowhere", json={})
    lines = [r.getMessage() for r in caplog.records if r.name == "harness.simulator"]
    assert lines == [
        "POST /v1/chat/completions -> 200, answered by rule 1 (reply)",
        "POST /v1/chat/completions -> 200, answered by turn 1 of 1",
        "POST /v1/chat/completions -> 400, no rule applied and no turn left",
        "POST /v1/nowhere -> 404, not an API path the simulator serves",
    ]


@pytest.mark.deep
def test_harness_sim_serve_logs_each_request(script: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "sim", "serve", "--script", str(script), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        for _ in range(2):  # the second finds no turn left: the log says why it refused
            _chat(url, [{"role": "user", "content": "ping"}])
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert "harness.simulator POST /v1/chat/completions -> 200, answered by turn 1 of 1" in err
    assert "harness.simulator POST /v1/chat/completions -> 400, no rule applied" in err


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.5", False),
        ("example.com", False),
    ],
)
def test_check_host_refuses_what_other_machines_can_reach(host: str, loopback: bool) -> None:
    if loopback:
        assert check_host(host) is None
        return
    with pytest.raises(ConfigurationError, match="--allow-remote"):
        check_host(host)
    warning = check_host(host, allow_remote=True)
    assert warning is not None and host in warning and "no authentication" in warning


def _sim_cli(*args: str) -> tuple[int, str]:
    from typer.testing import CliRunner

    from harness.cli import app

    done = CliRunner().invoke(app, ["sim", "serve", *args])
    return done.exit_code, done.output


def test_sim_serve_refuses_every_interface_without_allow_remote(script: Path) -> None:
    code, output = _sim_cli("--script", str(script), "--host", "0.0.0.0", "--port", "0")
    assert code == 2
    assert "0.0.0.0 is not a loopback address" in output and "--allow-remote" in output
    assert "listening" not in output


def test_sim_serve_with_allow_remote_warns_before_it_binds(script: Path) -> None:
    # 192.0.2.1 (TEST-NET-1) is no address of this machine: the bind fails after the
    # warning, so nothing ever listens beyond loopback.
    code, output = _sim_cli(
        "--script", str(script), "--host", "192.0.2.1", "--port", "0", "--allow-remote"
    )
    lines = output.splitlines()
    assert lines[0].startswith("warning: the simulator listens on 192.0.2.1")
    assert code == 2 and "cannot listen on 192.0.2.1" in output
