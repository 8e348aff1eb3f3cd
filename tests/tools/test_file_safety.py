"""File tools against real special files, swapped folders, owners and line numbering."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.core import ToolError
from harness.tools import ToolInput
from harness.tools._safe_open import read_regular_file, replace_regular_file
from harness.tools.builtin import EditTool, ReadTool, WriteTool
from harness.tools.paths import FileScope

JOIN_SECONDS = 30  # only a bound so a regression fails instead of hanging the suite

CALLS: dict[str, tuple[Callable[[], Any], dict[str, Any]]] = {
    "read": (ReadTool, {}),
    "edit": (EditTool, {"old_text": "x", "new_text": "y"}),
    "write-append": (WriteTool, {"content": "x", "mode": "append"}),
    "write-overwrite": (WriteTool, {"content": "x", "mode": "overwrite"}),
    "write-create": (WriteTool, {"content": "x", "mode": "create"}),
}


def _run(workdir: Path, name: str, path: str) -> Any:
    factory, extra = CALLS[name]
    return factory().run(ToolInput(arguments={"path": path, **extra}, workdir=workdir))


def _run_bounded(workdir: Path, name: str, path: str) -> BaseException | None:
    """Run the tool in a thread; fail the test if it does not come back."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            _run(workdir, name, path)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(JOIN_SECONDS)
    if thread.is_alive():
        fifo = workdir / "fifo"
        if fifo.exists():  # a blocked FIFO open waits for a writer: be one, then fail
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail(f"{name} blocked on a special file")
    return outcome[0]


@pytest.mark.parametrize("name", list(CALLS), ids=list(CALLS))
def test_a_fifo_is_refused_at_once(tmp_path: Path, name: str) -> None:
    os.mkfifo(tmp_path / "fifo")
    error = _run_bounded(tmp_path, name, "fifo")
    assert isinstance(error, ToolError)
    assert error.error_type == "not_regular_file"
    assert "fifo is a FIFO (named pipe), not a regular file" in str(error)
    assert stat.S_ISFIFO((tmp_path / "fifo").lstat().st_mode)  # not replaced either


@pytest.fixture
def unix_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.chdir(tmp_path)  # a relative bind keeps under the 108-byte path limit
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind("sock")
    try:
        yield "sock"
    finally:
        server.close()


@pytest.mark.parametrize("name", list(CALLS), ids=list(CALLS))
def test_a_unix_socket_is_refused(tmp_path: Path, unix_socket: str, name: str) -> None:
    error = _run_bounded(tmp_path, name, unix_socket)
    assert isinstance(error, ToolError) and error.error_type == "not_regular_file"
    assert "is a socket" in str(error)


@pytest.mark.parametrize("name", list(CALLS), ids=list(CALLS))
def test_a_device_node_in_the_workdir_is_refused(tmp_path: Path, name: str) -> None:
    try:
        os.mknod(tmp_path / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (CAP_MKNOD)")
    error = _run_bounded(tmp_path, name, "null")
    assert isinstance(error, ToolError) and error.error_type == "not_regular_file"
    assert "is a character device" in str(error)


@pytest.mark.parametrize("name", list(CALLS), ids=list(CALLS))
def test_a_symlink_to_a_device_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "null").symlink_to("/dev/null")
    error = _run_bounded(tmp_path, name, "null")
    assert isinstance(error, ToolError) and error.error_type == "path_outside_workdir"


def _outside_and_work(tmp_path: Path) -> tuple[Path, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f.txt").write_text("SECRET outside\n")
    work = tmp_path / "work"
    (work / "d").mkdir(parents=True)
    (work / "d" / "f.txt").write_text("inside\n")
    return work, outside


def _swap_for_link(folder: Path, target: Path) -> None:
    folder.rename(folder.with_name(folder.name + ".moved"))
    folder.symlink_to(target)


def test_a_parent_swapped_for_a_symlink_before_the_call_is_refused(tmp_path: Path) -> None:
    work, outside = _outside_and_work(tmp_path)
    _swap_for_link(work / "d", outside)
    for name in CALLS:
        error = _run_bounded(work, name, "d/f.txt")
        assert isinstance(error, ToolError) and error.error_type == "path_outside_workdir"
    assert (outside / "f.txt").read_text() == "SECRET outside\n"
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]


def test_a_parent_swapped_after_the_path_check_is_refused(tmp_path: Path) -> None:
    # The window a racing process would use: the name was checked, then the
    # folder became a symlink before the open. The open must not follow it.
    work, outside = _outside_and_work(tmp_path)
    scope = FileScope.of(work)
    path = scope.resolve("d/f.txt")
    _swap_for_link(work / "d", outside)
    with pytest.raises(ToolError) as read_error:
        read_regular_file(scope, path, max_bytes=1000)
    with pytest.raises(ToolError) as write_error:
        replace_regular_file(scope, path, b"pwned\n", exclusive=False, make_parents=True)
    assert read_error.value.error_type == write_error.value.error_type == "path_changed"
    assert "SECRET" not in str(read_error.value)
    assert (outside / "f.txt").read_text() == "SECRET outside\n"
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]


def test_a_file_swapped_for_a_symlink_after_the_path_check_is_refused(tmp_path: Path) -> None:
    work, outside = _outside_and_work(tmp_path)
    scope = FileScope.of(work)
    path = scope.resolve("d/f.txt")
    (work / "d" / "f.txt").unlink()
    (work / "d" / "f.txt").symlink_to(outside / "f.txt")
    for call in (
        lambda: read_regular_file(scope, path, max_bytes=1000),
        lambda: replace_regular_file(scope, path, b"pwned\n", exclusive=False, make_parents=False),
    ):
        with pytest.raises(ToolError) as caught:
            call()
        assert caught.value.error_type == "path_changed"
    assert (outside / "f.txt").read_text() == "SECRET outside\n"


