"""What each part of a wire provides: the contract its package fulfils, written once.

A wire's registry entry (``harness.core.wires``) names its parts by dotted path
(``WireParts``); the rooms that dispatch by wire load them with
``harness.core.wire_parts.load_part`` and call only what is written here. A
module is the usual implementation (a Protocol is satisfied by a module's
functions and constants as by an object's methods); the provider part is a
class. ``tests/core/test_wires.py`` checks every ready wire's parts against
these, so a wire that lacks a part, or a part that lacks a function, fails
there, not in a room far from its package.

- :class:`ProviderPart`: the runtime provider (SDK adapter), a class
  (Capability.RUNTIME);
- :class:`TrafficPart`: a recorded exchange read for the traffic trace;
- :class:`SimulatorPart`: a scripted reply answered in the wire's shape
  (Capability.SIMULATOR), through the :class:`SimulatorApi` it routes to;
- :class:`MutationsPart`: recorded answers decoded, and mutants of a recorded
  body (Capability.SIMULATOR);
- :class:`TranscriptPart`: a sent message of the wire's own shape read as a
  transcript line.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from harness.evals.wire_mutations import BodyMutant
from harness.providers import LLMProvider
from harness.simulator import ErrorReply, Reply
from harness.simulator.wire_api import Answer, ApiError, Conversation, Ids
from harness.traffic.wire import Readers

__all__ = [
    "PART_PROTOCOLS",
    "MutationsPart",
    "ProviderPart",
    "SimulatorApi",
    "SimulatorPart",
    "TrafficPart",
    "TranscriptPart",
]


@runtime_checkable
class ProviderPart(Protocol):
    """The adapter class: ``cls(model, api_key=, base_url=, max_retries=, stream=)``.

    ``api_key`` None reads the wire's key variable; ``base_url`` None the SDK's
    default (or its base URL variable). The instance is an ``LLMProvider``.
    """

    def __call__(
        self,
        model: str,
        *,
        api_key: str | None = ...,
        base_url: str | None = ...,
        max_retries: int = ...,
        stream: bool = ...,
    ) -> LLMProvider: ...

    def http_library(self) -> tuple[str, ...] | None:
        """The vcrpy patcher of the HTTP library its SDK's client is built on (a
        classmethod), None when the SDK picks one at run time."""
        ...


@runtime_checkable
class TrafficPart(Protocol):
    """Reads the wire's recorded exchanges for the traffic trace and eval rows."""

    def is_call(self, method: str, url: str) -> bool:
        """Whether a request (already told as this wire's by its path) is a model call."""
        ...

    def readers(self, url: str) -> Readers:
        """The request, JSON answer and event-stream answer readers for a call to ``url``."""
        ...

    def model_in_path(self, url: str) -> str | None:
        """The model a call names in its URL, or None where the body names it."""
        ...


@runtime_checkable
class SimulatorApi(Protocol):
    """The simulator's API for one request path: validate, answer, refuse."""

    def parse(self, body: Any) -> Conversation:
        """The request described; raises ``ApiError`` where the real API refuses it."""
        ...

    def answer(self, reply: Reply, conversation: Conversation, ids: Ids, model: str) -> Answer:
        """``reply`` as the real API would send it (JSON or SSE, as asked)."""
        ...

    def error_answer(self, error: ErrorReply | ApiError | str, status: int = 400) -> Answer:
        """An error in the real API's shape."""
        ...


@runtime_checkable
class SimulatorPart(Protocol):
    """Teaches the simulator the wire. An API that holds conversations between
    requests also has ``resume`` and ``hold`` (``harness.simulator``'s ``Holder``)."""

    REQUEST_ID_HEADER: str  # the header the real API sends its request id in

    def route(self, path: str) -> SimulatorApi | None:
        """The API answering a request to ``path``, or None when the wire serves no such path."""
        ...


@runtime_checkable
class MutationsPart(Protocol):
    """Decodes recorded answers for mutants and perturbs a recorded body."""

    def recorded_decoder(self, http: Any, *, key: str, stream: bool) -> LLMProvider:
        """The wire's adapter on an SDK client sending through ``http`` (an httpx2 client)."""
        ...

    def body_mutants(self, body: bytes | str) -> list[BodyMutant]:
        """The mutants of a recorded answer body (none where the wire has no operators)."""
        ...


@runtime_checkable
class TranscriptPart(Protocol):
    """Reads the sent messages of the wire's own shape for the viewer's transcript.

    Messages of the ``role``/``content`` shape harness's own messages share are
    read by the viewer itself; a wire claims only what differs, and the claims
    of two wires never overlap.
    """

    def reads(self, message: Any) -> bool:
        """Whether ``message`` is of this wire's own shape."""
        ...

    def content_line(self, message: Mapping[str, Any]) -> tuple[str, str] | None:
        """``(role, text)`` of a claimed message, or None where the spans show it."""
        ...


# Each part of ``WireParts`` and the contract it fulfils.
PART_PROTOCOLS: dict[str, type] = {
    "provider": ProviderPart,
    "traffic": TrafficPart,
    "simulator": SimulatorPart,
    "mutations": MutationsPart,
    "transcript": TranscriptPart,
}
