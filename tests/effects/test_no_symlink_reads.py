"""No approval preview holds bytes from outside the workdir, whatever links the agent plants.

The attack (issue 41): one call plants ``kd -> <key folder>`` (a new symlink
applies at once), the next replaces it with a folder holding ``approval.key``;
the old side of that file was read through the link, so the real key landed
in the signed preview that ``harness approvals`` prints and Feishu posts. The
same with a link to the state dir (another session's memory). Here with the
overlay (sandbox on), with bash unsandboxed (sandbox off: write and edit
previews), and with a folder swapped for a link between reading the
changeset and building its preview.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.approval.preview import render_preview
from harness.effects import changeset_preview, layer_reader, read_changeset
from harness.effects._beneath import (
    listdir_beneath,
    lstat_beneath,
    open_dir_beneath,
    openat2_available,
    read_beneath,
)
from harness.effects._files import file_state_at, read_bytes_at
from harness.providers import ScriptedProvider, tool_call
from harness.tools.sandbox import choose_sandbox

MARKER = "MARKER-OUTSIDE-THE-WORKDIR-7f3a"

overlay = pytest.mark.skipif(
    not choose_sandbox("auto").overlay, reason="bwrap cannot mount an overlay here"
)


def _outside(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """Folders outside the workdir holding the marker: (folder, file below it)."""
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "approval.key").write_text(f"{MARKER}\n" * 3)
    state = tmp_path / "state"
    (state / "sessions" / "other").mkdir(parents=True)
    (state / "sessions" / "other" / "memory.md").write_text(f"# memory\n{MARKER}\n")
    return {"key": (keys, "approval.key"), "state": (state, "sessions/other/memory.md")}


def _app(tmp_path: Path, calls: list[object], sandbox: str = "auto") -> object:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "readme.txt").write_text("hello\n")
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("read", "write", "edit", "bash"),
        approval_provider="cli",
        bash_sandbox=sandbox,  # type: ignore[arg-type]
    )
    return build_application(settings, provider=ScriptedProvider([*calls, "done"]))


def _previews(app: object) -> str:
    """Every approval's record (JSON) and rendered preview, as one text."""
    approvals = app.approvals  # type: ignore[attr-defined]
    texts = []
    for record in approvals.list():
        texts.append(record.model_dump_json())
        texts.append(render_preview(record.preview, approval_id=record.approval_id))
    return "\n".join(texts)


@overlay
@pytest.mark.parametrize("target", ["key", "state"])
def test_a_link_swapped_for_a_folder_shows_only_the_agents_own_bytes(
    tmp_path: Path, target: str
) -> None:
    folder, inner = _outside(tmp_path)[target]
    sub = os.path.dirname(inner)
    make = f"mkdir -p kd/{sub} && " if sub else "mkdir kd && "
    app = _app(
        tmp_path,
        [
            tool_call("bash", command=f"ln -s {folder} kd"),
            tool_call("bash", command=f"rm kd && {make}printf mine > kd/{inner}"),
        ],
    )
    try:
        result = app.run("go", session="demo")  # type: ignore[attr-defined]
        assert (tmp_path / "work" / "kd").is_symlink()  # the first call applied
        assert result.stop_reason == "approval_required", result.text
        text = _previews(app)
        assert MARKER not in text
        assert f"created kd/{inner}" in text  # nothing was there, as far as the tree goes
    finally:
        app.close()  # type: ignore[attr-defined]


@overlay
@pytest.mark.parametrize("target", ["key", "state"])
def test_a_planted_link_is_never_read_through_when_the_call_writes_below_it(
    tmp_path: Path, target: str
) -> None:
    folder, inner = _outside(tmp_path)[target]
    work = tmp_path / "work"
    work.mkdir()
    (work / "kd").symlink_to(folder)  # planted by an earlier call
    sub = os.path.dirname(inner) or "."
    command = f"rm -rf kd && mkdir -p kd/{sub} && echo x > kd/{inner} && chmod 600 kd/{inner}"
    app = _app(tmp_path, [tool_call("bash", command=command)])
    try:
        result = app.run("go", session="demo")  # type: ignore[attr-defined]
        assert result.stop_reason == "approval_required", result.text  # the link is replaced
        assert MARKER not in _previews(app)
    finally:
        app.close()  # type: ignore[attr-defined]
    assert MARKER in (folder / inner).read_text()  # nothing outside was touched


