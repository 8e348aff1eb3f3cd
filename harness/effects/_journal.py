"""The undo journal: what every applied change overwrote, kept so it can be put back.

Before harness changes the workdir (a bash call's changeset, a ``write``, an
``edit``), it records one entry per call: every path the call touches, with its
state before (kind, mode, hash, a symlink's target) and after. The prior bytes
of every file it overwrites or deletes go to a content-addressed blob first, so
a file kept twice is stored once. Layout under the state dir (outside the
agent's reach: the sandbox covers it and the file tools refuse it)::

    journal/blobs/<sha256>          prior bytes of a file
    journal/runs/<run>/<entry>.json one ``JournalEntry`` per applied call

Entry names sort by the time they were written, so a run's entries list in
the order they were applied. Each entry is written once, temp file + rename,
before the change is applied (and removed again if the apply is rolled back):
the cost per call grows with the files the call touches, not the workdir.

The budget (``HARNESS_UNDO_BUDGET``) bounds the prior bytes one change keeps.
The effect policy pauses a change above it (``budget``), so only a change a
human approved, or one applied with no approval gate, can exceed it; its
files are then recorded as not kept, and ``harness undo`` says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
import stat
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from harness.core.errors import ToolError
from harness.effects._changeset import Changeset, FileState, FsPath, special_skipped
from harness.effects._journal_budget import (
    DEFAULT_UNDO_BUDGET,
    copy_sparse,
    kept_bytes,
    moved_sources,
)
from harness.effects._layer_ids import LAYER_ID_PATTERN
from harness.files import atomic_write_text, make_private_dirs

__all__ = [
    "JournalEntry",
    "JournalFile",
    "JournalOrigin",
    "JournalStore",
    "UndoJournal",
    "journal_for_layer",
    "journal_origin",
    "open_dir_nofollow",
    "state_at",
]

ORIGIN_FILE = "origin.json"
"""In a layer's folder: the ``JournalOrigin`` of the call whose changes it holds."""

_ID = re.compile(r"^[A-Za-z0-9._:@-]{1,128}$")
_ENTRY = re.compile(r"^[0-9]{20}-[0-9a-f]{8}$")
_SHA = re.compile(r"^[0-9a-f]{64}$")


class JournalOrigin(BaseModel):
    """Which call a change comes from, and the budget its prior bytes are kept under.

    Attributes:
        run: the run id (``_norun`` when the call ran outside a run).
        call: the tool call id.
        tool: ``bash``, ``write`` or ``edit``.
        budget: prior bytes one change may keep (``HARNESS_UNDO_BUDGET``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    run: str = "_norun"
    call: str = "_nocall"
    tool: str = "?"
    budget: int = DEFAULT_UNDO_BUDGET

    def safe_run(self) -> str:
        """The run id as a folder name (ids from the engine already are)."""
        if _ID.match(self.run) and self.run not in (".", ".."):
            return self.run
        return "run-" + hashlib.sha256(self.run.encode("utf-8", "replace")).hexdigest()[:16]


def journal_origin(metadata: Mapping[str, Any], tool: str, budget: int) -> JournalOrigin:
    """The origin of a tool call from its input's metadata (``run_id``, ``tool_call_id``)."""
    run, call = metadata.get("run_id"), metadata.get("tool_call_id")
    return JournalOrigin(
        run=run if isinstance(run, str) and run else "_norun",
        call=call if isinstance(call, str) and call else "_nocall",
        tool=tool,
        budget=budget,
    )


class JournalFile(BaseModel):
    """One path of an applied call: what it was and what the call left.

    Attributes:
        kept: False when the prior bytes were not kept (over the budget, or a
            FIFO or device, which has none); such a file cannot be restored.
        moved_to: the call renamed the file there: its bytes are not copied,
            undo takes them back from there.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: FsPath
    before: FileState | None = None
    after: FileState | None = None
    kept: bool = True
    moved_to: FsPath | None = None

    @field_validator("path", "moved_to")
    @classmethod
    def _relative(cls, value: str | None) -> str | None:
        if value is None:
            return None
        # The journal is read back by ``harness undo``: a path that could leave the
        # workdir (an edited entry) is refused when the entry is read.
        parts = value.split("/")
        if value.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\0" in value:
            raise ValueError(f"journal path {value!r} is not a plain path inside the workdir")
        return value


class JournalEntry(BaseModel):
    """One applied call: its paths, in the order of the changeset."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    entry_id: str
    run: str
    call: str
    tool: str
    workdir: str
    applied_at: datetime
    files: tuple[JournalFile, ...]
    undone_at: datetime | None = None
    note: str | None = None

    @property
    def undone(self) -> bool:
        return self.undone_at is not None


