"""Where an eval row's transcript comes from: a replay-mode trace of the run,
else the cassette its answers were replayed from.

A report row names its cassette by file name only (and its test's node id,
provider and model), so the file is looked for where harness writes them:
``<dir>/<provider>/<model>/<test file>/<name>`` (the ``provider`` fixture) and
``<dir>/<test file>/<name>`` (``llm_cassette``), in the cassette folders given,
else in the ``cassettes/`` folders of the report's project (``cassette_dirs``).
A cassette is read through the traffic trace (``harness.traffic``), the
one decoder of every wire format harness records, in replay mode: texts
redacted as any replay trace's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from harness.core.errors import HarnessError
from harness.evals.rows import EvalRow
from harness.tracing import TraceTree
from harness.view.transcript import transcript

__all__ = ["TranscriptIndex", "cassette_dirs", "find_cassette"]

# A transcript shows whole messages (the page folds long ones): cut only far past
# any message a test sends, where the cut is marked.
_MAX_CHARS: Final = 200_000


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
            folder / test_file / row.cassette,
        ):
            if candidate.is_file():
                return candidate
    return None


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
        cassette = find_cassette(row, folders)
        if cassette is None:
            return {"missing": self._why_none(row, trees, folders)}
        key = f"cassette:{cassette}"
        if key not in self._known:
            self._known[key] = self._read_cassette(cassette)
        return self._link(key, str(cassette))

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
    def _why_none(row: EvalRow, trees: Sequence[TraceTree], folders: Sequence[Path]) -> str:
        said = "the run's traces are in metadata mode" if trees else "no trace of the run is kept"
        if row.source.value == "scripted" or not row.cassette:
            keep = "HARNESS_TRACE_MODE=replay keeps the text"
            return f"{said}, and the run used no cassette ({keep})"
        where = ", ".join(str(f) for f in folders) or "no cassettes/ folder found"
        return (
            f"{said}, and its cassette {row.cassette} is not in {where} "
            "(give the folder with --cassettes DIR)"
        )
