"""Ctrl-C during ``harness eval`` ends pytest's session instead of killing it, keeps the
report of the rows that ran and the cassettes recorded so far, and says so in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from harness.evals import load_report
from tests.suite.signals import DEFAULT_SIGINT

EVALS = """
import pathlib
import time

import pytest


@pytest.mark.eval("first")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_first(harness_app):
    assert harness_app.run("hi").text == "hello"


@pytest.mark.eval("second")
def test_second():
    (pathlib.Path(__file__).parent.parent / "second-started").write_text("")
    time.sleep(120)  # until Ctrl-C
"""

SCRIPT: dict[str, Any] = {"version": 1, "rules": [{"when": {}, "reply": "hello"}]}


def _wait_for(path: Path, process: subprocess.Popen[str]) -> None:
    for _ in range(2400):  # up to two minutes on a loaded machine
        if path.exists() or process.poll() is not None:
            break
        time.sleep(0.05)
    if not path.exists() and process.poll() is None:
        process.kill()
    assert path.exists(), (
        "the second eval never started:\n" + "".join(process.communicate())[-3000:]
    )


def test_ctrl_c_keeps_the_report_and_the_cassettes_and_says_so(
    tmp_path: Path, sim_server: Any
) -> None:
    server = sim_server(SCRIPT)
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "test_two.py").write_text(EVALS, "utf-8")
    report = tmp_path / "report.json"
    command = [
        *DEFAULT_SIGINT,
        *("-m", "harness", "eval", "--report", str(report), "--"),
        *("-p", "no:randomly", "-p", "no:cacheprovider", "--record-mode", "once"),
        *("--harness-base-url", server.url),
    ]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("OPENAI_API_KEY", None)
    # Its own process group, as a terminal's foreground job: Ctrl-C reaches all of it.
    with subprocess.Popen(
        command,
        cwd=tmp_path,
        env=env,
        text=True,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        _wait_for(tmp_path / "second-started", process)
        assert process.poll() is None, "".join(process.communicate())[-3000:]
        os.killpg(process.pid, signal.SIGINT)
        out, err = process.communicate(timeout=120)
    assert process.returncode == 130, (out, err)
    (line,) = [line for line in err.splitlines() if line.startswith("error:")]
    cassette = "cassettes/openai/gpt-4.1-mini/evals/test_two/test_first.yaml"
    assert f"report of the 1 row(s) that ran written to {report}" in line, err
    assert f"1 cassette(s) recorded so far are kept ({cassette})" in line, err
    assert "Traceback" not in err and "aborted" not in err
    (row,) = load_report(report).rows
    assert (row.scenario, row.verdict.value) == ("first", "pass")
    assert (tmp_path / cassette).is_file()
