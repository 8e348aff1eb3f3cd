"""Serving a mutant: a provider that replays a response sequence by position.

Strict cassette matching would fail every mutant on its first changed request
(harness sends something new once a response changed), a kill that says
nothing about the eval. So a mutant is served in order, whatever the request:
the eval's own assertions decide. The sequence spans the whole test, so an eval
that runs, pauses for approval and resumes consumes it across both runs.

A request mutant (``harness.evals.request_mutants``) serves the recorded
answers and changes the request instead: the ``PositionalProvider`` is the
edge where the runtime's request arrives, so it rewrites the request there and
logs what it received (``requests``), which is what request checks read.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from pathlib import Path

from harness.core.errors import ProviderError
from harness.core.messages import LLMRequest, LLMResponse, Role
from harness.core.roles import role_of_system
from harness.evals._conversation_mutants import (
    ConversationMutant,
    Streams,
    conversation_mutants,
    is_conversation,
)
from harness.evals.mutant_results import CONTROL
from harness.evals.mutations import Mutant, Recorded, derive_mutants
from harness.evals.provenance import Source, cassette_source
from harness.evals.request_mutants import RequestChange, change_of, derive_request_mutants
from harness.traffic.sent import SentRequest

__all__ = [
    "MutantExhaustedError",
    "PositionalProvider",
    "cassette_mutants",
    "recorded_source",
    "serving",
]


class MutantExhaustedError(ProviderError):
    """The run asked for more model responses than the mutant sequence holds."""


class PositionalProvider:
    """Serves ``responses`` in order regardless of the request; strict about running out.

    A stored ``ProviderError`` is raised at its position, as the recorded
    provider raised it. Past the end, every call raises ``MutantExhaustedError``
    (the run then stops with a provider error) and ``exhausted`` turns true.
    """

    def __init__(
        self,
        name: str,
        model: str | None,
        responses: tuple[Recorded, ...],
        *,
        change: RequestChange | None = None,
        effort: str | None = None,
        by_role: Streams | None = None,
    ) -> None:
        self._name = name
        self._model = model
        self._responses = responses
        # A conversation: each role (agent, user, judge) is served its own sequence.
        self._by_role = {role: list(stream) for role, stream in by_role} if by_role else None
        self._lock = threading.Lock()
        self.served = 0
        self.exhausted = False
        self.change = change
        # The effort the run states: the recording's, or the mutant's (change_effort).
        self.reasoning_effort = effort
        self.requests: list[LLMRequest] = []  # as they reached the edge, changed or not

    @property
    def name(self) -> str:
        return self._name

    @property
    def model(self) -> str | None:
        return self._model

    @property
    def available(self) -> int:
        return len(self._responses)

    def _next_of_role(self, request: LLMRequest) -> Recorded:
        """The next answer of the role ``request`` speaks for (a conversation's mutant)."""
        assert self._by_role is not None
        system = "\n".join(m.content for m in request.messages if m.role is Role.SYSTEM)
        role = role_of_system(system)
        stream = self._by_role.get(role) or []
        if not stream:
            self.exhausted = True
            raise MutantExhaustedError(
                f"mutant sequence exhausted: the run asked for one more {role} response "
                "than the mutant holds",
                provider=self._name,
            )
        return stream.pop(0)

    def complete(self, request: LLMRequest) -> LLMResponse:
        # Positional: what was asked does not pick the answer; a request mutant
        # changes what the run is recorded to have sent.
        with self._lock:
            if self.change is not None:
                request = self.change.apply(request, len(self.requests))
            self.requests.append(request)
            if self._by_role is not None:
                item = self._next_of_role(request)
            elif self.served >= len(self._responses):
                self.exhausted = True
                raise MutantExhaustedError(
                    f"mutant sequence exhausted: the run asked for model response "
                    f"{self.served + 1}, the mutant holds {len(self._responses)}",
                    provider=self._name,
                )
            else:
                item = self._responses[self.served]
            self.served += 1
        if isinstance(item, ProviderError):
            raise ProviderError(str(item), status_code=item.status_code, provider=item.provider)
        return item


@lru_cache(maxsize=64)
def _cached(path: Path, provider: str, stamp: tuple[int, ...]) -> tuple[Mutant, ...]:
    from harness.evals.recorded_responses import read_recorded_responses, read_recorded_roles
    from harness.evals.tool_result_mutants import tool_result_mutants_beside

    del stamp  # part of the cache key only: an edited cassette is read again
    recorded = read_recorded_responses(path, provider)
    roles = read_recorded_roles(path, provider)
    if len(roles) == len(recorded) and is_conversation(roles):
        # One stream per role; request and tool-result mutants assume one stream.
        return conversation_mutants(recorded, roles)
    control = Mutant(CONTROL, CONTROL, "the recorded responses, unchanged", recorded)
    sent = _recorded_requests(path)
    return (
        control,
        *derive_mutants(recorded),
        *derive_request_mutants(sent, recorded),
        *tool_result_mutants_beside(path, recorded),  # the MCP cassette beside, if any
    )


def _recorded_requests(path: Path) -> tuple[SentRequest, ...]:
    return _requests(path, _stamp(path))


@lru_cache(maxsize=64)
def _requests(path: Path, stamp: tuple[int, int]) -> tuple[SentRequest, ...]:
    from harness.traffic import exchanges_from_cassette
    from harness.traffic.sent import sent_from_exchanges

    del stamp  # part of the cache key only: an edited cassette is read again
    return tuple(sent_from_exchanges(exchanges_from_cassette(path)))


def serving(mutant: Mutant, name: str, model: str | None, path: Path) -> PositionalProvider:
    """The provider that serves ``mutant`` from the cassette at ``path``: its answers
    by position, its request change (if any) at the edge."""
    change = change_of(mutant)
    if change is not None and change.operator == "change_effort":
        effort = change.effort
    else:
        sent = _recorded_requests(path)
        effort = sent[0].effort if sent else None
    by_role = mutant.by_role if isinstance(mutant, ConversationMutant) else None
    return PositionalProvider(
        name, model, mutant.responses, change=change, effort=effort, by_role=by_role
    )


@lru_cache(maxsize=64)
def _source(path: Path, stamp: tuple[int, int]) -> Source:
    del stamp  # part of the cache key only: an edited cassette is read again
    return cassette_source(path)


def recorded_source(path: Path) -> Source:
    """Where the cassette at ``path`` was recorded, read once for all of a row's mutants.

    Every mutant of a row serves the same cassette: parsing the whole file again
    for each (eight times for a two-call row) was most of a mutant run's setup.

    Raises:
        CassetteError: the file is missing or cannot be parsed.
    """
    return _source(path, _stamp(path))


def cassette_mutants(path: Path, provider: str) -> tuple[Mutant, ...]:
    """The ``original`` control, then every mutant derived from ``path``'s responses,
    its requests, and the tool results of the MCP cassette beside it.

    Raises:
        CassetteError: the cassette is missing or unreadable.
    """
    from harness.mcp import mcp_cassette_path, mcp_cassettes_from

    beside = mcp_cassettes_from(mcp_cassette_path(path)) or [mcp_cassette_path(path)]
    stamps = [part for each in beside for part in _stamp(each)]
    return _cached(path, provider, (*_stamp(path), len(beside), *stamps))


def _stamp(path: Path) -> tuple[int, int]:
    """The file's mtime and size, the cache key that tells an edited cassette; a
    file that cannot be read is read (and its error raised, never cached) anew."""
    try:
        info = path.stat()
    except OSError:
        return (-1, -1)
    return (info.st_mtime_ns, info.st_size)