class JournalStore:
    """Reads and writes ``state_dir/journal``."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.root = state_dir / "journal"
        self.blobs = self.root / "blobs"
        self.runs_dir = self.root / "runs"

    def blob(self, sha256: str) -> Path:
        if not _SHA.match(sha256):
            raise ValueError(f"not a sha256 digest: {sha256!r}")
        return self.blobs / sha256

    def keep(self, source_dir_fd: int, name: str, sha256: str) -> None:
        """Copy the file ``name`` of the folder ``source_dir_fd`` into its blob.

        Raises:
            OSError: it could not be read or stored.
            ValueError: its bytes no longer hash to ``sha256`` (changed meanwhile).
        """
        target = self.blob(sha256)
        if target.exists():
            return  # content-addressed: already kept
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=source_dir_fd)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise ValueError(f"{name!r} is no longer a regular file")
            make_private_dirs(self.blobs)
            tmp = self.blobs / f".{sha256}.{secrets.token_hex(4)}.tmp"
            out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                try:
                    digest = copy_sparse(fd, out)
                finally:
                    os.close(out)
                if digest != sha256:
                    raise ValueError(f"{name!r} changed while it was being kept")
                os.rename(tmp, target)
            except BaseException:
                tmp.unlink(missing_ok=True)
                raise
        finally:
            os.close(fd)

    def save(self, entry: JournalEntry) -> Path:
        path = self._entry_path(entry.run, entry.entry_id)
        make_private_dirs(path.parent)
        # Not fsynced: the apply it records is not either (see the module doc).
        atomic_write_text(path, entry.model_dump_json(), durable=False, private=True)
        return path

    def forget(self, entry: JournalEntry) -> None:
        """Remove the entry of a change that was rolled back (its blobs may serve others)."""
        self._entry_path(entry.run, entry.entry_id).unlink(missing_ok=True)

    def runs(self) -> list[str]:
        """Run ids with entries, the most recently applied last."""
        try:
            names = [d.name for d in os.scandir(self.runs_dir) if d.is_dir()]
        except OSError:
            return []
        latest = {name: self._latest(name) for name in names}
        return sorted((n for n in names if latest[n]), key=lambda n: latest[n])

    def entries(self, run: str) -> list[JournalEntry]:
        """The run's entries in the order they were applied (unreadable ones skipped)."""
        folder = self.runs_dir / JournalOrigin(run=run).safe_run()
        try:
            names = sorted(n[:-5] for n in os.listdir(folder) if n.endswith(".json"))
        except OSError:
            return []
        found: list[JournalEntry] = []
        for name in names:
            if not _ENTRY.match(name):
                continue
            try:
                data = (folder / f"{name}.json").read_bytes()
                found.append(JournalEntry.model_validate_json(data))
            except (OSError, ValidationError):
                continue
        return found

    def prune(self, cutoff: datetime, *, spare_seconds: float = 3600.0) -> tuple[int, int, int]:
        """Forget entries applied before ``cutoff`` and the blobs no entry needs any more.

        A blob younger than ``spare_seconds`` stays: a call being applied keeps
        its blobs before it writes its entry.

        Returns:
            (entries removed, blobs removed, bytes freed).
        """
        entries = 0
        needed: set[str] = set()
        for run in self.runs():
            folder = self.runs_dir / JournalOrigin(run=run).safe_run()
            for entry in self.entries(run):
                if entry.applied_at < cutoff:
                    self.forget(entry)
                    entries += 1
                    continue
                needed.update(
                    f.before.sha256 for f in entry.files if f.before is not None and f.before.sha256
                )
            with contextlib.suppress(OSError):
                folder.rmdir()  # only when empty
        blobs = freed = 0
        young = time.time() - spare_seconds
        try:
            names = os.listdir(self.blobs)
        except OSError:
            names = []
        for name in names:
            path = self.blobs / name
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if name in needed or info.st_mtime > young:
                continue
            path.unlink(missing_ok=True)
            blobs += 1
            freed += info.st_blocks * 512
        return entries, blobs, freed

    def _latest(self, run_folder: str) -> str:
        try:
            names = [n for n in os.listdir(self.runs_dir / run_folder) if n.endswith(".json")]
        except OSError:
            return ""
        return max(names, default="")

    def _entry_path(self, run: str, entry_id: str) -> Path:
        if not _ENTRY.match(entry_id):
            raise ValueError(f"not a journal entry id: {entry_id!r}")
        return self.runs_dir / JournalOrigin(run=run).safe_run() / f"{entry_id}.json"


def new_entry_id() -> str:
    """Sortable by time of writing; unique across parallel calls."""
    return f"{time.time_ns():020d}-{secrets.token_hex(4)}"


