"""``python -m harness.simulator`` and ``harness sim serve`` are one command.

The module entry runs the ``harness sim serve`` definition, so both show the same
help, accept the same flags (``--log-bodies`` included) and fail with the same
one-line errors; one real server is started through each.
"""

from __future__ import annotations

import json
import os
import runpy
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

import harness.simulator
from harness.cli import app

MAIN = Path(harness.simulator.__file__).parent / "__main__.py"

# Every flag of the command, with a value where it takes one.
ALL_FLAGS = ("--script", "{script}", "--port", "0", "--host", "127.0.0.1", "--allow-remote")


def _module_entry(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``python -m harness.simulator ARGS`` in this process: exit code, stdout + stderr."""
    saved = sys.argv
    sys.argv = ["harness.simulator", *args]
    try:
        with pytest.raises(SystemExit) as ended:
            runpy.run_path(str(MAIN), run_name="__main__")
    finally:
        sys.argv = saved
    out = capsys.readouterr()
    return int(ended.value.code or 0), out.out + out.err


def _harness_entry(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``harness sim serve ARGS`` in this process, as the console script runs it."""
    with pytest.raises(SystemExit) as ended:
        app(["sim", "serve", *args], prog_name="harness")
    out = capsys.readouterr()
    return int(ended.value.code or 0), out.out + out.err


def test_both_entries_show_the_same_help(
    capsys: pytest.CaptureFixture[str],
) -> None:
    module_code, module_help = _module_entry(["--help"], capsys)
    harness_code, harness_help = _harness_entry(["--help"], capsys)
    assert module_code == harness_code == 0
    assert module_help == harness_help
    for flag in ("--script", "--port", "--host", "--allow-remote", "--log-bodies"):
        assert flag in module_help


def test_both_entries_parse_every_flag_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A missing script fails after parsing: the same one line, so the same options.
    missing = str(tmp_path / "missing.yaml")
    args = [a.replace("{script}", missing) for a in ALL_FLAGS]
    args += ["--log-bodies", str(tmp_path / "bodies.jsonl")]
    module = _module_entry(args, capsys)
    harness = _harness_entry(args, capsys)
    assert module == harness
    assert module[0] == 2 and "cannot read simulator script" in module[1]
    bad = _module_entry(["--port", "70000"], capsys)
    assert bad == _harness_entry(["--port", "70000"], capsys)
    assert bad[0] == 2 and "65535" in bad[1]


@pytest.mark.deep
@pytest.mark.parametrize(
    "entry", [["-m", "harness.simulator"], ["-m", "harness", "sim", "serve"]], ids=["m", "sim"]
)
def test_a_real_serve_through_each_entry(entry: list[str], tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("version: 1\nturns: [pong]\n")
    bodies = tmp_path / "bodies.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_SCRIPT"}
    flags = ["--script", str(script), "--port", "0", "--log-bodies", str(bodies)]
    process = subprocess.Popen(
        [sys.executable, *entry, *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        reply = httpx2.post(
            f"{url}/v1/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "ping"}]},
        )
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert reply.json()["choices"][0]["message"]["content"] == "pong"
    assert "POST /v1/chat/completions -> 200, answered by turn 1 of 1" in err
    logged = [json.loads(line) for line in bodies.read_text().splitlines()]
    assert logged and logged[0]["body"]["messages"][0]["content"] == "ping"
