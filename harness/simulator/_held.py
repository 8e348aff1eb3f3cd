"""Conversations the server holds between requests, as the real APIs do.

Two wires let a client send only the new turn and name an earlier answer the
server kept: the Responses API (``store``, true by default, and
``previous_response_id``) and Anthropic's message threads (``thread``, which
the SDK's tool runner sends by default: ``{"type": "create"}``, then
``{"type": "continue", "previous_message_id": ...}``). A request naming a kept
answer is expanded to the whole conversation before it is validated and
scripted, so rules that read history or tool results see all of it; an id
nothing kept gets the real API's error.

The store is per server (or per mutant run) and bounded: the oldest answers
go first, as a real server's retention would drop them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Protocol

from harness.simulator._conversation import Conversation
from harness.simulator._script import Reply

__all__ = ["HeldConversations", "Holder"]

_LIMIT = 1024


class Holder(Protocol):
    """What a wire with server-held state provides (the Responses and Messages renderers)."""

    def resume(self, body: Any, held: HeldConversations) -> Any: ...

    def hold(
        self, body: Any, reply: Reply, conversation: Conversation, seed: str
    ) -> tuple[str, Any] | None: ...


class HeldConversations:
    """Kept answers by id: what a later request naming the id continues (thread-safe)."""

    def __init__(self, limit: int = _LIMIT) -> None:
        self._limit = limit
        self._kept: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> Any | None:
        """The conversation kept under ``key`` (its input and its answer), or None."""
        with self._lock:
            return self._kept.get(key)

    def put(self, key: str, value: Any) -> None:
        """Keep ``value`` under ``key``, dropping the oldest beyond the limit."""
        with self._lock:
            self._kept[key] = value
            self._kept.move_to_end(key)
            while len(self._kept) > self._limit:
                self._kept.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._kept)

    def resume(self, api: object, body: Any) -> Any:
        """``body`` with the conversation it continues put before its own input.

        Raises:
            ApiError: the body names an id nothing kept (the real API's error).
        """
        holder = _holder(api)
        return body if holder is None else holder.resume(body, self)

    def keep(
        self, api: object, body: Any, reply: Reply, conversation: Conversation, seed: str
    ) -> None:
        """Remember the answer ``reply`` to the (resumed) ``body``, if the request asks so."""
        holder = _holder(api)
        kept = None if holder is None else holder.hold(body, reply, conversation, seed)
        if kept is not None:
            self.put(*kept)


def _holder(api: object) -> Holder | None:
    resume, hold = getattr(api, "resume", None), getattr(api, "hold", None)
    return api if callable(resume) and callable(hold) else None  # type: ignore[return-value]
