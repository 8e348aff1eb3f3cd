"""``use_cassette``: record or replay real SDK traffic inside a ``with`` block."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from harness.core.errors import CassetteError, ConfigurationError
from harness.recording._absent import known_absent_skipped
from harness.recording._guard import block_network
from harness.recording._logfilter import quiet_http_logs
from harness.recording._matching import BodyNormalizer
from harness.recording._metadata import CassetteMetadata
from harness.recording._modes import RecordMode, parse_record_mode
from harness.recording._offline import offline_hosts as offline_hosts_held
from harness.recording._options import CassetteOptions, RerecordHint

if TYPE_CHECKING:
    # vcrpy is imported when a cassette is first used, not with harness.recording.
    from harness.recording._cassette import HarnessCassette

__all__ = [
    "CassetteHandle",
    "CassetteReport",
    "count_recording",
    "recording_active",
    "use_cassette",
]

# Open sessions that may send requests on to the network (any mode but none), so
# that a guard against live calls (harness.testing's) lets their traffic through.
_recording = 0
_recording_lock = threading.Lock()


def recording_active() -> bool:
    """Whether a cassette that records (mode once, new_episodes, all, rewrite) is open."""
    return _recording > 0


def count_recording(delta: int) -> None:
    """Count a recording session in (``1``) or out (``-1``): see :func:`recording_active`."""
    global _recording
    with _recording_lock:
        _recording += delta


@dataclass(frozen=True)
class CassetteReport:
    """What a cassette session did.

    Attributes:
        path: the cassette file.
        record_mode: the mode of the session.
        played: interactions answered from the cassette.
        recorded: live exchanges recorded in this session.
        unplayed: loaded interactions no request used, as ``#i METHOD /path``.
        saved: whether the file was written when the session ended.
    """

    path: Path
    record_mode: RecordMode
    played: int
    recorded: int
    unplayed: tuple[str, ...]
    saved: bool = False

    @property
    def all_played(self) -> bool:
        """True when every loaded interaction was used."""
        return not self.unplayed


class CassetteHandle:
    """The ``as`` value of :func:`use_cassette`: the live state of one session."""

    def __init__(self, cassette: HarnessCassette) -> None:
        self._cassette = cassette
        self.saved = False

    @property
    def path(self) -> Path:
        """The cassette file."""
        return Path(self._cassette.path)

    @property
    def record_mode(self) -> RecordMode:
        """The mode of this session."""
        return self._cassette.options.mode

    @property
    def miss(self) -> CassetteError | None:
        """The first replay miss of this session, if a request matched nothing."""
        return self._cassette.miss

    @property
    def metadata(self) -> CassetteMetadata | None:
        """The ``harness:`` block of the file: the one this session saved, else the loaded one.

        None for a plain vcrpy file (or no file). Readers such as the eval source
        use it instead of parsing the file again.
        """
        cassette = self._cassette
        return cassette.saved_metadata or cassette.loaded_metadata

    @property
    def exchanges(self) -> list[tuple[Any, dict[str, Any]]]:
        """Each ``(vcr Request, response dict)`` of this session so far, in order.

        Played, recorded and locally answered exchanges; telemetry is left out.
        Response bodies are bytes, decoded from any content encoding.
        """
        return list(self._cassette.exchanges)

    @property
    def report(self) -> CassetteReport:
        """A snapshot of played, recorded and unplayed interactions."""
        cassette = self._cassette
        unplayed = tuple(f"#{i} {cassette.target_at(i)}" for i in cassette.unplayed())
        return CassetteReport(
            path=self.path,
            record_mode=self.record_mode,
            played=cassette.play_count,
            recorded=cassette.recorded,
            unplayed=unplayed,
            saved=self.saved,
        )


class _CassetteSession(contextlib.AbstractContextManager[CassetteHandle]):
    def __init__(
        self,
        options: CassetteOptions,
        path: Path,
        allow_unplayed: bool,
        guard: bool,
        skip_patchers: tuple[str, ...] = (),
    ) -> None:
        self._options = options
        self._path = path
        self._allow_unplayed = allow_unplayed
        self._guard = guard
        self._skip_patchers = skip_patchers
        self._stack = contextlib.ExitStack()
        self._cassette: HarnessCassette | None = None

    def __enter__(self) -> CassetteHandle:
        from harness.recording._cassette import HarnessCassette

        # vcrpy loads before it patches: a missing or corrupt cassette fails with nothing
        # patched, and the stack lifts the guard again.
        patcher = HarnessCassette.use(
            path=os.fspath(self._path), options=self._options, skip_patchers=self._skip_patchers
        )
        with contextlib.ExitStack() as stack:
            stack.enter_context(quiet_http_logs())
            if self._guard:
                stack.enter_context(block_network())
            # After the guard: an offline host fails as a dead network, not at the guard.
            stack.enter_context(offline_hosts_held(self._options.offline_hosts))
            with known_absent_skipped():  # vcrpy imports every library it could patch
                self._cassette = stack.enter_context(patcher)
            if self._options.mode is not RecordMode.NONE:
                count_recording(1)
                stack.callback(count_recording, -1)
            self._stack = stack.pop_all()
        self._handle = CassetteHandle(self._cassette)
        return self._handle

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stack.__exit__(exc_type, exc, tb)  # unpatch, then lift the guard
        cassette = self._cassette
        assert cassette is not None, "__exit__ without __enter__"
        miss = cassette.miss
        if miss is not None and not isinstance(exc, CassetteError):
            # The miss was swallowed, or translated (ProviderError, APIConnectionError):
            # surface it, so that a replay miss can never pass as something else.
            raise miss
        self._handle.saved = cassette.persist()
        if exc is None and not self._allow_unplayed:
            unplayed = self._handle.report.unplayed
            if unplayed:
                raise CassetteError(
                    f"{len(unplayed)} interaction(s) of cassette {self._path} were never "
                    f"played: {', '.join(unplayed)}. The code under test sent fewer requests "
                    "than were recorded; re-record the cassette or pass allow_unplayed=True."
                )


def use_cassette(
    path: str | os.PathLike[str],
    *,
    record_mode: str | RecordMode = RecordMode.NONE,
    ignore_body_fields: Iterable[str] = (),
    ignore_query_params: Iterable[str] = (),
    allow_unplayed: bool = True,
    metadata: Mapping[str, Any] | None = None,
    rerecord_hint: RerecordHint = None,
    save_error_responses: bool = False,
    block_network: bool | None = None,
    ignore_hosts: Iterable[str] = (),
    offline_hosts: Iterable[str] = (),
    responder: Callable[[Any], dict[str, Any] | None] | None = None,
    intercept: Iterable[str] | None = None,
    intercept_paths: Iterable[str] = (),
) -> contextlib.AbstractContextManager[CassetteHandle]:
    """Record or replay the HTTP traffic of the OpenAI/Anthropic SDKs in a block.

    Requests match on method, path, query and the JSON body with key order and
    ``ignore_body_fields`` removed; identical requests play in recorded order.

    Args:
        path: the cassette file (``*.yaml``/``*.yml``, or ``*.json``).
        record_mode: see :class:`RecordMode`; ``"none"`` only replays.
        ignore_body_fields: dotted body paths to ignore when matching, e.g.
            ``("metadata", "user", "messages.*.id")``.
        ignore_query_params: query parameters to ignore when matching
            (case-insensitive), e.g. ``("beta", "api-version")``: an SDK that
            stopped sending ``?beta=true`` still replays an older recording.
        allow_unplayed: when False, stored interactions left unused fail the block.
        metadata: extra ``harness:`` metadata to save (``provider``/``model`` override
            what is detected from the traffic).
        rerecord_hint: the command to re-record, shown in errors; or a function
            returning it, called only when an error shows it.
        save_error_responses: also record 4xx and 5xx answers (by default a failed
            call is not saved, so it can never replay as the answer).
        block_network: refuse non-loopback sockets in the block; by default on in
            mode ``"none"``.
        ignore_hosts: hosts whose requests the cassette neither plays nor records
            (they go on to the network, which the replay guard still refuses for
            anything but loopback), as vcrpy's ``ignore_hosts``.
        offline_hosts: hosts that are ignored and offline: in every mode their
            name lookup fails as on a machine without network, so the library
            raises its own catchable connection error (``httpx.ConnectError``,
            ``requests.ConnectionError``) instead of reaching the network guard.
        responder: called with each vcrpy request first; a response dict it
            returns answers the request (logged in ``exchanges``, never saved),
            None leaves it to the cassette. Telemetry (trace exports of agent
            frameworks) is always answered ``204`` and never recorded.
        intercept: the HTTP libraries whose traffic the cassette serves, by vcrpy's
            patcher names (``"httpx2"``, ``"requests"``, ...); None (the default) is
            every one vcrpy knows. Patching each library costs time on every
            entry, so a replay of one SDK may name only the library it uses. Only
            with the network guard on (``block_network``): the traffic of the
            libraries left out then fails at the guard instead of going unrecorded.
        intercept_paths: with ``intercept``, narrow only when every stored
            request's path ends with one of these (e.g. ``"/chat/completions"``):
            a file that also holds another library's traffic replays in full.

    Returns:
        A context manager whose ``as`` value is a :class:`CassetteHandle`.

    Raises:
        CassetteError: missing (mode none), corrupt or foreign cassette on entry;
            an unmatched request (also re-raised at exit if it was caught); a
            secret found while saving; unplayed interactions when not allowed.
        ConfigurationError: ``intercept`` names an unknown library, or narrows
            the cassette without the network guard.

    Note:
        A miss raises out of the SDK call unwrapped and is not retried by the
        SDKs. Connection errors from elsewhere still go through the SDK's
        ``max_retries``; set ``max_retries=0`` on replayed clients for speed.
    """
    mode = parse_record_mode(record_mode)
    offline = frozenset(host.lower() for host in offline_hosts)
    options = CassetteOptions(
        mode=mode,
        normalizer=BodyNormalizer(ignore_body_fields, ignore_query_params),
        rerecord_hint=rerecord_hint,
        save_error_responses=save_error_responses,
        metadata=dict(metadata) if metadata else None,
        ignore_hosts=frozenset(host.lower() for host in (*ignore_hosts, *offline)),
        offline_hosts=offline,
        responder=responder,
        intercept_paths=tuple(intercept_paths),
    )
    guard = mode is RecordMode.NONE if block_network is None else block_network
    skipped = _skipped_patchers(intercept, guard=guard)
    return _CassetteSession(options, Path(path), allow_unplayed, guard, skipped)


def _skipped_patchers(intercept: Iterable[str] | None, *, guard: bool) -> tuple[str, ...]:
    if intercept is None:
        return ()
    from vcr.patch import PATCHER_NAMES

    wanted = set(intercept)
    unknown = sorted(wanted - set(PATCHER_NAMES))
    if unknown:
        raise ConfigurationError(
            f"intercept names unknown HTTP libraries {unknown}; vcrpy patches "
            f"{', '.join(PATCHER_NAMES)}"
        )
    skipped = tuple(name for name in PATCHER_NAMES if name not in wanted)
    if skipped and not guard:
        raise ConfigurationError(
            f"intercept={sorted(wanted)} leaves {', '.join(skipped)} unpatched, and without "
            "the network guard their requests would go out unrecorded; replay with "
            "block_network=True (the default in record mode 'none'), or intercept everything"
        )
    return skipped
