"""Where an eval row's transcript comes from: a replay-mode trace of the run,
else the cassette its answers were replayed from.

A row of a current report names its own recording: its absolute path, its path
from the rootdir and its sha256. The viewer opens that file (from any working
directory), else the rootdir-relative path under the report's folder, its
parents and the ``--cassettes`` folders' parents (a project moved or checked out
elsewhere), and says so when the bytes differ from the run's ("the recording
changed since the run"). Such a row is never given another file of the same
name: two models' recordings of one test share it.

A row of an older report names its cassette by file name only (and its test's
node id, provider and model), so the file is looked for where harness writes them:
``<dir>/<provider>/<model>/<test file>/<name>`` (the ``provider`` fixture),
``<dir>/<model>/<test file>/<name>`` and ``<dir>/<test file>/<name>``
(``llm_cassette`` with and without its model), in the cassette folders given,
else in the ``cassettes/`` folders of the report's project (``cassette_dirs``).
A cassette is read through the traffic trace (``harness.traffic``), the
one decoder of every wire format harness records, in replay mode: texts
redacted as any replay trace's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from harness.core.errors import HarnessError
from harness.evals import EvalRow
from harness.tracing import TraceTree
from harness.view._transcript import transcript

__all__ = ["Recording", "TranscriptIndex", "cassette_dirs", "find_cassette", "find_recording"]

# A transcript shows whole messages (the page folds long ones): cut only far past
# any message a test sends, where the cut is marked.
_MAX_CHARS: Final = 200_000
_CASSETTE: Final = frozenset({".yaml", ".yml", ".json"})


def cassette_dirs(report: Path, given: Sequence[Path] = ()) -> list[Path]:
    """The folders to look for a report's cassettes in: ``given``, else the
    ``cassettes/`` folders beside the report and above it up to its project's root
    (the first folder with a ``pyproject.toml`` or ``.git``), those one level below
    that root (e.g. ``examples/cassettes``), and the working directory's."""
    if given:
        return list(given)
    found: list[Path] = []

    def add(candidate: Path) -> None:
        if candidate.is_dir() and candidate not in found:
            found.append(candidate)

    for folder in [*report.resolve().parents, Path.cwd()]:
        add(folder / "cassettes")
        if (folder / "pyproject.toml").exists() or (folder / ".git").exists():
            for below in sorted(folder.glob("*/cassettes")):
                add(below)
            break
    add(Path.cwd() / "cassettes")
    return found


def find_cassette(row: EvalRow, folders: Sequence[Path]) -> Path | None:
    """The cassette file ``row`` was replayed from, or None if none of ``folders`` has it."""
    if not row.cassette:
        return None
    test_file = Path(row.nodeid.split("::", 1)[0]).with_suffix("")
    for folder in folders:
        for candidate in (
            folder / row.provider / row.model / test_file / row.cassette,
            folder / row.model / test_file / row.cassette,  # llm_cassette, with its model
            folder / test_file / row.cassette,
        ):
            if candidate.is_file():
                return candidate
    return None


@dataclass(frozen=True, slots=True)
class Recording:
    """A row's recording as found: the file, and why it may not be the run's bytes.

    Attributes:
        path: the cassette file.
        changed: None when the bytes are the run's (or the row kept no digest),
            else what the page says: the recording changed since the run.
    """

    path: Path
    changed: str | None = None


def _recorded_at(row: EvalRow, report: Path, folders: Sequence[Path]) -> list[Path]:
    """Where a row that names its own recording may find it, in order: its absolute
    path, then its rootdir-relative path under the report's folder and its parents,
    the given folders' parents and the working directory."""
    found: list[Path] = []
    if row.cassette_path:
        found.append(Path(row.cassette_path))
    if row.cassette_relpath:
        relative = Path(row.cassette_relpath)
        bases = [*report.absolute().parents, *(f.absolute().parent for f in folders), Path.cwd()]
        found.extend(base / relative for base in dict.fromkeys(bases))
    return found


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def find_recording(row: EvalRow, report: Path, folders: Sequence[Path] = ()) -> Recording | None:
    """The recording ``row`` was replayed from or recorded to, or None if it is nowhere.

    A row with a path (current reports) gets that file only, never another of the
    same name; a row with a name only (older reports) is looked for by name in
    ``folders`` (see ``find_cassette``).
    """
    if row.cassette_path or row.cassette_relpath:
        # Only a cassette's kind of file: a report names paths, and a page embeds
        # what it reads (a parse error quotes the file).
        candidates = (p for p in _recorded_at(row, report, folders) if p.suffix in _CASSETTE)
        path = next((p for p in candidates if p.is_file()), None)
    else:
        path = find_cassette(row, folders)
    if path is None:
        return None
    kept = row.cassette_sha256
    digest = _sha256(path) if kept else None
    if kept is None or digest is None or digest == kept:
        return Recording(path)
    return Recording(
        path,
        f"the recording changed since the run: {path} has sha256 {digest[:12]}, "
        f"the run's had {kept[:12]}",
    )


