"""Folding a Responses API event stream into one ``LLMResponse``.

The stream announces each output item (``response.output_item.added``), sends
its text, refusal and argument deltas keyed by ``output_index``, closes it
(``response.output_item.done``) and ends with one terminal event carrying the
whole ``Response``: ``response.completed``, ``response.incomplete`` (a cap was
hit) or ``response.failed``. The terminal object is authoritative for status
and usage; the output comes from it too when it has one, else from what the
deltas built (the two agree on every recorded stream in the corpus, which
tests/providers/test_corpus_responses.py checks).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.core.errors import ProviderError
from harness.core.messages import LLMResponse
from harness.wires.openai_responses.items import from_response

__all__ = ["TERMINAL_EVENTS", "EventAssembler", "stream_events"]

TERMINAL_EVENTS = frozenset({"response.completed", "response.incomplete", "response.failed"})
_PROVIDER = "openai-responses"


@dataclass
class _Item:
    item: dict[str, Any]
    text: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)
    done: bool = False

    def built(self) -> dict[str, Any]:
        if self.done:
            return self.item
        item = dict(self.item)
        if item.get("type") == "function_call" and self.arguments:
            item["arguments"] = "".join(self.arguments)
        elif item.get("type") == "message":
            parts: list[dict[str, Any]] = []
            if self.text:
                parts.append({"type": "output_text", "text": "".join(self.text)})
            if self.refusal:
                parts.append({"type": "refusal", "refusal": "".join(self.refusal)})
            item["content"] = parts
        return item


class EventAssembler:
    """Assembles plain-JSON Responses stream events (``event.to_dict()``)."""

    def __init__(self) -> None:
        self._items: dict[int, _Item] = {}
        self._started: Mapping[str, Any] | None = None
        self._terminal: Mapping[str, Any] | None = None

    def add(self, event: Mapping[str, Any]) -> None:
        """Fold one event in; an ``error`` event raises ``ProviderError``."""
        kind = event.get("type")
        if kind == "error":
            raise ProviderError(
                f"OpenAI Responses stream error: {event.get('message') or event}; retry, or "
                "set stream=False",
                provider=_PROVIDER,
            )
        if kind in TERMINAL_EVENTS:
            self._terminal = _mapping(event.get("response"))
        elif kind in ("response.created", "response.in_progress"):
            self._started = _mapping(event.get("response"))
        elif kind == "response.output_item.added":
            self._items[_index(event)] = _Item(dict(_mapping(event.get("item"))))
        elif kind == "response.output_item.done":
            self._items[_index(event)] = _Item(dict(_mapping(event.get("item"))), done=True)
        elif kind == "response.output_text.delta":
            self._item(event).text.append(str(event.get("delta") or ""))
        elif kind == "response.refusal.delta":
            self._item(event).refusal.append(str(event.get("delta") or ""))
        elif kind == "response.function_call_arguments.delta":
            self._item(event).arguments.append(str(event.get("delta") or ""))

    def _item(self, event: Mapping[str, Any]) -> _Item:
        return self._items.setdefault(_index(event), _Item({}))

    def folded_output(self) -> list[dict[str, Any]]:
        """The output items as the item and delta events built them."""
        return [self._items[i].built() for i in sorted(self._items)]

    def response(self) -> LLMResponse:
        """The assembled response; a stream cut before its terminal event is an error."""
        if self._terminal is None:
            where = "before any event" if self._started is None else "before it finished"
            raise ProviderError(
                f"OpenAI Responses stream ended {where} (no response.completed); retry, or "
                "set stream=False",
                provider=_PROVIDER,
            )
        data = dict(self._terminal)
        if not data.get("output"):
            data["output"] = self.folded_output()
        return from_response(data)


def _whole(text: str) -> list[str]:
    return [text] if text else []


def stream_events(
    final: Mapping[str, Any],
    start: Mapping[str, Any] | None = None,
    split: Callable[[str], list[str]] = _whole,
) -> list[dict[str, Any]]:
    """The events a server streams for ``final`` (a whole Response), in order.

    The inverse of :class:`EventAssembler`: created and in-progress (with
    ``start``, the response before any output), then each output item opened,
    its text or argument deltas, and closed, then the terminal event that
    ``final["status"]`` calls for. ``split`` cuts a text into its deltas (the
    simulator's word-sized pieces; one delta by default). The simulator streams
    with it, and a mutated response body is streamed again with it, so both stay
    parseable by the SDK.
    """
    opening = dict(start) if start is not None else {**final, "output": [], "usage": None}
    events: list[dict[str, Any]] = []

    def emit(kind: str, **fields: Any) -> None:
        events.append({"type": kind, "sequence_number": len(events), **fields})

    emit("response.created", response=opening)
    emit("response.in_progress", response=opening)
    for index, item in enumerate(final.get("output") or ()):
        where = {"item_id": item.get("id"), "output_index": index}
        if item.get("type") == "message":
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "content": []},
            )
            for position, part in enumerate(item.get("content") or ()):
                at = {**where, "content_index": position}
                kind = "refusal" if part.get("type") == "refusal" else "output_text"
                text = str(part.get("refusal" if kind == "refusal" else "text") or "")
                emit("response.content_part.added", **at, part={**part, _text_key(kind): ""})
                for piece in split(text):
                    extra: dict[str, Any] = {} if kind == "refusal" else {"logprobs": []}
                    emit(f"response.{kind}.delta", **at, delta=piece, **extra)
                done: dict[str, Any] = {_text_key(kind): text}
                if kind != "refusal":
                    done["logprobs"] = []
                emit(f"response.{kind}.done", **at, **done)
                emit("response.content_part.done", **at, part=part)
        elif item.get("type") == "function_call":
            arguments = str(item.get("arguments") or "")
            emit(
                "response.output_item.added",
                output_index=index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            for piece in split(arguments):
                emit("response.function_call_arguments.delta", **where, delta=piece)
            emit("response.function_call_arguments.done", **where, arguments=arguments)
        else:
            emit("response.output_item.added", output_index=index, item=item)
        emit("response.output_item.done", output_index=index, item=item)
    status = final.get("status")
    terminal = {"incomplete": "response.incomplete", "failed": "response.failed"}
    emit(terminal.get(str(status), "response.completed"), response=dict(final))
    return events


def _text_key(kind: str) -> str:
    """The field holding a content part's text: ``refusal`` or ``text``."""
    return "refusal" if kind == "refusal" else "text"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _index(event: Mapping[str, Any]) -> int:
    index = event.get("output_index")
    return index if isinstance(index, int) else 0
