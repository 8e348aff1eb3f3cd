"""Nothing a bash call starts outlives it, however it tries to get away.

Each escape runs in a real bwrap sandbox and unsandboxed (``off``). Survivors
are looked for from the host by a unique number in their argv, and a loop that
appends to a file shows it stopped: the file does not grow after the call.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.tools.builtin.bash import BashTool
from harness.tools.protocol import ToolInput

Survivors = Callable[[str], list[int]]

ESCAPES = {
    "background": "sleep {mark} &",
    "nohup": "nohup sleep {mark} >/dev/null 2>&1 &",
    "disown": "sleep {mark} & disown",
    "setsid": "setsid sleep {mark} >/dev/null 2>&1 &",
    "setsid-f": "setsid -f sleep {mark} >/dev/null 2>&1",
    "double-fork": "( ( sleep {mark} & ) & )",
    "double-fork-setsid": "( setsid bash -c 'sleep {mark} & sleep {mark}' & )",
    "own-process-group": "set -m; sleep {mark} &",
    "subshell-ignoring-hup": "( trap '' HUP TERM; sleep {mark} ) &",
}


def run(tool: BashTool, workdir: Path, command: str, timeout: int = 30) -> dict[str, object]:
    output = tool.run(ToolInput({"command": command, "timeout_seconds": timeout}, workdir))
    return {"text": output.text, **output.metadata}


@pytest.mark.parametrize("escape", list(ESCAPES.values()), ids=list(ESCAPES))
def test_no_process_survives_the_call(
    tmp_path: Path,
    make_bash: Callable[..., BashTool],
    mark: str,
    survivors: Survivors,
    escape: str,
) -> None:
    result = run(make_bash(), tmp_path, escape.format(mark=mark) + "\necho launched")

    assert result["exit_code"] == 0, result["text"]
    assert "launched" in str(result["text"])
    assert survivors(mark) == []


@pytest.mark.parametrize("escape", list(ESCAPES.values()), ids=list(ESCAPES))
def test_no_process_survives_a_timeout(
    tmp_path: Path,
    make_bash: Callable[..., BashTool],
    mark: str,
    survivors: Survivors,
    escape: str,
) -> None:
    result = run(make_bash(), tmp_path, escape.format(mark=mark) + "\nsleep 30", timeout=1)

    assert result["timed_out"] is True
    assert survivors(mark) == []


def test_a_writer_loop_stops_growing_the_file_when_the_call_returns(
    tmp_path: Path, make_bash: Callable[..., BashTool]
) -> None:
    loop = "while :; do echo tick >> ticks.txt; sleep 0.02; done"
    command = f"setsid -f bash -c '{loop}' >/dev/null 2>&1; sleep 0.3"

    run(make_bash(), tmp_path, command)
    size = (tmp_path / "ticks.txt").stat().st_size
    time.sleep(0.5)  # long enough for 20+ ticks if the loop were alive; not a timing assertion

    assert size > 0
    assert (tmp_path / "ticks.txt").stat().st_size == size


def test_a_fork_loop_is_stopped(
    tmp_path: Path, make_bash: Callable[..., BashTool], mark: str, survivors: Survivors
) -> None:
    # Each round forks a new detached sleeper; the reaper must outpace it.
    command = f"setsid -f bash -c 'while :; do setsid -f sleep {mark}; sleep 0.01; done'; sleep 0.3"

    run(make_bash(), tmp_path, command)

    assert survivors(mark) == []