SWAPPER = """
import os, shutil, sys
work, outside, stop = sys.argv[1:4]
folder, moved = os.path.join(work, "d"), os.path.join(work, "d.real")

def heal():
    # The tools may create d while it is moved away (write makes parents):
    # put the real folder back so the next swap starts from a folder.
    if os.path.islink(folder):
        os.unlink(folder)
    if os.path.isdir(moved):
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.rename(moved, folder)

swaps = 0
for turn in range(2_000_000):  # bounded; normally stopped by the stop file first
    if turn % 64 == 0 and os.path.exists(stop):
        break
    try:
        heal()
        os.rename(folder, moved)
        os.symlink(outside, folder)
        os.unlink(folder)
        os.rename(moved, folder)
        swaps += 1
    except OSError:
        pass
print(swaps)
"""


@pytest.mark.deep
def test_a_racing_process_never_redirects_a_write_or_a_read(tmp_path: Path) -> None:
    """Another process swaps ``d`` between a folder and a symlink to outside while
    the tools write, edit and read ``d/f.txt`` many times: nothing lands outside
    and the outside secret is never read."""
    work, outside = _outside_and_work(tmp_path)
    stop = tmp_path / "stop"
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(work), str(outside), str(stop)],
        stdout=subprocess.PIPE,
        text=True,
    )
    outcomes: dict[str, int] = {}
    try:
        for _ in range(1000):  # until both outcomes were seen often enough
            for name in ("write-overwrite", "edit", "read"):
                try:
                    out = _run(work, name, "d/f.txt")
                    outcomes["ok"] = outcomes.get("ok", 0) + 1
                    assert "SECRET" not in str(out)
                except ToolError as exc:
                    assert "SECRET" not in str(exc)
                    outcomes[exc.error_type] = outcomes.get(exc.error_type, 0) + 1
            if outcomes.get("ok", 0) >= 50 and sum(outcomes.values()) - outcomes["ok"] >= 50:
                break
    finally:
        stop.touch()
        swaps, _ = swapper.communicate(timeout=JOIN_SECONDS)
    assert (outside / "f.txt").read_text() == "SECRET outside\n"
    assert sorted(p.name for p in outside.iterdir()) == ["f.txt"]
    # The race really ran: the swapper swapped, and calls met both states.
    assert int(swaps) > 0
    assert outcomes.get("ok", 0) > 0 and sum(outcomes.values()) > outcomes["ok"], outcomes


def test_edit_and_overwrite_keep_mode_owner_and_group(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("changing a file's owner to another uid needs root")
    target = tmp_path / "owned.txt"
    target.write_text("alpha\nbeta\n")
    os.chown(target, 1234, 1234)
    target.chmod(0o640)
    EditTool().run(
        ToolInput(
            arguments={"path": "owned.txt", "old_text": "beta", "new_text": "gamma"},
            workdir=tmp_path,
        )
    )
    info = target.stat()
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (1234, 1234, 0o640)
    assert target.read_text() == "alpha\ngamma\n"
    for mode in ("overwrite", "append"):
        _write = WriteTool().run
        _write(
            ToolInput(
                arguments={"path": "owned.txt", "content": "z\n", "mode": mode}, workdir=tmp_path
            )
        )
        info = target.stat()
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (1234, 1234, 0o640)


def test_a_new_file_gets_the_umask_mode_and_no_temp_is_left(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        _run(tmp_path, "write-create", "new.txt")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.txt"]


def test_create_through_missing_folders_makes_them(tmp_path: Path) -> None:
    _run(tmp_path, "write-create", "a/b/c.txt")
    assert (tmp_path / "a" / "b" / "c.txt").read_text() == "x"


def test_a_file_in_the_path_is_not_a_folder(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("file")
    with pytest.raises(ToolError) as caught:
        _run(tmp_path, "write-create", "a/b.txt")
    assert caught.value.error_type == "not_a_directory"


LINE_TEXT = st.text(
    alphabet=st.sampled_from(list("ab \t\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029é")), max_size=60
)


@pytest.mark.deep
@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=LINE_TEXT)
def test_read_numbers_lines_like_split_on_newline(tmp_path: Path, text: str) -> None:
    (tmp_path / "t.txt").write_bytes(text.encode("utf-8"))
    out = ReadTool().run(ToolInput(arguments={"path": "t.txt"}, workdir=tmp_path))
    expected = text.split("\n")
    if expected[-1] == "":
        expected.pop()  # a final newline ends the last line; it does not start one
    if not expected:
        assert out == "t.txt is empty."
        return
    shown = out.split("\n")
    assert len(shown) == len(expected)
    for number, (row, line) in enumerate(zip(shown, expected, strict=True), start=1):
        assert row == f"{number:6d}\t{line.removesuffix(chr(13))}"


def test_read_line_numbers_match_edit_for_form_feeds(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("one\x0ctwo\nthree\u2028four\nfive\n", newline="")
    out = ReadTool().run(ToolInput(arguments={"path": "f.txt"}, workdir=tmp_path))
    assert out.split("\n") == ["     1\tone\x0ctwo", "     2\tthree\u2028four", "     3\tfive"]
