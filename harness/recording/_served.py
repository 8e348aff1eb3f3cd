"""``ServedCassette``: a cassette that a server drives by hand, nothing patched.

``use_cassette`` serves a process's own HTTP calls by patching its HTTP
libraries. A server that relays another process's traffic (``harness proxy``)
receives each request itself: it asks the cassette for an answer, and when the
cassette has none and the mode records, it forwards the request and hands the
exchange back to be recorded. The cassette underneath is the same
``HarnessCassette`` (the index, the miss reports, the header allow-list, the
secret scan on save, telemetry answered ``204``, the responder for mutants), so
a file written here is the file ``use_cassette`` writes, and reads back.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from harness.core.errors import CassetteError
from harness.recording._matching import BodyNormalizer
from harness.recording._modes import RecordMode, parse_record_mode
from harness.recording._options import CassetteOptions, RerecordHint
from harness.recording._session import CassetteHandle, count_recording

if TYPE_CHECKING:
    from harness.recording._cassette import HarnessCassette

__all__ = ["ServedCassette"]


class ServedCassette:
    """One cassette file answered and recorded request by request (thread-safe).

    Use it as a context manager: entering loads the file (a missing one fails in
    mode ``none``), leaving saves what was recorded (atomically, secret scan
    first) and, unless ``allow_unplayed``, fails on interactions left unplayed.

    Args:
        path: the cassette file.
        record_mode: as :func:`harness.recording.use_cassette`.
        ignore_body_fields: dotted body paths matching ignores.
        ignore_query_params: query parameters matching ignores.
        metadata: extra ``harness:`` metadata to save.
        rerecord_hint: the command that re-records, shown in miss reports.
        save_error_responses: also record 4xx/5xx answers.
        responder: answers a request before the cassette (a mutant); never saved.
        allow_unplayed: whether interactions left unplayed are fine at exit.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        record_mode: str | RecordMode = RecordMode.NONE,
        ignore_body_fields: Iterable[str] = (),
        ignore_query_params: Iterable[str] = (),
        metadata: Mapping[str, Any] | None = None,
        rerecord_hint: RerecordHint = None,
        save_error_responses: bool = False,
        responder: Callable[[Any], dict[str, Any] | None] | None = None,
        allow_unplayed: bool = True,
    ) -> None:
        self.path = Path(path)
        self.options = CassetteOptions(
            mode=parse_record_mode(record_mode),
            normalizer=BodyNormalizer(ignore_body_fields, ignore_query_params),
            rerecord_hint=rerecord_hint,
            save_error_responses=save_error_responses,
            metadata=dict(metadata) if metadata else None,
            responder=responder,
        )
        self.allow_unplayed = allow_unplayed
        self._cassette: HarnessCassette | None = None
        self._handle: CassetteHandle | None = None
        self._lock = threading.Lock()

    @property
    def handle(self) -> CassetteHandle:
        """The session's state: played, recorded, unplayed, the first miss, exchanges."""
        if self._handle is None:
            raise CassetteError(f"cassette {self.path} is not open")
        return self._handle

    @property
    def records(self) -> bool:
        """Whether a request the cassette cannot answer may be forwarded and recorded."""
        return self.options.mode is not RecordMode.NONE

    def __enter__(self) -> ServedCassette:
        from harness.recording._cassette import HarnessCassette

        self._cassette = HarnessCassette.load(path=os.fspath(self.path), options=self.options)
        self._handle = CassetteHandle(self._cassette)
        if self.records:
            count_recording(1)
        return self

    def answer(self, request: Any) -> dict[str, Any] | None:
        """The response dict for a vcr ``request``, or None: forward it and :meth:`record`.

        Raises:
            CassetteError: a replay miss (the report names the nearest recorded
                request and what differs), or what the responder raised.
        """
        cassette = self._open()
        with self._lock:
            if cassette.can_play_response_for(request):
                return cassette.play_response(request)
        return None

    def record(self, request: Any, response: dict[str, Any]) -> None:
        """Record a forwarded exchange (headers filtered, errors dropped unless kept)."""
        cassette = self._open()
        with self._lock:
            cassette.append(request, response)

    def _open(self) -> HarnessCassette:
        if self._cassette is None:
            raise CassetteError(f"cassette {self.path} is not open; use it in a with block")
        return self._cassette

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        cassette = self._open()
        if self.records:
            count_recording(-1)
        with self._lock:
            self.handle.saved = cassette.persist()
        if exc is None and not self.allow_unplayed:
            unplayed = self.handle.report.unplayed
            if unplayed:
                raise CassetteError(
                    f"{len(unplayed)} interaction(s) of cassette {self.path} were never "
                    f"played: {', '.join(unplayed)}. The process sent fewer requests than "
                    "were recorded; re-record the cassette or allow unplayed interactions."
                )