class UndoJournal:
    """Records one call's change before it is applied.

    Args:
        state_dir: harness's state dir (the journal goes to ``journal/`` there).
        origin: the run and call the change belongs to, and the budget.
    """

    def __init__(self, state_dir: Path, origin: JournalOrigin) -> None:
        self.store = JournalStore(state_dir)
        self.origin = origin

    def record(self, changeset: Changeset, workdir: Path) -> JournalEntry:
        """Keep the prior bytes of every file ``changeset`` overwrites or deletes; write the entry.

        Raises:
            ToolError: a prior file could not be kept (nothing was applied yet),
                or changed while it was read (``changed_meanwhile``).
        """
        files = [
            (c.path, c.before, None if special_skipped(c) else c.after) for c in changeset.changes
        ]
        return self.record_files(files, workdir, moved_sources(changeset))

    def record_files(
        self,
        files: Sequence[tuple[str, FileState | None, FileState | None]],
        workdir: Path,
        moved: Mapping[str, str] | None = None,
    ) -> JournalEntry:
        """``record`` for (path, before, after) triples (``write``/``edit`` make one).

        Args:
            moved: renamed paths -> where the call moved their bytes (no copy kept).
        """
        moved = moved or {}
        total = sum(kept_bytes(b, a) for path, b, a in files if path not in moved)
        within = total <= self.origin.budget
        recorded: list[JournalFile] = []
        folders: dict[str, int] = {}  # a folder is opened once however many files it holds
        try:
            for path, before, after in files:
                needs = kept_bytes(before, after) > 0 and path not in moved  # nor an empty file
                if needs and within and before is not None and before.sha256:
                    self._keep(workdir, path, before.sha256, folders)
        finally:
            for fd in folders.values():
                os.close(fd)
        for path, before, after in files:
            needs = kept_bytes(before, after) > 0 and path not in moved
            keep = before is None or before.kind != "special"
            recorded.append(
                JournalFile(
                    path=path,
                    before=before,
                    after=after,
                    kept=keep and (within or not needs),
                    moved_to=moved.get(path),
                )
            )
        entry = JournalEntry(
            entry_id=new_entry_id(),
            run=self.origin.run,
            call=self.origin.call,
            tool=self.origin.tool,
            workdir=str(workdir),
            applied_at=datetime.now(UTC),
            files=tuple(recorded),
            note=None
            if within
            else (
                f"prior bytes ({total} bytes) over the undo budget "
                f"({self.origin.budget} bytes, HARNESS_UNDO_BUDGET): not kept"
            ),
        )
        try:
            self.store.save(entry)
        except OSError as exc:
            raise _not_kept(path="(the journal entry)", exc=exc) from exc
        return entry

    def forget(self, entry: JournalEntry) -> None:
        self.store.forget(entry)

    def _keep(self, workdir: Path, rel: str, sha256: str, folders: dict[str, int]) -> None:
        """Keep one prior file; ``folders``: descriptors of the folders opened so far."""
        parent, name = _split(rel)
        key = "/".join(parent)
        try:
            if key not in folders:
                folders[key] = open_dir_nofollow(workdir, parent)
            self.store.keep(folders[key], name, sha256)
        except ValueError as exc:
            raise ToolError(
                f"nothing was applied: {rel} changed while its prior bytes were kept ({exc}); "
                "run the call again",
                error_type="changed_meanwhile",
            ) from exc
        except OSError as exc:
            raise _not_kept(rel, exc) from exc


def _split(rel: str) -> tuple[list[str], str]:
    parts = rel.split("/")
    return parts[:-1], parts[-1]


def open_dir_nofollow(root: Path, parts: list[str]) -> int:
    """A descriptor of ``root/parts...``, each component opened without following a symlink.

    Raises:
        OSError: a component is missing, a symlink (``ELOOP``) or not a folder.
    """
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(root, flags)
    try:
        for part in parts:
            if part in ("", ".", ".."):
                raise OSError(22, "not a plain path component", part)
            child = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _not_kept(path: str, exc: OSError) -> ToolError:
    return ToolError(
        f"nothing was applied: the prior content of {path} could not be kept in the undo "
        f"journal ({exc.strerror or exc}); free space in the state dir or check its permissions",
        error_type="journal_failed",
    )


def journal_for_layer(upper: Path) -> UndoJournal | None:
    """The journal of the call whose changes wait in the layer of ``upper``, if it names one.

    A layer lives in ``<state dir>/layers/<id>/``; the bash tool writes the
    call's origin there before the changes are judged, so whoever applies them
    later (at once, or after an approval in another process) journals them.
    """
    root = upper.parent
    if not LAYER_ID_PATTERN.match(root.name) or root.parent.name != "layers":
        return None
    try:
        data = (root / ORIGIN_FILE).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _not_kept(f"(the origin of {root.name})", exc) from exc
    try:
        origin = JournalOrigin.model_validate_json(data)
    except ValidationError as exc:
        raise ToolError(
            f"nothing was applied: the origin of the held changes {root.name} is unreadable "
            f"({exc.error_count()} errors)",
            error_type="journal_failed",
        ) from None
    return UndoJournal(root.parent.parent, origin)


def state_at(dir_fd: int, name: str) -> FileState | None:
    """The state of ``name`` in the folder ``dir_fd`` (not following it); None: nothing there."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISREG(info.st_mode):
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
        digest = hashlib.sha256()
        try:
            while chunk := os.read(fd, 1 << 20):
                digest.update(chunk)
        finally:
            os.close(fd)
        return FileState(kind="file", mode=mode, size=info.st_size, sha256=digest.hexdigest())
    if stat.S_ISLNK(info.st_mode):
        target = os.readlink(name, dir_fd=dir_fd)
        data = os.fsencode(target)
        return FileState(
            kind="symlink",
            mode=mode,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            target=target,
        )
    return FileState(kind="dir" if stat.S_ISDIR(info.st_mode) else "special", mode=mode)
