"""The undo journal through a real application: every applied change can be put back.

``write``, ``edit`` and bash calls (over the overlay) run in a real application
with a scripted model, with the approval gate on (small changes apply at once)
and off; the journal then undoes them: bytes, mode and symlink targets come
back, created files go. An undo is refused, naming the file, when a later change
touched it. A change whose prior bytes exceed the undo budget, or that writes a
sparse file, pauses instead of applying.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.core import LLMRequest, LLMResponse
from harness.effects._journal import JournalEntry, JournalStore
from harness.effects._journal_undo import UndoRefused, later_entries, undo_entries
from harness.providers import ScriptedProvider, tool_call
from harness.tools.sandbox import choose_sandbox

OVERLAY = choose_sandbox("auto").overlay
needs_overlay = pytest.mark.skipif(not OVERLAY, reason="bwrap cannot mount an overlay here")
GATES = pytest.mark.parametrize("gate", ["cli", "off"])


class _Seeing(ScriptedProvider):
    """The scripted provider, keeping the tool observations it was sent."""

    def __init__(self, turns: list[object]) -> None:
        super().__init__(turns)
        self.observations: list[str] = []

    def complete(self, request: LLMRequest) -> LLMResponse:
        last = request.messages[-1]
        if last.role == "tool":
            self.observations.append(str(last.content))
        return super().complete(request)


def _app(
    tmp_path: Path, turns: list[object], gate: str = "cli", **extra: object
) -> tuple[Any, _Seeing]:
    settings = Settings(
        workdir=tmp_path / "work",
        state_dir=tmp_path / "state",
        enabled_tools=("read", "write", "edit", "bash"),
        approval_provider=gate,
        **extra,  # type: ignore[arg-type]
    )
    provider = _Seeing([*turns, "done"])
    return build_application(settings, provider=provider), provider


def _run(tmp_path: Path, turns: list[object], gate: str = "cli", **extra: object) -> Any:
    app, _ = _app(tmp_path, turns, gate, **extra)
    try:
        return app.run("change the files", session="demo")
    finally:
        app.close()


def _work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("one\ntwo\n")
    os.chmod(work / "a.txt", 0o640)
    (work / "keep").mkdir()
    (work / "keep" / "x.txt").write_text("inside\n")
    os.symlink("a.txt", work / "link")
    return work


def _entries(tmp_path: Path) -> tuple[JournalStore, list[JournalEntry]]:
    store = JournalStore(tmp_path / "state")
    runs = store.runs()
    assert len(runs) == 1, runs
    return store, store.entries(runs[0])


def _tree(root: Path) -> dict[str, tuple[str, int, bytes]]:
    found: dict[str, tuple[str, int, bytes]] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".harness"]
        for name in [*dirs, *files]:
            path = Path(folder) / name
            info = os.lstat(path)
            rel = path.relative_to(root).as_posix()
            if stat.S_ISLNK(info.st_mode):
                found[rel] = ("link", 0, os.readlink(path).encode())
            elif stat.S_ISDIR(info.st_mode):
                found[rel] = ("dir", stat.S_IMODE(info.st_mode), b"")
            else:
                found[rel] = ("file", stat.S_IMODE(info.st_mode), path.read_bytes())
    return found


@GATES
def test_write_and_edit_are_journaled_and_undone(tmp_path: Path, gate: str) -> None:
    work = _work(tmp_path)
    before = _tree(work)
    result = _run(
        tmp_path,
        [
            tool_call("edit", path="a.txt", old_text="two", new_text="TWO"),
            tool_call("write", path="new/made.txt", content="fresh\n"),
            tool_call("write", path="a.txt", content="one\nTWO\nthree\n", mode="overwrite"),
        ],
        gate,
    )
    assert result.stop_reason == "final", result.text
    assert (work / "a.txt").read_text() == "one\nTWO\nthree\n"
    store, entries = _entries(tmp_path)
    assert [e.tool for e in entries] == ["edit", "write", "write"]

    report = undo_entries(store, later_entries(store, entries[0].run, None))

    assert _tree(work) == before  # the folder the write made is gone too
    assert report.removed == ["new/made.txt", "new"]
    assert all(e.undone for e in store.entries(entries[0].run))


def test_an_undo_is_refused_when_a_later_change_touched_the_file(tmp_path: Path) -> None:
    work = _work(tmp_path)
    _run(
        tmp_path,
        [
            tool_call("edit", path="a.txt", old_text="one", new_text="ONE"),
            tool_call("edit", path="a.txt", old_text="two", new_text="TWO"),
        ],
    )
    store, entries = _entries(tmp_path)
    first, second = entries

    with pytest.raises(UndoRefused, match=r"a\.txt was changed after call .*by call") as caught:
        undo_entries(store, [first])
    assert second.call in str(caught.value)
    assert (work / "a.txt").read_text() == "ONE\nTWO\n"  # nothing was undone

    undo_entries(store, [second, first])  # newest first, both: fine
    assert (work / "a.txt").read_text() == "one\ntwo\n"


def test_a_change_made_outside_harness_refuses_the_undo(tmp_path: Path) -> None:
    work = _work(tmp_path)
    _run(tmp_path, [tool_call("write", path="a.txt", content="new\n", mode="overwrite")])
    (work / "a.txt").write_text("the human's own edit\n")
    store, entries = _entries(tmp_path)
    with pytest.raises(UndoRefused, match=r"a\.txt was changed .*outside harness"):
        undo_entries(store, entries)
    assert (work / "a.txt").read_text() == "the human's own edit\n"


def test_an_overwrite_over_the_undo_budget_pauses(tmp_path: Path) -> None:
    work = _work(tmp_path)
    (work / "big.txt").write_text("x" * 4000)
    result = _run(
        tmp_path,
        [tool_call("write", path="big.txt", content="y" * 4000, mode="overwrite")],
        undo_budget=1000,
    )
    assert result.stop_reason == "approval_required"
    assert "undo budget" in result.text
    assert (work / "big.txt").read_text() == "x" * 4000


def test_an_overlong_path_is_a_clean_error_with_no_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _work(tmp_path)
    long_name = "n" * 300 + ".txt"
    app, seen = _app(
        tmp_path,
        [
            tool_call("write", path=long_name, content="x"),
            tool_call("write", path=f"keep/{long_name}", content="x", mode="overwrite"),
            tool_call("edit", path=long_name, old_text="x", new_text="y"),
        ],
    )
    try:
        with caplog.at_level("DEBUG"):
            result = app.run("write it", session="demo")
    finally:
        app.close()
    assert result.stop_reason == "final"
    observations = seen.observations
    assert len(observations) == 3
    assert all("too long" in text.lower() and "Traceback" not in text for text in observations)
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
    assert JournalStore(tmp_path / "state").runs() == []  # nothing applied, nothing journaled


# -- bash over the overlay -------------------------------------------------------------


@needs_overlay
@GATES
def test_bash_changes_are_journaled_and_undone(tmp_path: Path, gate: str) -> None:
    work = _work(tmp_path)
    before = _tree(work)
    command = "chmod 600 a.txt; ln -sfn keep link; echo c > c.txt; mkdir -p m/n; echo z > m/n/z"
    result = _run(tmp_path, [tool_call("bash", command=command)], gate)
    assert result.stop_reason == "final", result.text
    assert os.readlink(work / "link") == "keep" and (work / "m" / "n" / "z").exists()
    store, entries = _entries(tmp_path)
    assert [e.tool for e in entries] == ["bash"]

    undo_entries(store, entries)

    assert _tree(work) == before


@needs_overlay
def test_an_approved_deletion_is_journaled_and_undone(tmp_path: Path) -> None:
    work = _work(tmp_path)
    (work / "data.txt").write_text("".join(f"row {i}\n" for i in range(40)))
    before = _tree(work)
    app, _ = _app(tmp_path, [tool_call("bash", command="rm -r keep data.txt; echo n > n.txt")])
    try:
        paused = app.run("clean up", session="demo")
        assert paused.stop_reason == "approval_required", paused.text
        assert _tree(work) == before
        resumed = app.resume_approval(paused.approval_id, "approve", session="demo")
    finally:
        app.close()
    assert resumed.stop_reason == "final", resumed.text
    assert not (work / "keep").exists() and not (work / "data.txt").exists()
    store, entries = _entries(tmp_path)

    undo_entries(store, entries)

    assert _tree(work) == before


@needs_overlay
@GATES
def test_a_bash_overwrite_over_the_undo_budget_pauses_or_is_kept_as_not_restorable(
    tmp_path: Path, gate: str
) -> None:
    work = _work(tmp_path)
    (work / "big.bin").write_bytes(b"\x01" * 5000)
    result = _run(
        tmp_path, [tool_call("bash", command="printf 'x' >> big.bin")], gate, undo_budget=1000
    )
    if gate == "cli":
        assert result.stop_reason == "approval_required"
        assert "undo budget" in result.text
        assert (work / "big.bin").read_bytes() == b"\x01" * 5000
        return
    # No gate: the user chose no approvals; it applies, and the journal says it cannot undo it.
    assert (work / "big.bin").read_bytes() == b"\x01" * 5000 + b"x"
    store, entries = _entries(tmp_path)
    assert entries[0].note and "undo budget" in entries[0].note
    with pytest.raises(UndoRefused, match=r"big\.bin: its content before call .* not kept"):
        undo_entries(store, entries)


@needs_overlay
@GATES
def test_a_sparse_file_pauses_and_is_never_expanded(tmp_path: Path, gate: str) -> None:
    work = _work(tmp_path)
    # 64 MiB of holes (bench/journal_bench.py takes 1 GB): over the slack of 1 MiB.
    result = _run(tmp_path, [tool_call("bash", command="truncate -s 64M sparse.bin")], gate)
    if gate == "cli":
        assert result.stop_reason == "approval_required"
        assert "sparse.bin is a sparse file" in result.text
        assert not (work / "sparse.bin").exists()
        return
    info = os.stat(work / "sparse.bin")
    assert info.st_size == 64 << 20
    assert info.st_blocks * 512 < 1 << 20  # applied as holes, not 64 MiB of zeros


@needs_overlay
@GATES
def test_a_name_that_is_not_utf8_is_applied_and_undone(tmp_path: Path, gate: str) -> None:
    work = _work(tmp_path)
    name = os.fsencode(work) + b"/caf\xe9.txt"
    result = _run(
        tmp_path, [tool_call("bash", command="printf x > \"$(printf 'caf\\351.txt')\"")], gate
    )
    assert result.stop_reason == "final", result.text
    with open(name, "rb") as handle:
        assert handle.read() == b"x"
    store, entries = _entries(tmp_path)
    undo_entries(store, entries)
    assert not os.path.lexists(name)


@needs_overlay
def test_a_fifo_is_refused_with_a_reason_and_the_rest_applies(tmp_path: Path) -> None:
    work = _work(tmp_path)
    app, seen = _app(
        tmp_path, [tool_call("bash", command="mkfifo pipe; echo y > other.txt")], "off"
    )
    try:
        result = app.run("make them", session="demo")
    finally:
        app.close()
    assert result.stop_reason == "final", result.text
    observation = seen.observations[0]
    assert "created other.txt" in observation
    assert "not applied pipe (a FIFO, socket or device" in observation
    assert (work / "other.txt").read_text() == "y\n" and not os.path.lexists(work / "pipe")


@needs_overlay
def test_an_approved_fifo_is_not_applied_and_the_observation_says_so(tmp_path: Path) -> None:
    work = _work(tmp_path)
    app, seen = _app(tmp_path, [tool_call("bash", command="mkfifo pipe; echo y > other.txt")])
    try:
        paused = app.run("make them", session="demo")
        assert paused.stop_reason == "approval_required", paused.text
        resumed = app.resume_approval(paused.approval_id, "approve", session="demo")
    finally:
        app.close()
    assert resumed.stop_reason == "final", resumed.text
    observation = seen.observations[0]
    assert "not applied pipe" in observation
    assert (work / "other.txt").read_text() == "y\n" and not os.path.lexists(work / "pipe")


@needs_overlay
@GATES
def test_a_bash_path_too_long_to_read_is_a_clean_error_with_no_traceback(
    tmp_path: Path, gate: str, caplog: pytest.LogCaptureFixture
) -> None:
    work = _work(tmp_path)
    before = _tree(work)
    deep = "/".join(["d" * 200] * 25)  # about 5,000 bytes: longer than PATH_MAX
    app, seen = _app(
        tmp_path, [tool_call("bash", command=f"mkdir -p {deep} && echo x > {deep}/f")], gate
    )
    try:
        with caplog.at_level("DEBUG"):
            result = app.run("make it", session="demo")
    finally:
        app.close()
    assert result.stop_reason == "final", result.text
    assert "a path is longer than the system allows" in seen.observations[0]
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
    assert _tree(work) == before


@needs_overlay
def test_a_change_writing_more_than_the_apply_budget_pauses(tmp_path: Path) -> None:
    work = _work(tmp_path)
    command = "head -c 300000 /dev/urandom > noise.bin"
    result = _run(tmp_path, [tool_call("bash", command=command)], apply_budget=100_000)
    assert result.stop_reason == "approval_required", result.text
    assert "writes 300000 bytes (largest: noise.bin), over the apply budget" in result.text
    assert not (work / "noise.bin").exists()


@needs_overlay
def test_a_paused_deletion_of_a_name_that_is_not_utf8_is_applied_and_undone(
    tmp_path: Path,
) -> None:
    work = _work(tmp_path)
    name = os.fsencode(work) + b"/caf\xe9.txt"
    with open(name, "wb") as handle:
        handle.write(b"".join(b"line %d\n" % i for i in range(50)))
    app, _ = _app(tmp_path, [tool_call("bash", command="rm caf*")])
    try:
        paused = app.run("clean up", session="demo")
        assert paused.stop_reason == "approval_required", paused.text
        resumed = app.resume_approval(paused.approval_id, "approve", session="demo")
    finally:
        app.close()
    assert resumed.stop_reason == "final", resumed.text
    assert not os.path.lexists(name)
    store, entries = _entries(tmp_path)
    undo_entries(store, entries)
    with open(name, "rb") as handle:
        assert handle.read().startswith(b"line 0\n")


@needs_overlay
@GATES
def test_a_rename_keeps_no_copy_and_is_undone(tmp_path: Path, gate: str) -> None:
    work = _work(tmp_path)
    (work / "big.bin").write_bytes(b"\x02" * 5000)
    before = _tree(work)
    result = _run(
        tmp_path, [tool_call("bash", command="mv big.bin moved.bin")], gate, undo_budget=1000
    )
    assert result.stop_reason == "final", result.text  # a move loses nothing: no budget pause
    assert (work / "moved.bin").read_bytes() == b"\x02" * 5000
    store, entries = _entries(tmp_path)
    assert not (tmp_path / "state" / "journal" / "blobs").exists()  # no copy was kept
    undo_entries(store, entries)
    assert _tree(work) == before


@needs_overlay
@GATES
def test_slash_named_branches_are_applied_and_undone(
    tmp_path: Path, gate: str, caplog: pytest.LogCaptureFixture
) -> None:
    import subprocess

    from tests.effects.conftest import GIT_ENV

    work = _work(tmp_path)
    git = {**os.environ, **GIT_ENV}
    subprocess.run(
        "git init -q -b main && git add -A && git commit -qm one",
        shell=True,
        cwd=work,
        env=git,
        check=True,
    )
    before = _tree(work)
    command = (
        "git branch topic/a/b && git checkout -q -b feature/x && echo hi > g.txt "
        "&& git add g.txt && git commit -qm two"
    )
    with caplog.at_level("WARNING"):
        result = _run(tmp_path, [tool_call("bash", command=command)], gate)
    assert result.stop_reason == "final", result.text
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
    branches = subprocess.run(
        ["git", "branch", "--format=%(refname:short)"],
        cwd=work,
        env=git,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert sorted(branches) == ["feature/x", "main", "topic/a/b"]
    store, entries = _entries(tmp_path)
    undo_entries(store, entries)
    assert _tree(work) == before


def test_prune_forgets_old_changes_and_the_blobs_only_they_kept(tmp_path: Path) -> None:
    from datetime import UTC, datetime, timedelta

    work = _work(tmp_path)
    _run(
        tmp_path,
        [
            tool_call("write", path="a.txt", content="first\n", mode="overwrite"),
            tool_call("write", path="a.txt", content="second\n", mode="overwrite"),
        ],
    )
    store, entries = _entries(tmp_path)
    assert len(list(store.blobs.iterdir())) == 2
    assert store.prune(datetime.now(UTC) - timedelta(days=1), spare_seconds=0) == (0, 0, 0)
    # The newer change stays undoable: only the blob of the older one goes.
    removed, blobs, _ = store.prune(entries[1].applied_at, spare_seconds=0)
    assert (removed, blobs) == (1, 1)
    undo_entries(store, store.entries(entries[0].run))
    assert (work / "a.txt").read_text() == "first\n"
