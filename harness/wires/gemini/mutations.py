"""Mutation operators on a recorded Gemini answer body, JSON or ``alt=sse`` stream.

The Gemini mutation codec for ``harness.evals.wire_mutations``:
each operator turns one recorded ``GenerateContentResponse`` into bodies the
google-genai SDK parses, so an agent on any framework can be served a mutant
at the HTTP layer. Over the first candidate's parts:

- ``drop_call``: a ``functionCall`` part removed;
- ``swap_calls``: the first two ``functionCall`` parts trade places;
- ``corrupt_arg``: a call's primary argument (a path, a command) altered;
- ``drop_marker`` / ``alter_marker``: sentinels (or digits) in the answer text
  removed or changed (thought summaries left alone);
- ``refuse``: a final answer blocked as Gemini blocks one (``finishReason:
  SAFETY``, ``content: {}``);
- ``stop_early``: cut off at ``MAX_TOKENS``: the text halved, the calls gone;
- ``repeat_call``: a ``functionCall`` part issued twice (the copy unsigned,
  its id, if any, suffixed).

A stream is folded into one response, mutated, and streamed again as one chunk
per part, the finish reason and usage on the last, framed ``data: ...\\r\\n\\r\\n``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

from harness.evals.mutations import altered_markers, corrupt_value, primary_key, without_markers
from harness.evals.wire_mutations import BodyMutant
from harness.wires.gemini.parts import field, fold_chunks
from harness.wires.gemini.provider import recorded_decoder

__all__ = ["body_mutants", "gemini_body_mutants", "recorded_decoder"]

Body = dict[str, Any]


def _parts(response: Body) -> list[Any]:
    candidates = response.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        return []
    content = candidates[0].get("content")
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def _calls(response: Body) -> list[int]:
    return [
        i
        for i, part in enumerate(_parts(response))
        if isinstance(part, dict) and isinstance(field(part, "functionCall"), dict)
    ]


def _texts(response: Body) -> Iterator[dict[str, Any]]:
    for part in _parts(response):
        if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            yield part


def _call_of(part: dict[str, Any]) -> dict[str, Any]:
    found = field(part, "functionCall")
    return found if isinstance(found, dict) else {}


def _drop_call(response: Body) -> Iterator[tuple[str, Body]]:
    for index in _calls(response):
        mutated = copy.deepcopy(response)
        part = _parts(mutated).pop(index)
        yield f"drop call {_call_of(part).get('name')}", mutated


def _swap_calls(response: Body) -> Iterator[tuple[str, Body]]:
    calls = _calls(response)
    if len(calls) >= 2:
        first, second = calls[:2]
        mutated = copy.deepcopy(response)
        parts = _parts(mutated)
        parts[first], parts[second] = parts[second], parts[first]
        names = [_call_of(parts[i]).get("name") for i in (second, first)]
        yield f"swap calls {names[0]} and {names[1]}", mutated


def _corrupt_arg(response: Body) -> Iterator[tuple[str, Body]]:
    for index in _calls(response):
        arguments = _call_of(_parts(response)[index]).get("args")
        key = primary_key(arguments) if isinstance(arguments, dict) else None
        if key is None or not isinstance(arguments, dict):
            continue
        mutated = copy.deepcopy(response)
        call = _call_of(_parts(mutated)[index])
        new = corrupt_value(arguments[key])
        call["args"] = {**arguments, key: new}
        yield f"corrupt {call.get('name')} argument {key}: -> {new!r:.40}", mutated


def _text_operator(
    label: str, change: Callable[[str], str | None]
) -> Callable[[Body], Iterator[tuple[str, Body]]]:
    def operator(response: Body) -> Iterator[tuple[str, Body]]:
        parts = list(_texts(response))
        changed = [change(str(part["text"])) for part in parts]
        if any(
            new is not None and new != part["text"]
            for new, part in zip(changed, parts, strict=True)
        ):
            mutated = copy.deepcopy(response)
            for part, new in zip(_texts(mutated), changed, strict=True):
                if new is not None:
                    part["text"] = new
            yield f"{label} in the answer text", mutated

    return operator


def _refuse(response: Body) -> Iterator[tuple[str, Body]]:
    if _calls(response) or not any(part["text"] for part in _texts(response)):
        return  # as the sequence operator: only a final answer is refused
    mutated = copy.deepcopy(response)
    candidate = mutated["candidates"][0]
    candidate["content"] = {}
    candidate["finishReason"] = "SAFETY"
    candidate.pop("finishMessage", None)
    yield "answer blocked (finishReason SAFETY, no content)", mutated


def _stop_early(response: Body) -> Iterator[tuple[str, Body]]:
    if not _parts(response):
        return
    mutated = copy.deepcopy(response)
    candidate = mutated["candidates"][0]
    kept = []
    for part in _parts(mutated):
        if isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            part["text"] = part["text"][: len(part["text"]) // 2]
            kept.append(part)
            break
        if isinstance(part, dict) and part.get("thought"):
            kept.append(part)
    candidate["content"] = {"role": "model", "parts": kept} if kept else {"role": "model"}
    candidate["finishReason"] = "MAX_TOKENS"
    candidate.pop("finishMessage", None)
    yield "cut off at MAX_TOKENS: the text halved, no calls", mutated


def _repeat_call(response: Body) -> Iterator[tuple[str, Body]]:
    for index in _calls(response):
        mutated = copy.deepcopy(response)
        parts = _parts(mutated)
        again = copy.deepcopy(parts[index])
        for key in ("thoughtSignature", "thought_signature"):
            again.pop(key, None)
        call = _call_of(again)
        if call.get("id"):
            call["id"] = f"{call['id']}_again"
        parts.insert(index + 1, again)
        yield f"repeat call {call.get('name')}", mutated


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


def _chunks_of(text: str) -> list[Body]:
    chunks = []
    for line in text.splitlines():
        if line.startswith("data:"):
            data = json.loads(line[len("data:") :])
            if isinstance(data, dict):
                chunks.append(data)
    return chunks


def _restream(response: Body) -> bytes:
    """``response`` as a stream: one chunk per part, then the finish reason and usage."""
    top = {k: v for k, v in response.items() if k not in ("candidates", "usageMetadata")}
    candidates = response.get("candidates") or [{}]
    candidate = {k: v for k, v in candidates[0].items() if k != "content"}
    content = candidates[0].get("content")
    events = [
        {"candidates": [{"content": {"role": "model", "parts": [part]}}], **top}
        for part in _parts(response)
    ]
    last: Body = {**top, "candidates": [candidate]}
    if isinstance(content, dict) and not content.get("parts"):
        last["candidates"][0]["content"] = content  # {} (blocked) or {role} (no parts)
    if "usageMetadata" in response:
        last["usageMetadata"] = response["usageMetadata"]
    events.append(last)
    return "".join(f"data: {json.dumps(e, separators=(',', ':'))}\r\n\r\n" for e in events).encode()


def gemini_body_mutants(body: bytes | str) -> list[BodyMutant]:
    """Every mutant of a Gemini answer body (JSON or an ``alt=sse`` stream).

    A body that is neither, or that holds no candidate (an error, a blocked
    prompt), has no mutants.
    """
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    streamed = not text.lstrip().startswith("{")
    try:
        response = fold_chunks(_chunks_of(text)) if streamed else json.loads(text)
    except ValueError:
        return []
    if not isinstance(response, dict) or not _parts(response):
        return []
    mutants = []
    for operator, derive in _OPERATORS:
        for site, (description, mutated) in enumerate(derive(response), start=1):
            encoded = (
                _restream(mutated) if streamed else json.dumps(mutated, ensure_ascii=False).encode()
            )
            mutants.append(BodyMutant(f"{operator}.{site}", operator, description, encoded))
    return mutants


def body_mutants(body: bytes | str) -> list[BodyMutant]:
    """The mutants of a Gemini answer body (the wire's mutation codec)."""
    return gemini_body_mutants(body)
