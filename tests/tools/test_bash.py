"""BashTool runs real subprocesses in the workdir: exit codes, timeouts, truncation.

Process-lifetime tests run in both modes (a real bwrap sandbox and `off`) and look
for survivors from the host side, by a unique number in their argv: inside the
sandbox `$!` is a pid of its own PID namespace, meaningless (and dangerous to
kill) on the host.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.core.errors import ConfigurationError, ToolError
from harness.tools._protocol import Tool, ToolInput, ToolOutput
from harness.tools.builtin._bash import BashTool

Survivors = Callable[[str], list[int]]


def run(tool: BashTool, workdir: Path, command: str, **arguments: Any) -> ToolOutput:
    return tool.run(ToolInput({"command": command, **arguments}, workdir))


def test_implements_the_tool_protocol() -> None:
    tool: Tool = BashTool()
    assert isinstance(tool, Tool)
    assert tool.name == "bash"
    assert tool.parameters["required"] == ["command"]


def test_echo_runs_in_the_workdir(tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("here")

    output = run(BashTool(), tmp_path, "echo hello; pwd; cat marker.txt")

    assert output.text.splitlines()[:3] == ["hello", str(tmp_path.resolve()), "here"]
    assert output.text.endswith("exit code: 0")
    assert output.metadata["exit_code"] == 0
    assert output.metadata["timed_out"] is False


def test_non_zero_exit_code_is_an_observation_not_an_error(tmp_path: Path) -> None:
    output = run(BashTool(), tmp_path, "echo before; exit 3")

    assert "before" in output.text
    assert output.text.endswith("exit code: 3")
    assert output.metadata["exit_code"] == 3


def test_stderr_is_merged_into_the_output(tmp_path: Path) -> None:
    output = run(BashTool(), tmp_path, "echo out; echo err >&2; echo out2")

    assert output.text.splitlines()[:3] == ["out", "err", "out2"]


def test_there_is_no_stdin(tmp_path: Path) -> None:
    started = time.monotonic()

    output = run(BashTool(), tmp_path, 'read x; echo "got:$x"', timeout_seconds=5)

    assert output.text.startswith("got:\n")
    assert time.monotonic() - started < 3


@pytest.mark.deep
def test_timeout_kills_every_process_it_started(
    tmp_path: Path, make_bash: Callable[..., BashTool], mark: str, survivors: Survivors
) -> None:
    command = f"sleep {mark} & echo started; wait"
    started = time.monotonic()

    output = run(make_bash(), tmp_path, command, timeout_seconds=1)

    assert time.monotonic() - started < 5
    assert output.metadata["timed_out"] is True
    assert "timed out after 1 s" in output.text
    assert "started" in output.text
    assert survivors(mark) == []


@pytest.mark.deep
def test_timeout_escalates_to_sigkill_when_sigterm_is_ignored(
    tmp_path: Path, make_bash: Callable[..., BashTool], mark: str, survivors: Survivors
) -> None:
    command = f"trap '' TERM; sleep {mark} & wait"

    output = run(make_bash(), tmp_path, command, timeout_seconds=1)

    assert output.metadata["timed_out"] is True
    assert output.metadata["exit_code"] == -9
    assert survivors(mark) == []


@pytest.mark.deep
def test_shell_that_closes_its_output_still_times_out(tmp_path: Path) -> None:
    output = run(BashTool(), tmp_path, "echo bye; exec >&- 2>&-; sleep 30", timeout_seconds=1)

    assert output.metadata["timed_out"] is True
    assert "bye" in output.text


def test_large_output_keeps_head_and_tail(tmp_path: Path) -> None:
    command = "echo FIRST; head -c 1000000 /dev/zero | tr '\\0' x; echo; echo LAST"

    output = run(BashTool(max_output_chars=2000), tmp_path, command)

    assert output.text.startswith("FIRST\n")
    assert "LAST\n\nexit code: 0" in output.text
    assert "bytes of output omitted ...]" in output.text
    assert len(output.text) < 2200
    assert output.metadata["output_truncated"] is True
    assert output.metadata["output_bytes"] == 1_000_012


def test_truncation_marker_counts_the_omitted_bytes(tmp_path: Path) -> None:
    output = run(BashTool(max_output_chars=100), tmp_path, "printf '%.0sa' $(seq 1000)")

    assert "[... 900 bytes of output omitted ...]" in output.text


def test_truncation_does_not_split_multibyte_characters(tmp_path: Path) -> None:
    output = run(BashTool(max_output_chars=101), tmp_path, "printf '%.0sé' $(seq 500)")

    assert "\ufffd" not in output.text


def test_invalid_bytes_are_replaced_not_fatal(tmp_path: Path) -> None:
    output = run(BashTool(), tmp_path, "printf 'ok \\377\\376 done'")

    assert output.text.startswith("ok \ufffd\ufffd done")


def test_background_job_does_not_hold_the_call_open_and_is_stopped(
    tmp_path: Path, make_bash: Callable[..., BashTool], mark: str, survivors: Survivors
) -> None:
    command = f"sleep {mark} & echo started"
    started = time.monotonic()

    output = run(make_bash(), tmp_path, command, timeout_seconds=20)

    assert time.monotonic() - started < 5
    assert output.text.startswith("started")
    assert output.metadata["timed_out"] is False
    assert survivors(mark) == []


def test_non_interactive_environment(tmp_path: Path) -> None:
    output = run(BashTool(), tmp_path, 'echo "$PAGER $GIT_TERMINAL_PROMPT"')

    assert output.text.startswith("cat 0\n")


@pytest.mark.parametrize(
    "timeout",
    [0, -1, 601, "10", 1.5, True, [5]],
    ids=["zero", "negative", "over-max", "string", "fraction", "bool", "list"],
)
def test_bad_timeouts_are_invalid_arguments(tmp_path: Path, timeout: object) -> None:
    with pytest.raises(ToolError) as caught:
        run(BashTool(), tmp_path, "echo hi", timeout_seconds=timeout)

    assert caught.value.error_type == "invalid_arguments"


@pytest.mark.parametrize("command", ["", "   ", None, 5], ids=["empty", "blank", "none", "int"])
def test_command_must_be_a_non_empty_string(tmp_path: Path, command: object) -> None:
    with pytest.raises(ToolError) as caught:
        BashTool().run(ToolInput({"command": command}, tmp_path))

    assert caught.value.error_type == "invalid_arguments"


def test_a_nul_character_is_an_invalid_argument_not_a_crash(tmp_path: Path) -> None:
    with pytest.raises(ToolError, match="NUL character") as raised:
        run(BashTool(), tmp_path, "echo a\x00b")

    assert raised.value.error_type == "invalid_arguments"


def test_max_timeout_is_configurable(tmp_path: Path) -> None:
    tool = BashTool(default_timeout_seconds=5, max_timeout_seconds=10)

    with pytest.raises(ToolError, match="between 1 and 10"):
        run(tool, tmp_path, "echo hi", timeout_seconds=11)
    assert tool.parameters["properties"]["timeout_seconds"]["maximum"] == 10


def test_missing_workdir_is_a_tool_error(tmp_path: Path) -> None:
    with pytest.raises(ToolError) as caught:
        run(BashTool(), tmp_path / "missing", "echo hi")

    assert caught.value.error_type == "workdir_missing"


def test_default_timeout_must_fit_the_maximum() -> None:
    with pytest.raises(ConfigurationError):
        BashTool(default_timeout_seconds=700, max_timeout_seconds=600)