@pytest.mark.parametrize("target", ["key", "state"])
def test_with_bash_unsandboxed_no_preview_reads_through_a_link(tmp_path: Path, target: str) -> None:
    folder, inner = _outside(tmp_path)[target]
    work = tmp_path / "work"
    work.mkdir()
    (work / "kd").symlink_to(folder)
    calls: list[object] = [
        tool_call("edit", path=f"kd/{inner}", old_text="MARKER", new_text="x"),
        tool_call("write", path=f"kd/{inner}", content="x\n", mode="overwrite"),
        tool_call("bash", command=f"cat kd/{inner} > /dev/null; rm -rf kd"),
    ]
    for call in calls:
        app = _app(tmp_path, [call], sandbox="off")
        try:
            app.run("go", session="demo")  # type: ignore[attr-defined]
            assert MARKER not in _previews(app)
        finally:
            app.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("target", ["key", "state"])
def test_a_folder_swapped_for_a_link_after_the_read_never_reaches_the_preview(
    tmp_path: Path, target: str
) -> None:
    folder, inner = _outside(tmp_path)[target]
    work, upper = tmp_path / "work", tmp_path / "upper"
    (work / "kd" / inner).parent.mkdir(parents=True)
    (work / "kd" / inner).write_text("old line\n" * 3)
    (upper / "kd" / inner).parent.mkdir(parents=True)
    (upper / "kd" / inner).write_text("new line\n")
    changeset = read_changeset(upper, work)
    assert [c.path for c in changeset.changes] == [f"kd/{inner}"]
    # Mid-way: between reading the changeset and building its preview, the real
    # folder becomes a link to the folder outside (both hold the file's name).
    os.rename(work / "kd", tmp_path / "gone")
    (work / "kd").symlink_to(folder)
    preview = changeset_preview(changeset, work, layer_reader(upper))
    text = preview.model_dump_json()
    assert MARKER not in text
    assert "changed since the call ran" in preview.diff
    assert MARKER not in changeset_preview(changeset, work, layer_reader(upper), full=True).diff


def test_a_link_in_the_layer_is_not_followed_either(tmp_path: Path) -> None:
    folder, inner = _outside(tmp_path)["key"]
    work, upper = tmp_path / "work", tmp_path / "upper"
    work.mkdir()
    upper.mkdir()
    (upper / "kd").symlink_to(folder)
    changeset = read_changeset(upper, work)
    assert [(c.path, c.after.kind if c.after else None) for c in changeset.changes] == [
        ("kd", "symlink")
    ]
    assert layer_reader(upper)(f"kd/{inner}") is None
    assert MARKER not in changeset_preview(changeset, work, layer_reader(upper)).model_dump_json()


@pytest.mark.parametrize("walk", [False, True], ids=["openat2", "walk"])
def test_reading_beneath_refuses_every_link_on_the_way(tmp_path: Path, walk: bool) -> None:
    if not walk and not openat2_available():
        pytest.skip("openat2 is not available here")
    folder, inner = _outside(tmp_path)["key"]
    root = tmp_path / "root"
    (root / "real").mkdir(parents=True)
    (root / "real" / "f.txt").write_text("inside\n")
    (root / "kd").symlink_to(folder)
    (root / "up").symlink_to("..")
    (root / "file").write_text("a file\n")
    for absent in ("kd", f"kd/{inner}", "up/keys", "file/x", "missing/x"):
        fd = open_dir_beneath(root, absent.split("/"), walk=walk)
        assert fd is None, absent
    fd = open_dir_beneath(root, ["real"], walk=walk)
    assert fd is not None
    os.close(fd)
    assert listdir_beneath(root, "real") == ["f.txt"]
    assert listdir_beneath(root, "kd") is None
    assert read_beneath(root, "real/f.txt", 100) == (b"inside\n", 7)
    assert read_beneath(root, f"kd/{inner}", 1000) == (None, None)
    assert read_bytes_at(root, "kd", 1000) is None  # the link itself is not a file
    assert file_state_at(root, f"kd/{inner}") is None
    state = file_state_at(root, "kd")
    assert state is not None and state.kind == "symlink" and state.target == str(folder)
    assert lstat_beneath(root, "up/keys") is None
    for bad in ("/etc/passwd", "../keys", "a/../b", "a//b", "./a"):
        with pytest.raises(ValueError):
            lstat_beneath(root, bad)


def test_a_fifo_is_never_opened(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    assert read_beneath(tmp_path, "pipe", 100) == (None, None)  # would block if opened
    state = file_state_at(tmp_path, "pipe")
    assert state is not None and state.kind == "special"
