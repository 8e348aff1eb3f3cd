"""Each resource limit of a bash call holds on both paths and ends in a clear tool error."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.core.errors import ToolError
from harness.settings import Settings
from harness.tools._protocol import ToolInput
from harness.tools.builtin._bash import BashTool
from harness.tools.sandbox import ResourceLimits
from harness.tools.sandbox._cgroup import pids_root
from tests.tools.conftest import needs_landlock

# Generous everywhere but the one limit a test hits.
_ROOMY = {"memory_mb": 0, "processes": 0, "file_mb": 0, "cpu_seconds": 0, "output_mb": 0}


def _hit(tool: BashTool, command: str, workdir: Path, timeout: int = 60) -> str:
    with pytest.raises(ToolError) as raised:
        tool.run(ToolInput({"command": command, "timeout_seconds": timeout}, workdir))
    assert raised.value.error_type == "bash_limit", raised.value
    return str(raised.value)


def _limits(**values: int) -> ResourceLimits:
    return ResourceLimits(**{**_ROOMY, **values})


def test_a_file_past_the_size_limit_is_cut_with_a_clear_error(
    make_bash: Callable[..., BashTool], tmp_path: Path
) -> None:
    tool = make_bash(limits=_limits(file_mb=1), overlay=False)
    message = _hit(tool, "head -c 3000000 /dev/zero > big; echo after", tmp_path)

    assert message.startswith("bash: hit the file size limit of 1 MB (HARNESS_BASH_FILE_MB)")
    assert "after" in message  # the output and the exit code are still there
    assert (tmp_path / "big").stat().st_size <= 1 << 20


def test_memory_past_the_limit_fails_with_a_clear_error(
    make_bash: Callable[..., BashTool], tmp_path: Path
) -> None:
    tool = make_bash(limits=_limits(memory_mb=256))
    message = _hit(tool, "python3 -c 'b = bytearray(1 << 30); print(\"ALLOCATED\")'", tmp_path)

    assert message.startswith("bash: hit the memory limit of 256 MB")
    assert "HARNESS_BASH_MEMORY_MB" in message and "ALLOCATED" not in message


def test_endless_output_is_stopped_at_the_output_limit(
    make_bash: Callable[..., BashTool], tmp_path: Path
) -> None:
    tool = make_bash(limits=_limits(output_mb=1))
    message = _hit(tool, "yes", tmp_path, timeout=120)

    assert message.startswith("bash: hit the output limit of 1 MB (HARNESS_BASH_OUTPUT_MB)")
    assert "timed out" not in message


@pytest.mark.deep
def test_a_cpu_hog_is_killed_at_the_cpu_limit(
    make_bash: Callable[..., BashTool], tmp_path: Path
) -> None:
    tool = make_bash(limits=_limits(cpu_seconds=1))
    message = _hit(tool, "python3 -c 'while True: pass'", tmp_path, timeout=60)

    assert message.startswith(
        "bash: hit the CPU time limit of 1 s (HARNESS_BASH_CPU_SECONDS); "
        "a process was killed when it used that much CPU"
    )


_FORKER = """
import os, sys, time
made = 0
try:
    while made < 5000:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        made += 1
except OSError as exc:
    print("FORKED", made, exc)
    sys.exit(1)
