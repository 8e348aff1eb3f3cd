"""Gemini's JSON, read and folded: the facts every Gemini part shares.

Requests reach the API in either key spelling (proto-JSON accepts
``functionCall`` and ``function_call``), so :func:`field` reads both; responses
are always lowerCamelCase. A response has at most one candidate here, its
``content`` may be missing (``SAFETY``, ``MODEL_ARMOR``) or hold no ``parts``
(``MAX_TOKENS`` after thinking), and a prompt blocked before generation has no
candidate at all, only ``promptFeedback.blockReason``.

A stream (``streamGenerateContent?alt=sse``) is a series of whole
``GenerateContentResponse`` objects, each holding only the *new* parts, with
usage on every chunk and the finish reason on the last: :func:`fold_chunks`
folds them into the one response a non-streamed call would have returned.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "CALL_MESSAGE",
    "GeminiUsage",
    "answer_content",
    "answer_parts",
    "answer_text",
    "field",
    "finish_reason",
    "fold_chunks",
    "function_calls",
    "model_of_path",
    "read_usage",
]

# What gemini-2.5 and later put in ``finishMessage`` beside a call (``STOP``).
CALL_MESSAGE: Final = "Model generated function call(s)."
_MODEL_IN_PATH: Final = re.compile(r"/models/([^/:]+):(?:stream)?[gG]enerate[cC]ontent$")
_SNAKE: Final = re.compile(r"(?<!^)(?=[A-Z])")


def field(data: Mapping[str, Any], camel: str) -> Any:
    """``data[camel]``, or its snake_case spelling (``functionCall``/``function_call``)."""
    if camel in data:
        return data[camel]
    return data.get(_SNAKE.sub("_", camel).lower())


def model_of_path(path: str) -> str | None:
    """The model a ``.../models/{model}:generateContent`` path names, or None."""
    found = _MODEL_IN_PATH.search(path.split("?", 1)[0])
    return found.group(1) if found else None


def _candidate(response: Mapping[str, Any]) -> Mapping[str, Any]:
    candidates = response.get("candidates")
    if isinstance(candidates, list) and candidates and isinstance(candidates[0], Mapping):
        return candidates[0]
    return {}


def answer_content(response: Mapping[str, Any]) -> dict[str, Any] | None:
    """The first candidate's ``content`` (role ``model``), or None when it has no parts."""
    content = _candidate(response).get("content")
    if not isinstance(content, Mapping) or not isinstance(content.get("parts"), list):
        return None
    return dict(content)


def answer_parts(response: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The first candidate's parts (objects only); none when it has no content."""
    content = answer_content(response)
    parts = content["parts"] if content is not None else []
    return [part for part in parts if isinstance(part, dict)]


def answer_text(parts: Iterable[Mapping[str, Any]]) -> str:
    """The visible text of ``parts``: thought summaries (``thought: true``) left out."""
    return "".join(
        str(part.get("text") or "")
        for part in parts
        if isinstance(part.get("text"), str) and not part.get("thought")
    )


def function_calls(parts: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The ``functionCall`` objects of ``parts`` (either spelling), in order."""
    calls = []
    for part in parts:
        call = field(part, "functionCall")
        if isinstance(call, Mapping):
            calls.append(dict(call))
    return calls


def finish_reason(response: Mapping[str, Any]) -> str | None:
    """The candidate's ``finishReason``, else the prompt's ``blockReason``, else None."""
    reason = _candidate(response).get("finishReason")
    if isinstance(reason, str):
        return reason
    feedback = response.get("promptFeedback")
    if isinstance(feedback, Mapping) and isinstance(feedback.get("blockReason"), str):
        return str(feedback["blockReason"])
    return None


@dataclass(frozen=True)
class GeminiUsage:
    """``usageMetadata`` normalised as harness's ``Usage``.

    ``input`` is the prompt plus the tool-use prompt (both billed as input);
    ``cached`` (``cachedContentTokenCount``) is a part of the prompt, as harness
    counts cache reads; ``output`` is the visible answer plus the thoughts,
    which Gemini reports apart but bills as output; ``reasoning`` the thoughts.
    """

    input: int = 0
    output: int = 0
    cached: int = 0
    reasoning: int = 0


def _count(usage: Mapping[str, Any], name: str) -> int:
    value = usage.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def read_usage(response: Mapping[str, Any]) -> GeminiUsage:
    """The usage of a response (a folded stream's is its last chunk's)."""
    usage = response.get("usageMetadata")
    if not isinstance(usage, Mapping):
        return GeminiUsage()
    thoughts = _count(usage, "thoughtsTokenCount")
    return GeminiUsage(
        input=_count(usage, "promptTokenCount") + _count(usage, "toolUsePromptTokenCount"),
        output=_count(usage, "candidatesTokenCount") + thoughts,
        cached=_count(usage, "cachedContentTokenCount"),
        reasoning=thoughts,
    )


def _append(parts: list[dict[str, Any]], part: Mapping[str, Any]) -> None:
    """Add a streamed part; text continues the last text part of the same kind.

    A signature stays on the part it came with: a signed piece of text starts
    a part of its own unless the text so far is unsigned (then it signs it).
    """
    last = parts[-1] if parts else None
    text = part.get("text")
    if (
        last is not None
        and isinstance(text, str)
        and isinstance(last.get("text"), str)
        and bool(last.get("thought")) == bool(part.get("thought"))
        and not (part.get("thoughtSignature") and last.get("thoughtSignature"))
    ):
        last["text"] += text
        if part.get("thoughtSignature"):
            last["thoughtSignature"] = part["thoughtSignature"]
        return
    parts.append(copy.deepcopy(dict(part)))


def fold_chunks(chunks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The one response a stream of ``chunks`` adds up to.

    Parts are appended in order (text pieces joined, see ``_append``); the
    finish reason, usage and every other top-level key come from the last chunk
    that carries them (intermediate usage is not monotonic, the last is final).
    """
    folded: dict[str, Any] = {}
    parts: list[dict[str, Any]] = []
    candidate: dict[str, Any] = {}
    seen_content = False
    for chunk in chunks:
        for key, value in chunk.items():
            if key != "candidates":
                folded[key] = value
        first = _candidate(chunk)
        for key, value in first.items():
            if key != "content":
                candidate[key] = value
        content = first.get("content")
        if isinstance(content, Mapping):
            seen_content = True
            for part in content.get("parts") or ():
                if isinstance(part, Mapping):
                    _append(parts, part)
    if seen_content or candidate:
        if seen_content:
            candidate["content"] = {"role": "model", "parts": parts}
        folded["candidates"] = [candidate]
    return folded
