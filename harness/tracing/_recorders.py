"""Where finished traces go: the ``TraceRecorder`` seam and its implementations.

``FileTraceRecorder`` writes the JSON file of the trace format (see ``schema``),
``MemoryTraceRecorder`` keeps trees in a list for tests, ``MultiTraceRecorder``
fans out to several (e.g. a file and an OpenTelemetry exporter).
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Final, Protocol, runtime_checkable

from harness.core import TraceAssertionError
from harness.files import atomic_write_bytes
from harness.tracing._errors import TraceRecordError
from harness.tracing._tree import TraceTree
from harness.tracing._written import remember_written

__all__ = [
    "NO_SESSION_DIR",
    "FileTraceRecorder",
    "MemoryTraceRecorder",
    "MultiTraceRecorder",
    "TraceRecorder",
    "trace_file_path",
]

NO_SESSION_DIR: Final = "_no_session"

# Keys and ids become folder and file names: no separators, no leading dot.
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$")


@runtime_checkable
class TraceRecorder(Protocol):
    """Receives every finished trace.

    Contract: ``record`` is called once per trace, from the thread that ended it,
    after every span is closed; it must not modify the tree. It returns the path
    it wrote, or None when it keeps traces elsewhere. It may raise: the Tracer
    catches any exception, logs one warning per Tracer and carries on, so a
    recorder can never break a run.
    """

    def record(self, tree: TraceTree) -> Path | None:
        """Store ``tree``; return the file written, if any."""
        ...


def trace_file_path(state_dir: Path, session_key: str | None, trace_id: str) -> Path:
    """Return ``state_dir/sessions/<session_key or _no_session>/traces/<trace_id>.json``.

    Raises:
        TraceRecordError: the key or id could escape the folder (separators, ``..``).
    """
    for label, value in (("session key", session_key), ("trace id", trace_id)):
        if value is not None and (not _SAFE_NAME.match(value) or ".." in value):
            raise TraceRecordError(f"{label} {value!r} cannot be used as a file name")
    folder = session_key if session_key is not None else NO_SESSION_DIR
    return Path(state_dir) / "sessions" / folder / "traces" / f"{trace_id}.json"


def _file_text(tree: TraceTree) -> str:
    """The content of a trace file: compact JSON with each span starting a new line.

    Half the size of ``tree.to_json()`` (indent 2) and written in half the time,
    which matters at one file per run; a span per line still reads well, and
    ``harness trace show`` renders the tree.
    """
    # In JSON text '{"span_id":' can only open an object (quotes inside strings are
    # escaped), so the breaks are whitespace between tokens.
    return tree.to_json(indent=None).replace('{"span_id":', '\n{"span_id":') + "\n"


class FileTraceRecorder:
    """Writes each trace as JSON, atomically (temp file in the same folder, then rename).

    Args:
        state_dir: the harness state directory; traces go under ``sessions/``.
    """

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir)

    def path_for(self, tree: TraceTree) -> Path:
        """Return the file ``record`` writes for ``tree``."""
        return trace_file_path(self.state_dir, tree.session_key, tree.trace_id)

    def record(self, tree: TraceTree) -> Path:
        """Write ``tree`` and return its path.

        Raises:
            TraceRecordError: the folder or file cannot be written; nothing is
                left half-written.
        """
        target = self.path_for(tree)
        document = _file_text(tree).encode("utf-8")
        try:
            atomic_write_bytes(target, document, durable=False, private=True)  # creates folders
        except OSError as exc:
            raise TraceRecordError(
                f"cannot write trace {tree.trace_id} to {target}: {exc.strerror or exc}"
            ) from exc
        # Valid by construction: reading it back in this process skips the schema.
        remember_written(document)
        return target


class MemoryTraceRecorder:
    """Keeps every recorded tree in ``trees`` (oldest first); for tests."""

    def __init__(self) -> None:
        self.trees: list[TraceTree] = []
        self._lock = threading.Lock()

    def record(self, tree: TraceTree) -> None:
        """Append ``tree``; nothing is written, so the path is None."""
        with self._lock:
            self.trees.append(tree)

    @property
    def last(self) -> TraceTree:
        """The most recent tree.

        Raises:
            TraceAssertionError: nothing has been recorded.
        """
        with self._lock:
            if not self.trees:
                raise TraceAssertionError(
                    "no trace was recorded: did the run happen, and with a tracer "
                    "whose mode is not 'off'?"
                )
            return self.trees[-1]

    def clear(self) -> None:
        """Forget every recorded tree."""
        with self._lock:
            self.trees.clear()


class MultiTraceRecorder:
    """Passes each tree to several recorders in order; returns the first path any wrote.

    Every recorder is tried even if an earlier one fails; failures are raised
    afterwards as one ``TraceRecordError``.
    """

    def __init__(self, *recorders: TraceRecorder) -> None:
        self.recorders = recorders

    def record(self, tree: TraceTree) -> Path | None:
        """Record with every recorder."""
        path: Path | None = None
        failures: list[str] = []
        for recorder in self.recorders:
            try:
                written = recorder.record(tree)
            except Exception as exc:  # one failing sink must not starve the others
                failures.append(f"{type(recorder).__name__}: {exc}")
                continue
            if path is None:
                path = written
        if failures:
            raise TraceRecordError("; ".join(failures))
        return path