print("FORKED", made, "no limit")
"""


@pytest.mark.skipif(
    os.geteuid() == 0 and pids_root() is None,
    reason="root ignores RLIMIT_NPROC and no pids cgroup can be made here",
)
def test_forks_stop_at_the_process_limit(
    make_bash: Callable[..., BashTool], tmp_path: Path, survivors: Callable[[str], list[int]]
) -> None:
    (tmp_path / "forker.py").write_text(_FORKER)
    tool = make_bash(limits=_limits(processes=24))
    message = _hit(tool, "python3 forker.py", tmp_path)

    made = int(message.split("FORKED ", 1)[1].split()[0])
    # The call's own processes (bwrap, bash, python) count too: a few more than 24 at most.
    assert 1 <= made <= 24 + 4, message
    assert message.startswith("bash: hit the process limit of 24 (HARNESS_BASH_PROCESSES)")
    assert not survivors(str(tmp_path / "forker.py"))


@pytest.mark.deep
@pytest.mark.skipif(
    os.geteuid() == 0 and pids_root() is None,
    reason="root ignores RLIMIT_NPROC and no pids cgroup can be made here",
)
def test_a_fork_bomb_is_bounded_and_leaves_nothing(
    make_bash: Callable[..., BashTool], tmp_path: Path, survivors: Callable[[str], list[int]]
) -> None:
    (tmp_path / "bomb.sh").write_text("b() { b | b & }; b\n")
    tool = make_bash(limits=_limits(processes=32))
    try:
        tool.run(ToolInput({"command": "bash bomb.sh; sleep 3", "timeout_seconds": 5}, tmp_path))
    except ToolError as exc:
        assert exc.error_type == "bash_limit", exc

    # The kernel tears a killed PID namespace (or cgroup) down asynchronously: a
    # few hundred SIGKILLed shells can still be exiting as the call returns. What
    # must hold is that none of them lives on, so give the teardown its moment.
    deadline = time.monotonic() + 10
    while survivors("bomb.sh") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not survivors("bomb.sh")


def test_the_limits_are_settings_with_sane_defaults() -> None:
    defaults = Settings.from_env({})
    chosen = Settings.from_env(
        {
            "HARNESS_BASH_MEMORY_MB": "512",
            "HARNESS_BASH_PROCESSES": "64",
            "HARNESS_BASH_FILE_MB": "8",
            "HARNESS_BASH_CPU_SECONDS": "30",
            "HARNESS_BASH_OUTPUT_MB": "0",
        }
    )

    assert defaults.bash_memory_mb > 0 and defaults.bash_processes > 0
    assert defaults.bash_cpu_seconds > 0 and defaults.bash_output_mb > 0
    assert (chosen.bash_memory_mb, chosen.bash_processes, chosen.bash_file_mb) == (512, 64, 8)
    assert (chosen.bash_cpu_seconds, chosen.bash_output_mb) == (30, 0)


def test_a_negative_limit_is_refused_naming_the_variable() -> None:
    from harness.core.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="HARNESS_BASH_CPU_SECONDS"):
        Settings.from_env({"HARNESS_BASH_CPU_SECONDS": "-1"})


def test_an_ordinary_call_is_untouched_by_the_default_limits(
    make_bash: Callable[..., BashTool], tmp_path: Path
) -> None:
    out = make_bash().run(ToolInput({"command": "seq 3; ulimit -t"}, tmp_path)).text

    assert out.startswith("1\n2\n3\n300\n"), out
    assert out.rstrip().endswith("exit code: 0")


def _nobody() -> tuple[int, int] | None:
    import pwd

    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


@needs_landlock
@pytest.mark.skipif(os.geteuid() != 0 or _nobody() is None, reason="needs root to become nobody")
def test_as_an_ordinary_user_forks_stop_at_the_process_limit() -> None:
    """Not root: ``RLIMIT_NPROC``, set to what the user runs plus the limit, bounds the call."""
    ids = _nobody()
    assert ids is not None
    base = Path(tempfile.mkdtemp(prefix="harness-nproc-"))
    try:
        os.chmod(base, 0o777)
        work = base / "work"
        work.mkdir()
        os.chmod(work, 0o777)
        (work / "forker.py").write_text(_FORKER)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: harness as an unprivileged user
            status = 1
            try:
                os.close(read_end)
                os.setgroups([])
                os.setgid(ids[1])
                os.setuid(ids[0])
                tool = BashTool(
                    sandbox="off",
                    state_dir=base / "state",
                    key_dir=base / "keys",
                    limits=_limits(processes=24),
                )
                try:
                    tool.run(ToolInput({"command": "python3 forker.py"}, work))
                    text = "NO ERROR"
                except ToolError as exc:
                    text = str(exc)
                os.write(write_end, text.encode())
                status = 0
            finally:
                os._exit(status)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            message = pipe.read().decode()
        assert os.waitpid(pid, 0)[1] == 0
    finally:
        shutil.rmtree(base, ignore_errors=True)

    assert message.startswith("bash: hit the process limit of 24 (HARNESS_BASH_PROCESSES)"), message
    made = int(message.split("FORKED ", 1)[1].split()[0])
    assert 1 <= made <= 24, message


def test_reserved_but_unwritten_address_space_is_not_memory(
    make_bash: Callable[..., BashTool], tmp_path: Path
) -> None:
    """A JVM heap or WebAssembly reserves far more than it writes: that still starts."""
    tool = make_bash(limits=_limits(memory_mb=256))
    code = "import mmap; m = mmap.mmap(-1, 640 << 20, prot=0); print('RESERVED', len(m))"
    out = tool.run(ToolInput({"command": f'python3 -c "{code}"'}, tmp_path)).text

    assert f"RESERVED {640 << 20}" in out, out