class TranscriptIndex:
    """Transcripts read once each (by trace or cassette path), numbered as first asked for."""

    def __init__(self, cassettes: Sequence[Path] = ()) -> None:
        """``cassettes``: the folders to look for cassettes in (default: see ``cassette_dirs``)."""
        self.transcripts: list[dict[str, Any]] = []
        self.given = list(cassettes)
        self._known: dict[str, int | str] = {}
        self._folders: dict[Path, list[Path]] = {}

    def for_tree(self, tree: TraceTree) -> dict[str, Any]:
        """``{"index"}`` of a trace's own transcript, or ``{"missing", "from"}``."""
        key = f"trace:{tree.path or tree.trace_id}"
        source = str(tree.path or tree.trace_id)
        if key not in self._known:
            self._known[key] = self._add(transcript(tree), source)
        return self._link(key, source)

    def for_row(self, row: EvalRow, trees: Sequence[TraceTree], report: Path) -> dict[str, Any]:
        """``{"index"}`` of the row's transcript (its ``from`` says where it was read),
        or ``{"missing"}`` saying why there is none.

        Args:
            row: the eval row.
            trees: the row's trace files, read (a replay-mode one is used first).
            report: the report file the row is from (its cassettes are looked for near it).
        """
        for tree in trees:
            if tree.capture_mode == "replay":
                return self.for_tree(tree)
        if report not in self._folders:
            self._folders[report] = cassette_dirs(report, self.given)
        folders = self._folders[report]
        found = find_recording(row, report, folders)
        if found is None:
            return {"missing": self._why_none(row, trees, folders, report)}
        key = f"cassette:{found.path}"
        if key not in self._known:
            self._known[key] = self._read_cassette(found.path)
        link = self._link(key, str(found.path))
        return link if found.changed is None else {**link, "changed": found.changed}

    def _link(self, key: str, source: str) -> dict[str, Any]:
        # Where a transcript came from is in the transcript (``from``), not in each
        # link to it: a thousand rows would repeat a hundred cassette paths.
        found = self._known[key]
        if isinstance(found, int):
            return {"index": found}
        return {"missing": found, "from": source}

    def _add(self, shown: dict[str, Any], source: str) -> int | str:
        if not shown["entries"]:
            return str(shown.get("why") or "nothing to show")
        self.transcripts.append({**shown, "from": source})
        return len(self.transcripts) - 1

    def _read_cassette(self, path: Path) -> int | str:
        # Lazy: the traffic decoder loads yaml and the wire readers.
        from harness.traffic import exchanges_from_cassette, trace_from_exchanges

        try:
            tree = trace_from_exchanges(
                exchanges_from_cassette(path), mode="replay", max_payload_chars=_MAX_CHARS
            )
        except HarnessError as exc:
            return f"cannot read the cassette {path}: {exc}"
        return self._add(transcript(tree), str(path))

    @staticmethod
    def _why_none(
        row: EvalRow, trees: Sequence[TraceTree], folders: Sequence[Path], report: Path
    ) -> str:
        said = "the run's traces are in metadata mode" if trees else "no trace of the run is kept"
        if row.source.value == "scripted" or not (row.cassette or row.cassette_path):
            keep = "HARNESS_TRACE_MODE=replay keeps the text"
            return f"{said}, and the run used no cassette ({keep})"
        if row.cassette_path or row.cassette_relpath:
            named = row.cassette_path or row.cassette_relpath
            return (
                f"{said}, and its recording {named} is gone (looked for it there and as "
                f"{row.cassette_relpath or '?'} above {report.parent}; give the folder "
                "of the project's cassettes with --cassettes DIR)"
            )
        where = ", ".join(str(f) for f in folders) or "no cassettes/ folder found"
        return (
            f"{said}, and its cassette {row.cassette} is not in {where} "
            "(give the folder with --cassettes DIR)"
        )
