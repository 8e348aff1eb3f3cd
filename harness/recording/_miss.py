"""Messages for the two ways replay can fail to find a recording."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

from harness.core.errors import CassetteError
from harness.recording._diff import describe_difference, nearest
from harness.recording._errors import UnmatchedRequestError
from harness.recording._kinds import traffic_kind
from harness.recording._matching import MatchKey, canonical_json
from harness.recording._options import CassetteOptions, RerecordHint

__all__ = ["DEFAULT_HINT", "MissedCassette", "missing_cassette_error", "unmatched_request_error"]

DEFAULT_HINT = (
    # Only pytest's --record-mode records: no variable does (HARNESS_RECORD_MODE was never read).
    "pytest ... --record-mode={mode}, against the live API or `harness sim serve`"
)
_BODY_PREVIEW = 300


class MissedCassette(Protocol):
    """What the miss report reads of the cassette a request missed in.

    ``HarnessCassette`` is the one implementation; the report names only what it
    reads, so that the cassette can import the report and not the other way round.
    """

    options: CassetteOptions
    play_counts: Any  # how often each interaction was played, by index

    @property
    def path(self) -> str: ...

    @property
    def data(self) -> Iterable[tuple[Any, Any]]: ...

    def verify_all(self) -> None: ...

    def key_at(self, index: int) -> MatchKey: ...


def _hint(rerecord_hint: RerecordHint, mode: str) -> str:
    hint = rerecord_hint() if callable(rerecord_hint) else rerecord_hint
    return (hint or DEFAULT_HINT).replace("{mode}", mode)


def missing_cassette_error(path: Path, rerecord_hint: RerecordHint) -> CassetteError:
    """The cassette file does not exist (or is empty) and the mode only replays."""
    return CassetteError(
        f"cassette {path} does not exist, and record mode 'none' only replays. "
        f"Record it once with record mode 'once': {_hint(rerecord_hint, 'once')}"
    )


def _query(key: MatchKey) -> str:
    return "?" + "&".join(f"{k}={v}" for k, v in key.query) if key.query else "(none)"


def _preview(value: Any) -> str:
    text = value if isinstance(value, str) else canonical_json(value)
    if len(text) > _BODY_PREVIEW:
        return f"{text[:_BODY_PREVIEW]}… ({len(text)} chars)"
    return text


def unmatched_request_error(
    cassette: MissedCassette, request: Any, key: MatchKey
) -> UnmatchedRequestError:
    """A replayed request matched nothing: what differs first, then what it was.

    The message opens with the differences from the nearest recorded request, so
    the first lines of a failing test's report are the diff.
    """
    cassette.verify_all()  # the diff needs every stored request parsed
    body = cassette.options.normalizer.value(request.body)
    where = f"request not found in cassette {cassette.path} (record mode '{cassette.options.mode}')"
    candidates = [
        (index, cassette.options.normalizer.value(stored.body), bool(cassette.play_counts[index]))
        for index, (stored, _) in enumerate(cassette.data)
        if cassette.key_at(index)[:2] == key[:2]
    ]
    closest = nearest(body, candidates)
    host = _host(request.uri)
    if closest is None:
        lines = [
            f"{where}: the cassette has no {key.method} {key.path} request at all "
            f"(this one went to {host})."
        ]
    else:
        index, recorded = closest
        stored = cassette.key_at(index)
        was_played = bool(cassette.play_counts[index])
        differences = describe_difference(recorded, body)
        if stored.query != key.query:
            differences.insert(0, f"query: {_query(stored)} -> {_query(key)}")
        if not differences:
            differences = [
                "no difference in path, query or body: the recording was already played; "
                "the request was sent more often than when recorded"
                if was_played
                else "no difference in path, query or body, yet the interaction is not "
                "available to replay (recorded in this session)"
            ]
        played = " (already played)" if was_played else ""
        lines = [
            f"{where}. Nearest recorded request: interaction {index}{played}; recorded -> now:"
        ]
        lines.extend(f"  {line}" for line in differences)
    kind = traffic_kind(key.method, request.uri)
    lines.append(f"The request: {key.method} {key.target} to host {host} ({kind} traffic)")
    lines.append(f"  body: {_preview(body)}")
    ignored = cassette.options.normalizer.ignore_fields
    if ignored:
        lines.append(f"(ignored body fields: {', '.join(ignored)})")
    ignored_query = cassette.options.normalizer.ignore_query_params
    if ignored_query:
        lines.append(f"(ignored query parameters: {', '.join(ignored_query)})")
    lines.append(
        f"If the change is intended, re-record: {_hint(cassette.options.rerecord_hint, 'rewrite')}"
    )
    return UnmatchedRequestError(
        "\n".join(lines),
        cassette_path=str(cassette.path),
        method=key.method,
        path=key.target,
        host=host,
    )


def _host(uri: str) -> str:
    """``host[:port]`` of ``uri``, without a login (a miss report never shows one)."""
    return urlsplit(uri).netloc.rsplit("@", 1)[-1] or "(no host)"
