"""Tool traffic in a mutant run: answered loosely, by host and path, in recorded order.

A mutant changes the model's answers, and with them what the agent's tools
send: a mutated argument (``city: "Paris"`` -> ``"Pari"``) changes the query or
body of the tool's own HTTP call, which the cassette then cannot match. That
is the mutant doing its job, not a broken run. So in a mutant run each request
that is not a model call (``harness.recording.is_model_call``) is answered from
the recorded tool exchanges of the same method, host and path, whatever its
query and body, in recorded order; past the last one the last is served again
(a tool asked twice reads the same answer). A request to a method, host and
path never recorded has no answer: it raises :class:`ToolTrafficMissError`,
and the mutant is classified ``exhausted`` when the eval then fails
(``harness.testing.rows.mutant_outcome``): the run left the recording, as a run
that asks for more model responses than the mutant holds does, and it is
never counted as a crash.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import pytest

from harness.core.errors import CassetteError

__all__ = ["TOOL_REPLAY_KEY", "ToolTrafficMissError", "ToolTrafficReplay", "chain_responders"]

Responder = Any  # Callable[[vcr Request], dict | None]


class ToolTrafficMissError(CassetteError):
    """A mutant run sent tool traffic to a method, host and path never recorded."""


Key = tuple[str, str, str]  # method, host, path


def _key(method: str, uri: str) -> Key:
    parts = urlsplit(uri)
    return method.upper(), (parts.hostname or "").lower(), parts.path.rstrip("/") or "/"


class ToolTrafficReplay:
    """A cassette responder for the tool traffic of one mutant run.

    Attributes:
        missed: ``METHOD host/path`` of each request it had no recording for.
    """

    def __init__(self, path: Path) -> None:
        self._recorded = _recorded_answers(path, _stamp(path))
        self._served: defaultdict[Key, int] = defaultdict(int)
        self.missed: list[str] = []

    def __call__(self, request: Any) -> dict[str, Any] | None:
        from harness.recording import is_model_call, passthrough

        if is_model_call(request.method, request.uri):
            return None
        key = _key(request.method, request.uri)
        answers = self._recorded.get(key)
        if not answers:
            where = f"{key[0]} {key[1]}{key[2]}"
            self.missed.append(where)
            raise passthrough(
                ToolTrafficMissError(
                    f"tool traffic beyond the recording: the mutant run sent {where}, and the "
                    "cassette holds no exchange with that method, host and path"
                )
            )
        index = min(self._served[key], len(answers) - 1)
        self._served[key] += 1
        return answers[index]


def _stamp(path: Path) -> tuple[int, int]:
    try:
        info = path.stat()
    except OSError:
        return (-1, -1)
    return (info.st_mtime_ns, info.st_size)


@functools.lru_cache(maxsize=64)
def _recorded_answers(
    path: Path, stamp: tuple[int, int]
) -> Mapping[Key, tuple[dict[str, Any], ...]]:
    """The recorded tool answers of ``path`` by method, host and path: read once for all
    of a row's mutants (``stamp``, the file's mtime and size, tells an edited file)."""
    from harness.recording import is_model_call, read_cassette

    del stamp  # part of the cache key only
    found: defaultdict[Key, list[dict[str, Any]]] = defaultdict(list)
    for request, response in read_cassette(path).interactions:
        method, uri = str(request.get("method", "")), str(request.get("uri", ""))
        if not is_model_call(method, uri):
            found[_key(method, uri)].append(response)
    return MappingProxyType({key: tuple(answers) for key, answers in found.items()})


def chain_responders(*responders: Responder) -> Responder:
    """One responder that asks each in turn; the first answer wins."""

    def respond(request: Any) -> dict[str, Any] | None:
        for responder in responders:
            answer = responder(request)
            if answer is not None:
                return answer  # type: ignore[no-any-return]
        return None

    return respond


TOOL_REPLAY_KEY = pytest.StashKey[ToolTrafficReplay]()
