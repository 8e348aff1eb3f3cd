"""Attacks on the sandbox's edges: host kernel knobs, and harness's own process.

Writability is tested without writing: an ``O_WRONLY`` open of every file under
``/proc`` and ``/sys`` (never a ``write``), so a failed defence could not change
a host setting. The secrets test runs harness as an unprivileged user with fake
keys in its environment and the sandbox off, and reads ``/proc/$PPID`` as the
agent would.
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

from harness.tools._protocol import ToolInput
from harness.tools.builtin._bash import BashTool
from tests.tools.conftest import needs_bwrap, needs_landlock

# Opens each file for writing and closes it at once; prints the ones that opened.
PROBE = r"""
import os
for top in ("/proc", "/sys"):
    for root, dirs, files in os.walk(top):
        parts = root.split("/")
        own = len(parts) > 2 and (parts[2].isdigit() or parts[2] in ("self", "thread-self"))
        if top == "/proc" and own:
            dirs[:] = []  # the sandbox's own processes: theirs to change
            continue
        for name in files:
            path = os.path.join(root, name)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue
            os.close(fd)
            print("WRITABLE", path)
print("probe done")
"""


@needs_bwrap
def test_no_kernel_knob_opens_for_writing_inside(tmp_path: Path) -> None:
    tool = BashTool(sandbox="required", state_dir=tmp_path / ".harness", key_dir=tmp_path / "k")
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    # The base interpreter, not the virtualenv's: a venv under /tmp (a CI clone) is
    # not visible inside, where /tmp is the sandbox's own. The probe needs the stdlib only.
    python = shlex.quote(os.path.realpath(sys.executable))
    out = tool.run(
        ToolInput({"command": f"{python} probe.py", "timeout_seconds": 300}, tmp_path)
    ).text
    assert "probe done" in out, out[-2000:]
    assert "WRITABLE" not in out, "\n".join(line for line in out.splitlines() if "WRITABLE" in line)


@needs_bwrap
@pytest.mark.parametrize(
    "knob", ["/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname", "/proc/sysrq-trigger"]
)
def test_the_named_knobs_are_read_only(tmp_path: Path, knob: str) -> None:
    tool = BashTool(sandbox="required", state_dir=tmp_path / ".harness", key_dir=tmp_path / "k")
    # `test -w` and an open without a write: never a real write to the host.
    command = f"test -w {knob} && echo WRITABLE || echo read-only"
    out = tool.run(ToolInput({"command": command}, tmp_path)).text
    assert "read-only" in out and "WRITABLE" not in out


COMMAND = (
    "cat /proc/$PPID/environ > /dev/null && echo READ-ENVIRON; head -c1 /proc/$PPID/mem; echo tried"
)


def _nobody() -> tuple[int, int] | None:
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


class _NoConfinement:
    restrict = None

    def close(self) -> None:
        pass


def _as_nobody(base: Path, guard: bool) -> str:
    """Fork, become nobody, run one unsandboxed bash call as harness would; its output.

    ``guard`` False skips harness's guards (Landlock and the non-dumpable flag):
    the positive control, proving the command does read the parent's
    environment when nothing stops it.
    """
    uid, gid = _nobody() or (0, 0)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: harness as an unprivileged user
        status = 1
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            os.environ["OPENAI_API_KEY"] = "sk-test-do-not-leak"
            tool = BashTool(sandbox="off", state_dir=base / "state", key_dir=base / "k")
            if not guard:
                import ctypes

                import harness.tools.sandbox._launch as launch

                # setuid made this process non-dumpable; an ordinary non-root harness
                # (started as that user) is dumpable: put that back, then skip the guards.
                ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)
                launch.make_undumpable = lambda: False  # type: ignore[assignment]
                launch.confine = lambda *args, **kwargs: _NoConfinement()  # type: ignore[assignment]
            out = tool.run(ToolInput({"command": COMMAND}, base / "work")).text
            os.write(write_end, out.encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    chunks = []
    while chunk := os.read(read_end, 65536):
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    assert status == 0
    return b"".join(chunks).decode()


@needs_landlock
@pytest.mark.skipif(os.geteuid() != 0 or _nobody() is None, reason="needs root to become nobody")
def test_an_unsandboxed_bash_cannot_read_harness_s_environment() -> None:
    base = Path(tempfile.mkdtemp(prefix="harness-nobody-"))
    try:
        os.chmod(base, 0o777)
        (base / "work").mkdir(mode=0o777)
        os.chmod(base / "work", 0o777)
        control = _as_nobody(base, guard=False)
        guarded = _as_nobody(base, guard=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    assert "READ-ENVIRON" in control, control  # the attack works when nothing stops it
    assert "tried" in guarded and "READ-ENVIRON" not in guarded, guarded
    assert "Permission denied" in guarded
