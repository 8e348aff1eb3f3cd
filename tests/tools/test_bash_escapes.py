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

from harness.tools._protocol import ToolInput
from harness.tools.builtin._bash import BashTool
from tests.tools.conftest import needs_bwrap, needs_landlock

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


# Both sandbox modes (the ``mode`` fixture) by every escape; bwrap's background row,
# the slowest, runs in the deep tier only.
@pytest.mark.parametrize(
    ("mode", "escape"),
    [
        pytest.param(
            mode,
            command,
            id=f"{mode}-{name}",
            marks=[needs, pytest.mark.deep] if (mode, name) == ("bwrap", "background") else needs,
        )
        for mode, needs in (("bwrap", needs_bwrap), ("off", needs_landlock))
        for name, command in ESCAPES.items()
    ],
    indirect=["mode"],
)
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


@pytest.mark.deep
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


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param("bwrap", marks=needs_bwrap),
        pytest.param("off", marks=[needs_landlock, pytest.mark.deep]),
    ],
    indirect=True,
)
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


# Runs harness with a real pty as its controlling terminal, then asks bash to
# push characters into it. The control line proves the pty accepts TIOCSTI.
TIOCSTI_PROBE = r"""
import fcntl, os, sys, termios
from pathlib import Path
from harness.tools.builtin._bash import BashTool
from harness.tools import ToolInput

os.setsid()
tty = os.open(os.ttyname(int(sys.argv[2])), os.O_RDWR)
fcntl.ioctl(tty, termios.TIOCSCTTY, 0)
os.dup2(tty, 0)
try:
    fcntl.ioctl(0, termios.TIOCSTI, b"C")
    print("control WORKED")
except OSError as exc:
    print("control failed:", exc.strerror)
attack = '''python3 - <<'PY'
import fcntl, os, termios
for path in ("/dev/tty", "/proc/self/fd/0", "/proc/1/fd/0"):
    try:
        fd = os.open(path, os.O_RDWR)
        fcntl.ioctl(fd, termios.TIOCSTI, b"X")
        print("TIOCSTI via", path, "WORKED")
    except OSError as exc:
        print("TIOCSTI via", path, "failed:", exc.strerror)
PY'''
tool = BashTool(sandbox=sys.argv[1], state_dir=Path(sys.argv[4]) if sys.argv[4] else None)
print(tool.run(ToolInput({"command": attack}, Path(sys.argv[3]))).text)
"""


@pytest.mark.deep
def test_bash_cannot_type_into_the_users_terminal(
    tmp_path: Path, make_bash: Callable[..., BashTool]
) -> None:
    import os
    import subprocess
    import sys

    made = make_bash()
    mode, state = made.sandbox, str(made.state_dir or "")
    master, slave = os.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-c", TIOCSTI_PROBE, mode, str(slave), str(tmp_path), state],
            pass_fds=(slave,),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(master)
        os.close(slave)

    assert done.returncode == 0, done.stderr
    if "control WORKED" not in done.stdout:
        pytest.skip(f"this kernel refuses TIOCSTI altogether: {done.stdout.splitlines()[0]}")
    assert "TIOCSTI via /dev/tty failed" in done.stdout
    assert "WORKED" not in done.stdout.replace("control WORKED", "")
