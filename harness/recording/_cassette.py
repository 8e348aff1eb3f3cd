"""``HarnessCassette``: a vcrpy ``Cassette`` that serves requests from an index.

vcrpy's own cassette scans every stored interaction per request (and runs every
matcher on each). This subclass keys a dict by the digest of each request's
:class:`MatchKey`, with a cursor per key, so a lookup costs one body
normalization and one dict access whatever the cassette size, and interactions
sharing a key play in recorded order. Stored ``harness_match`` lines give the
digests without parsing the file; each interaction is parsed when first played
and its digest checked then, and a miss re-reads everything before failing, so
a hand-edited cassette is never matched on stale digests.

vcrpy still does the patching, the (de)serialization of HTTP objects and the
recording; this class decides what plays, what is recorded, and what is saved
(by :mod:`harness.recording._storage`, after vcrpy has unpatched).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from vcr.cassette import Cassette
from vcr.record_mode import RecordMode as VcrRecordMode
from vcr.request import Request

from harness.core.errors import CassetteError
from harness.core.urls import strip_userinfo
from harness.recording._canonical import canonical_uri
from harness.recording._encoding import decode_response
from harness.recording._errors import passthrough
from harness.recording._filters import (
    keep_request_headers,
    response_filter,
    stored_body,
    stored_response,
)
from harness.recording._format import Interaction
from harness.recording._kinds import is_model_call
from harness.recording._matching import MatchKey, parse_match_line
from harness.recording._metadata import SIMULATOR_HEADER, CassetteMetadata, describe_recording
from harness.recording._miss import missing_cassette_error, unmatched_request_error
from harness.recording._modes import RecordMode
from harness.recording._options import CassetteOptions
from harness.recording._playback import LazyInteractions
from harness.recording._redact import redact_uri
from harness.recording._storage import load_cassette, save_cassette
from harness.recording._telemetry import is_telemetry, telemetry_response
from harness.recording.stand_ins import is_stand_in

__all__ = ["HarnessCassette"]

_VCR_MODES = {
    RecordMode.NONE: VcrRecordMode.NONE,
    RecordMode.ONCE: VcrRecordMode.ONCE,
    RecordMode.NEW_EPISODES: VcrRecordMode.NEW_EPISODES,
    RecordMode.ALL: VcrRecordMode.ALL,
    RecordMode.REWRITE: VcrRecordMode.ALL,
}


def _request_filter(ignore_hosts: frozenset[str]) -> Callable[[Any], Any]:
    def keep(request: Any) -> Any:
        if ignore_hosts and (urlsplit(request.uri).hostname or "").lower() in ignore_hosts:
            return None  # vcrpy then sends it on, unrecorded
        if is_stand_in(request.uri):
            return None  # harness's own loopback server (an MCP stand-in): not model traffic
        # A new Request rather than vcrpy's deepcopy: only the headers change.
        headers = keep_request_headers(request.headers)
        return Request(request.method, request.uri, request.body, headers)

    return keep


class HarnessCassette(Cassette):  # type: ignore[misc]
    """A vcrpy cassette with O(1) matching, harness storage and clear errors."""

    def __init__(self, path: str, options: CassetteOptions, **kwargs: Any) -> None:
        keep_response: Callable[[dict[str, Any]], dict[str, Any] | None] = response_filter(
            options.save_error_responses
        )
        # Patchers to skip, decided once the file is loaded (see _narrow).
        self._narrowed: tuple[str, ...] = tuple(kwargs.pop("skip_patchers", ()))
        super().__init__(
            path,
            record_mode=_VCR_MODES[options.mode],
            match_on=(),
            before_record_request=_request_filter(options.ignore_hosts),
            before_record_response=keep_response,
            **kwargs,
        )
        self.options = options
        self.loaded_metadata: CassetteMetadata | None = None
        self.saved_metadata: CassetteMetadata | None = None
        self.miss: CassetteError | None = None
        self.recorded = 0
        self.data = LazyInteractions()
        self._intact: Callable[[int], bool] = lambda index: False
        self._digests: list[str] = []
        self._targets: list[str] = []
        self._verified: list[bool] = []
        self._index: dict[str, list[int]] = {}
        self._cursor: dict[str, int] = {}
        self._last: tuple[Any, MatchKey, str] | None = None
        # Every exchange of this session in the order it happened (played, recorded or
        # answered by the responder), telemetry left out: what the code under test saw.
        self.exchanges: list[tuple[Any, dict[str, Any]]] = []
        # Answers given without the cassette, by request, until vcrpy plays them: a
        # responder may have side effects (a mutant's next response), so it is asked
        # once per request, even when threads interleave their requests.
        self._local: dict[int, tuple[Any, dict[str, Any] | None]] = {}
        # SDK calls may run in parallel threads (tool fan-out, subagents): one cursor move each.
        self._lock = threading.RLock()

    # -- loading -----------------------------------------------------------
    def _load(self) -> None:
        path = Path(self._path)
        loaded = None if self.options.mode is RecordMode.REWRITE else load_cassette(path)
        if loaded is None:
            if self.options.mode is RecordMode.NONE:
                raise missing_cassette_error(path, self.options.rerecord_hint)
            return
        self.data = LazyInteractions(loaded.entries)
        self._intact = loaded.entries.intact
        meta = loaded.metadata
        normalizer = self.options.normalizer
        trusted = (
            meta is not None
            and meta.ignore_body_fields == normalizer.ignore_fields
            and meta.ignore_query_params == normalizer.ignore_query_params
        )
        for index in range(len(loaded.entries)):
            stored = parse_match_line(loaded.entries.match(index)) if trusted else None
            if stored is None:
                key = self._key_at(index)
                stored = (f"{key.method} {key.target}", key.digest)
            self._targets.append(stored[0])
            self._digests.append(stored[1])
            self._verified.append(not trusted)
        self._loaded_count = len(self.data)
        self._rebuild_index()
        self.loaded_metadata = meta
        self.rewound = True
        self._narrow()

    def _narrow(self) -> None:
        """Skip the patchers the session left out, unless the file holds other traffic.

        vcrpy builds its patchers after loading. A narrowed replay patches only the
        SDK's HTTP library; a request another library recorded into the same file
        (a tool calling a local service with ``requests``) must still replay, so a
        file holding any request off the SDK's endpoints is replayed in full.
        """
        paths = self.options.intercept_paths
        stored = (target.partition(" ")[2].partition("?")[0] for target in self._targets)
        if self._narrowed and (not paths or all(path.endswith(paths) for path in stored)):
            self.skip_patchers = self._narrowed

    def _key_at(self, index: int) -> MatchKey:
        request = self.data.request(index)
        return self.options.normalizer.key(request.method, request.uri, request.body)

    def _rebuild_index(self) -> None:
        self._index = {}
        for index, digest in enumerate(self._digests):
            self._index.setdefault(digest, []).append(index)
        # A key plays in order: its cursor is its first loaded, not yet played interaction.
        self._cursor = {
            digest: next(
                (
                    n
                    for n, i in enumerate(positions)
                    if i < self._loaded_count and not self.play_counts[i]
                ),
                len(positions),
            )
            for digest, positions in self._index.items()
        }

    def verify_all(self) -> None:
        """Parse every stored interaction and re-index if a stored digest was stale."""
        stale = False
        for index in range(self._loaded_count):
            if not self._verified[index]:
                stale |= self._verify(index)
        if stale:
            self._rebuild_index()

    def _verify(self, index: int) -> bool:
        """Check the stored digest of ``index`` against its request; True if it was stale."""
        self._verified[index] = True
        if self._intact(index):
            return False  # the text is as harness wrote it, digest included
        key = self._key_at(index)
        if key.digest == self._digests[index]:
            return False
        self._digests[index], self._targets[index] = key.digest, f"{key.method} {key.target}"
        return True

    # -- matching ----------------------------------------------------------
    def _key_of(self, request: Any) -> MatchKey:
        # vcrpy asks can_play_response_for, then play_response, with one request.
        return self._last_key(request)[0]

    def _digest_of(self, request: Any) -> str:
        return self._last_key(request)[1]

    def _last_key(self, request: Any) -> tuple[MatchKey, str]:
        last = self._last
        if last is None or last[0] is not request:
            key = self.options.normalizer.key(request.method, request.uri, request.body)
            last = self._last = (request, key, key.digest)  # digest: a hash of the body
        return last[1], last[2]

    def _next_index(self, request: Any) -> int | None:
        digest = self._digest_of(request)
        positions = self._index.get(digest, ())
        cursor = self._cursor.get(digest, 0)
        if cursor >= len(positions):
            return None
        index = positions[cursor]
        if not self._verified[index] and self._verify(index):
            self._rebuild_index()  # the file was edited by hand: match on what it holds
            return self._next_index(request)
        return index

    def _find(self, request: Any) -> int | None:
        index = self._next_index(request)
        if index is None and not all(self._verified[: self._loaded_count]):
            self.verify_all()
            index = self._next_index(request)
        return index

    def _responses(self, request: Any) -> Any:
        index = self._find(request)
        if index is not None:
            yield index, self.data.response(index)

    def _local_answer(self, request: Any, *, take: bool = False) -> dict[str, Any] | None:
        """The answer given without the cassette (telemetry, the responder), once per request."""
        with self._lock:
            known = self._local.get(id(request))
            if known is None or known[0] is not request:
                answer: dict[str, Any] | None = None
                if is_telemetry(request.uri):
                    answer = telemetry_response()
                elif self.options.responder is not None and not self._ignored(request):
                    answer = self.options.responder(request)
                    if answer is not None:
                        self.exchanges.append((request, answer))
                known = (request, answer)
                if answer is not None:
                    self._local[id(request)] = known
            if take:
                self._local.pop(id(request), None)
            return known[1]

    def _ignored(self, request: Any) -> bool:
        hosts = self.options.ignore_hosts
        if hosts and (urlsplit(request.uri).hostname or "").lower() in hosts:
            return True
        return is_stand_in(request.uri)

    def can_play_response_for(self, request: Any) -> bool:
        """Whether a stored response answers ``request``; raises on a replay miss."""
        if self._local_answer(request) is not None:
            return True
        if not self.options.mode.replays or self._ignored(request):
            return False
        with self._lock:
            if self._find(request) is not None:
                return True
        if self.write_protected:
            raise self._unmatched(request)
        return False

    def play_response(self, request: Any) -> dict[str, Any]:
        """Return the next stored response for ``request`` and mark it played."""
        local = self._local_answer(request, take=True)
        if local is not None:
            return local
        with self._lock:
            index = self._find(request)
            if index is None:
                raise self._unmatched(request)
            digest = self._digests[index]
            self._cursor[digest] = self._cursor.get(digest, 0) + 1
            self.play_counts[index] += 1
            response = self.data.response(index)
            self.exchanges.append((request, response))
        return response

    def _unmatched(self, request: Any) -> CassetteError:
        with self._lock:
            error = unmatched_request_error(self, request, self._key_of(request))
            if self.miss is None:
                self.miss = error
        return passthrough(error)

    # -- recording and saving ----------------------------------------------
    def append(self, request: Any, response: dict[str, Any]) -> None:
        """Record one live exchange (after filtering headers and error answers)."""
        request = self._before_record_request(request)
        if not request:
            return
        kept = self._before_record_response(response)
        with self._lock:
            # An error answer is not saved, but the code under test did see it.
            self.exchanges.append((request, kept or decode_response(response)))
            if kept is not None:
                self._record(self._key_of(request), request, kept)

    def _record(self, key: MatchKey, request: Any, response: dict[str, Any]) -> None:
        index = len(self.data)
        self.data.append((request, response))
        self._digests.append(key.digest)
        self._targets.append(f"{key.method} {key.target}")
        self._verified.append(True)
        # Traffic recorded in this session is saved, never replayed to itself.
        positions = self._index.setdefault(key.digest, [])
        positions.append(index)
        self._cursor[key.digest] = len(positions)
        self.recorded += 1
        self.dirty = True

    def _save(self, force: bool = False) -> None:
        # vcrpy calls this before unpatching; harness saves afterwards (persist).
        return None

    def interactions_to_save(self) -> list[int]:
        """Indexes of the interactions the file should hold after this session."""
        loaded = range(self._loaded_count)
        recorded = range(self._loaded_count, len(self.data))
        if self.options.mode is RecordMode.ALL:
            fresh = {self._digests[i] for i in recorded}
            return [i for i in loaded if self._digests[i] not in fresh] + list(recorded)
        return [*loaded, *recorded]

    def persist(self) -> bool:
        """Save the cassette if this session recorded anything; True when written."""
        if not self.dirty:
            return False
        self.verify_all()
        chosen = self.interactions_to_save()
        # The header says where the *model's* answers came from: a tool's own HTTP
        # (a weather API) is saved too, but names neither the source nor the model.
        models = self._model_calls(chosen)
        simulated = [i for i in models if self._simulated(i)]
        normalizer = self.options.normalizer
        requests = [self.data.request(i) for i in models]
        described = [(request.uri, normalizer.value(request.body)) for request in requests]
        metadata = describe_recording(
            described,
            bool(simulated),
            self.options.metadata,
            normalizer.ignore_fields,
            normalizer.ignore_query_params,
            hosts=self._hosts(models, simulated),
        )
        stored = [self._stored(i) for i in chosen]
        self.saved_metadata = save_cassette(Path(self._path), stored, metadata)
        self.dirty = False
        return True

    def _model_calls(self, chosen: list[int]) -> list[int]:
        """The model calls among ``chosen``; all of them when none is one (no wire known)."""
        requests = [(i, self.data.request(i)) for i in chosen]
        models = [i for i, request in requests if is_model_call(request.method, request.uri)]
        return models or chosen

    def _simulated(self, index: int) -> bool:
        return SIMULATOR_HEADER in self.data.response(index).get("headers", {})

    def _hosts(self, chosen: list[int], simulated: list[int]) -> list[str]:
        """Where the saved interactions really went.

        A loaded simulator interaction is stored under its provider's canonical
        host, so its real host comes from the loaded metadata instead.
        """
        from_file = {i for i in simulated if i < self._loaded_count}
        hosts = [
            urlsplit(strip_userinfo(self.data.request(i).uri)).netloc
            for i in chosen
            if i not in from_file
        ]
        against = self.loaded_metadata.recorded_against if self.loaded_metadata else None
        if from_file and against:
            hosts.extend(against.removesuffix(" (harness simulator)").split(", "))
        return hosts

    def _stored(self, index: int) -> Interaction:
        request, response = self.data[index]
        headers = keep_request_headers(request.headers)
        uri = redact_uri(request.uri)
        if self._simulated(index):
            uri = canonical_uri(uri)  # the metadata still names the simulator
        stored_request = {
            "method": request.method,
            "uri": uri,
            "headers": {name: [value] for name, value in headers.items()},
            "body": stored_body(request.body, headers.get("content-type", "")),
        }
        match = f"{self._targets[index]} {self._digests[index]}"
        return Interaction(stored_request, stored_response(response), match)

    # -- reporting ----------------------------------------------------------
    def unplayed(self) -> list[int]:
        """Loaded interactions that no request has used (replaying modes only)."""
        if not self.options.mode.replays:
            return []
        return [i for i in range(self._loaded_count) if not self.play_counts[i]]

    def target_at(self, index: int) -> str:
        """``METHOD /path`` of interaction ``index`` (without parsing it)."""
        return self._targets[index]

    def key_at(self, index: int) -> MatchKey:
        """The match key of interaction ``index`` (parses it if needed)."""
        return self._key_at(index)
