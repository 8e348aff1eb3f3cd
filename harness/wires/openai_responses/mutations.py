"""Mutation operators on a recorded Responses API answer body, JSON or an event stream.

The wire-level mutants (``harness.evals.wire_mutations``) of ``POST /v1/responses``,
over the output items:

- ``drop_call``: a ``function_call`` item removed;
- ``swap_calls``: the first two ``function_call`` items trade places;
- ``corrupt_arg``: a call's primary argument (a path, a command) altered;
- ``drop_marker`` / ``alter_marker``: sentinels (or digits) in ``output_text``
  removed or changed;
- ``refuse``: the answer replaced by a ``refusal`` content part;
- ``stop_early``: the response cut off (``status: incomplete``,
  ``max_output_tokens``), its last item truncated;
- ``repeat_call``: a ``function_call`` item issued twice.

A JSON body gives JSON bodies; an event stream (``text/event-stream``) is
folded into its terminal ``Response``, mutated, and streamed again with
``stream_events``, so the SDK's stream parser accepts it. Recorded answers are
decoded by the Responses adapter (:func:`recorded_decoder`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

from harness.evals.mutations import (
    REFUSAL,
    altered_markers,
    corrupt_value,
    primary_key,
    without_markers,
)
from harness.evals.wire_mutations import BodyMutant
from harness.wires.openai_responses.events import TERMINAL_EVENTS, stream_events
from harness.wires.openai_responses.provider import recorded_decoder

__all__ = ["body_mutants", "recorded_decoder", "responses_body_mutants"]

Body = dict[str, Any]


def _calls(response: Body) -> list[int]:
    return [
        i for i, item in enumerate(response.get("output") or ()) if _kind(item) == "function_call"
    ]


def _kind(item: Any) -> str | None:
    return item.get("type") if isinstance(item, dict) else None


def _texts(response: Body) -> Iterator[dict[str, Any]]:
    for item in response.get("output") or ():
        if _kind(item) == "message":
            for part in item.get("content") or ():
                if isinstance(part, dict) and part.get("type") == "output_text":
                    yield part


def _drop_call(response: Body) -> Iterator[tuple[str, Body]]:
    for index in _calls(response):
        mutated = copy.deepcopy(response)
        item = mutated["output"].pop(index)
        yield f"drop call {item.get('name')}", mutated


def _swap_calls(response: Body) -> Iterator[tuple[str, Body]]:
    calls = _calls(response)
    if len(calls) >= 2:
        first, second = calls[:2]
        mutated = copy.deepcopy(response)
        output = mutated["output"]
        output[first], output[second] = output[second], output[first]
        yield f"swap calls {output[second].get('name')} and {output[first].get('name')}", mutated


def _corrupt_arg(response: Body) -> Iterator[tuple[str, Body]]:
    for index in _calls(response):
        try:
            arguments = json.loads(response["output"][index].get("arguments") or "{}")
        except ValueError:
            continue
        key = primary_key(arguments) if isinstance(arguments, dict) else None
        if key is None:
            continue
        mutated = copy.deepcopy(response)
        item = mutated["output"][index]
        new = corrupt_value(arguments[key])
        item["arguments"] = json.dumps({**arguments, key: new})
        yield f"corrupt {item.get('name')} argument {key}: -> {new!r:.40}", mutated


def _text_operator(
    label: str, change: Callable[[str], str | None]
) -> Callable[[Body], Iterator[tuple[str, Body]]]:
    def operator(response: Body) -> Iterator[tuple[str, Body]]:
        parts = list(_texts(response))
        changed = [change(str(part.get("text") or "")) for part in parts]
        if any(
            new is not None and new != part.get("text")
            for new, part in zip(changed, parts, strict=True)
        ):
            mutated = copy.deepcopy(response)
            for part, new in zip(_texts(mutated), changed, strict=True):
                if new is not None:
                    part["text"] = new
            yield f"{label} in output_text", mutated

    return operator


def _refuse(response: Body) -> Iterator[tuple[str, Body]]:
    if _calls(response) or not list(_texts(response)):
        return  # as the sequence operator: only a final answer is refused
    mutated = copy.deepcopy(response)
    for item in mutated["output"]:
        if _kind(item) == "message":
            item["content"] = [{"type": "refusal", "refusal": REFUSAL}]
    yield "refusal instead of the answer", mutated


def _stop_early(response: Body) -> Iterator[tuple[str, Body]]:
    output = [item for item in response.get("output") or () if _kind(item) != "reasoning"]
    if not output:
        return
    mutated = copy.deepcopy(response)
    mutated["status"] = "incomplete"
    mutated["incomplete_details"] = {"reason": "max_output_tokens"}
    last = mutated["output"][-1]
    if _kind(last) == "function_call":
        text = str(last.get("arguments") or "")
        last["arguments"] = text[: len(text) // 2]
    for part in list(_texts(mutated))[-1:]:
        text = str(part.get("text") or "")
        part["text"] = text[: len(text) // 2]
    last["status"] = "incomplete"
    yield "cut off at max_output_tokens, the last item truncated", mutated


def _repeat_call(response: Body) -> Iterator[tuple[str, Body]]:
    for index in _calls(response):
        mutated = copy.deepcopy(response)
        again = dict(mutated["output"][index])
        for key in ("id", "call_id"):
            if again.get(key):
                again[key] = f"{again[key]}_again"
        mutated["output"].insert(index + 1, again)
        yield f"repeat call {again.get('name')}", mutated


_OPERATORS: tuple[tuple[str, Callable[[Body], Iterator[tuple[str, Body]]]], ...] = (
    ("drop_call", _drop_call),
    ("swap_calls", _swap_calls),
    ("corrupt_arg", _corrupt_arg),
    ("drop_marker", _text_operator("remove markers/digits", without_markers)),
    ("alter_marker", _text_operator("alter markers/digits", altered_markers)),
    ("refuse", _refuse),
    ("stop_early", _stop_early),
    ("repeat_call", _repeat_call),
)


def _events(text: str) -> list[dict[str, Any]]:
    events = []
    for line in text.splitlines():
        if line.startswith("data:"):
            data = line[len("data:") :].strip()
            if data and data != "[DONE]":
                events.append(json.loads(data))
    return events


def _sse(events: list[dict[str, Any]]) -> bytes:
    lines = [f"event: {e['type']}\ndata: {json.dumps(e, separators=(',', ':'))}\n" for e in events]
    return "\n".join(lines).encode() + b"\n"


def responses_body_mutants(body: bytes | str) -> list[BodyMutant]:
    """Every mutant of a Responses API answer body (JSON or an event stream).

    A body that is neither (an error page, a cut stream) has no mutants.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    streamed = not text.lstrip().startswith("{")
    try:
        if streamed:
            events = _events(text)
            finals = [e.get("response") for e in events if e.get("type") in TERMINAL_EVENTS]
            response = finals[-1] if finals and isinstance(finals[-1], dict) else None
            start = next(
                (e.get("response") for e in events if e.get("type") == "response.created"), None
            )
        else:
            response, start = json.loads(text), None
    except ValueError:
        return []
    if not isinstance(response, dict) or not isinstance(response.get("output"), list):
        return []
    mutants = []
    for operator, derive in _OPERATORS:
        for site, (description, mutated) in enumerate(derive(response), start=1):
            if streamed:
                encoded = _sse(stream_events(mutated, start if isinstance(start, dict) else None))
            else:
                encoded = json.dumps(mutated, ensure_ascii=False).encode()
            mutants.append(BodyMutant(f"{operator}.{site}", operator, description, encoded))
    return mutants


def body_mutants(body: bytes | str) -> list[BodyMutant]:
    """The mutants of a Responses API answer body (the wire's mutation codec)."""
    return responses_body_mutants(body)
