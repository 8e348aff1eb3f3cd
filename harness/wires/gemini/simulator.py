"""Gemini's ``generateContent`` and ``streamGenerateContent?alt=sse`` as the simulator speaks them.

The model is named by the path (``/v1beta/models/{model}:generateContent``, or
Vertex's ``/v1beta1/projects/{p}/locations/{l}/publishers/google/models/...``),
so :func:`route` gives the server an API bound to one path. Requests are
validated as the real API does: ``contents`` present, roles ``user`` and
``model``, every ``functionResponse`` turn right after the call turn it answers
with one response per call, and, for gemini-3 models, the first call of each
model turn since the last user message signed (``thoughtSignature``) with a
signature this server issued or google-genai's skip sentinel: the check that a
client carries signatures across turns statelessly. Answers sign their first
part, carry ids on calls (as gemini-3 does), end in ``STOP`` whether or not
they call tools, and stream as whole ``GenerateContentResponse`` chunks framed
``data: ...\\r\\n\\r\\n``, usage on every chunk, the finish reason on the last.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from harness.simulator import ErrorReply, Reply
from harness.simulator.wire_api import (
    Answer,
    ApiError,
    Conversation,
    Ids,
    chunks,
    estimate_tokens,
    json_answer,
    text_of,
)
from harness.wires.gemini.parts import CALL_MESSAGE, field, function_calls, model_of_path

__all__ = ["REQUEST_ID_HEADER", "GeminiApi", "error_answer", "route", "signature_for"]

# google-genai reads no request id; the simulator sends one where OpenAI's API does.
REQUEST_ID_HEADER: Final = "x-request-id"

_SIGNATURE_PREFIX: Final = b"harness-sim-signature:"
_SKIP: Final = b"skip_thought_signature_validator"
_STATUS_NAMES: Final = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def route(path: str) -> GeminiApi | None:
    """The API answering ``path``, or None when it is not a Gemini generate path."""
    model = model_of_path(path)
    if model is None:
        return None
    return GeminiApi(model, stream=":streamGenerateContent" in path)


def signature_for(seed: str) -> str:
    """The opaque signature the simulator puts on an answer to the request ``seed``."""
    return base64.b64encode(_SIGNATURE_PREFIX + seed.encode()).decode()


def _invalid(message: str, status: int = 400) -> ApiError:
    name = _STATUS_NAMES.get(status, "INVALID_ARGUMENT")
    return ApiError(status, {"error": {"code": status, "message": message, "status": name}})


def _signed_by_us(signature: Any) -> bool:
    if not isinstance(signature, str):
        return False
    try:
        raw = base64.b64decode(
            signature + "==", altchars=b"-_" if "-" in signature or "_" in signature else None
        )
    except ValueError:
        return False
    return raw == _SKIP or raw.startswith(_SIGNATURE_PREFIX)


def _contents(body: Any) -> list[dict[str, Any]]:
    if not isinstance(body, Mapping):
        raise _invalid("Invalid JSON payload received. Expected a JSON object.")
    contents = body.get("contents")
    if not isinstance(contents, list) or not contents:
        raise _invalid("* GenerateContentRequest.contents: contents is not specified")
    for index, content in enumerate(contents):
        if not isinstance(content, Mapping) or not isinstance(content.get("parts"), list):
            raise _invalid(f"* GenerateContentRequest.contents[{index}].parts: must be a list")
        if content.get("role", "user") not in ("user", "model"):
            raise _invalid(
                f"Please use a valid role: user, model. (contents[{index}].role "
                f"{content.get('role')!r})"
            )
    return [dict(c) for c in contents]


def _responses(content: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = []
    for part in content.get("parts") or ():
        response = field(part, "functionResponse") if isinstance(part, Mapping) else None
        if isinstance(response, Mapping):
            found.append(dict(response))
    return found


def _current_turn(contents: list[dict[str, Any]]) -> int:
    """Where the current turn starts: the last user content that is not only results."""
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        if content.get("role", "user") == "user" and not _responses(content):
            return index
    return 0


def _check_turns(contents: list[dict[str, Any]], model: str) -> None:
    current = _current_turn(contents)
    for index, content in enumerate(contents):
        answered = _responses(content)
        if answered:
            before = contents[index - 1] if index else None
            calls = (
                function_calls(before["parts"]) if before and before.get("role") == "model" else []
            )
            if not calls:
                raise _invalid(
                    "Please ensure that function response turn comes immediately after a "
                    "function call turn."
                )
            if len(answered) != len(calls):
                raise _invalid(
                    "Please ensure that the number of function response parts is equal to the "
                    "number of function call parts of the function call turn."
                )
        # As the real API: signatures are checked in the current turn only.
        if index > current and content.get("role") == "model" and model.startswith("gemini-3"):
            parts = [p for p in content["parts"] if isinstance(p, Mapping)]
            signed = [p for p in parts if field(p, "functionCall") is not None]
            if signed and not _signed_by_us(field(signed[0], "thoughtSignature")):
                raise _invalid(
                    f"Function call is missing a thought_signature in functionCall parts. "
                    f"This is required for tools to work correctly (contents[{index}]), "
                    "and it must be the signature the model returned, unchanged."
                )


def _output_of(response: Mapping[str, Any]) -> str:
    value = response.get("response")
    if isinstance(value, Mapping) and len(value) == 1:
        (only,) = value.values()
        return only if isinstance(only, str) else json.dumps(only, ensure_ascii=False)
    return json.dumps(value, ensure_ascii=False)


def _user_text(content: Mapping[str, Any]) -> str:
    return text_of([p for p in content.get("parts") or () if isinstance(p, Mapping)])


@dataclass(frozen=True)
class GeminiApi:
    """The simulator's Gemini API for one path (its model and whether it streams)."""

    model: str
    stream: bool

    def parse(self, body: Any) -> Conversation:
        """Validate a request body as the real API does and describe it.

        Raises:
            ApiError: the body is not a request the real API would accept.
        """
        contents = _contents(body)
        _check_turns(contents, self.model)
        results = [_output_of(r) for c in contents for r in _responses(c)]
        last = contents[-1]
        trailing = [_output_of(r) for r in _responses(last)] if last.get("role") != "model" else []
        users = [
            _user_text(c) for c in contents if c.get("role", "user") == "user" and not _responses(c)
        ]
        tools = [t for t in body.get("tools") or () if isinstance(t, Mapping)]
        names = [
            str(d.get("name") or "")
            for t in tools
            for d in field(t, "functionDeclarations") or ()
            if isinstance(d, Mapping)
        ]
        system = field(body, "systemInstruction")
        return Conversation(
            model=self.model,
            stream=self.stream,
            assistant_turns=sum(1 for c in contents if c.get("role") == "model"),
            last_user_text=users[-1] if users else None,
            tool_results=tuple(results),
            trailing_tool_results=tuple(trailing),
            input_tokens=estimate_tokens(contents, system or "", tools, messages=len(contents)),
            options={},
            tool_names=tuple(names),
            system=text_of(system.get("parts")) if isinstance(system, Mapping) else "",
        )

    def answer(self, reply: Reply, conversation: Conversation, ids: Ids, model: str) -> Answer:
        """The response (JSON or SSE) for ``reply``."""
        signature = signature_for(ids.seed)
        calls: list[dict[str, Any]] = [
            {
                "functionCall": {
                    "id": call.id or ids.tool_call(""),
                    "name": call.name,
                    "args": dict(call.arguments),
                }
            }
            for call in reply.tool_calls
        ]
        texts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text or not calls else []
        parts: list[dict[str, Any]] = [*texts, *calls]
        parts[0]["thoughtSignature"] = signature
        candidates = estimate_tokens([p for p in parts if "text" in p or "functionCall" in p])
        usage = _usage(conversation.input_tokens, candidates)
        base = {"modelVersion": model, "responseId": ids.message("")}
        candidate: dict[str, Any] = {"finishReason": "STOP", "index": 0}
        if calls:
            candidate["finishMessage"] = CALL_MESSAGE
        if not conversation.stream:
            content = {"role": "model", "parts": parts}
            return json_answer(
                {"candidates": [{"content": content, **candidate}], "usageMetadata": usage, **base}
            )
        partial = {k: v for k, v in usage.items() if k != "candidatesTokenCount"}
        partial["totalTokenCount"] = conversation.input_tokens
        events: list[dict[str, Any]] = []
        pieces = chunks(reply.text) if texts else []
        for position, piece in enumerate(pieces):
            part: dict[str, Any] = {"text": piece}
            if position == 0:
                part["thoughtSignature"] = signature
            events.append(_chunk([part], {}, partial, base))
        if calls:
            if not pieces:
                calls[0]["thoughtSignature"] = signature
            events.append(_chunk(calls, {}, partial, base))
        events.append(_chunk([{"text": ""}], candidate, usage, base))
        return _sse(events)

    def error_answer(self, error: ErrorReply | ApiError | str, status: int = 400) -> Answer:
        """An error in Google's shape (``{"error": {"code", "message", "status"}}``)."""
        return error_answer(error, status)


def _usage(prompt: int, candidates: int) -> dict[str, Any]:
    return {
        "promptTokenCount": prompt,
        "candidatesTokenCount": candidates,
        "totalTokenCount": prompt + candidates,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": prompt}],
    }


def _chunk(
    parts: list[dict[str, Any]],
    candidate: dict[str, Any],
    usage: dict[str, Any],
    base: dict[str, Any],
) -> dict[str, Any]:
    content = {"role": "model", "parts": parts}
    return {"candidates": [{"content": content, **candidate}], "usageMetadata": usage, **base}


def _sse(events: list[dict[str, Any]]) -> Answer:
    """``data: <json>`` events framed ``\\r\\n\\r\\n``, no names, no ``[DONE]``, as Google's."""
    text = "".join(
        f"data: {json.dumps(e, separators=(',', ':'), ensure_ascii=False)}\r\n\r\n" for e in events
    )
    return Answer(200, "text/event-stream", text.encode())


def error_answer(error: ErrorReply | ApiError | str, status: int = 400) -> Answer:
    """An error in Google's shape, from a script reply, a validation error or text."""
    if isinstance(error, ApiError):
        return json_answer(error.payload, error.status)
    if isinstance(error, str):
        return json_answer(_invalid(error, status).payload, status)
    name = error.type or _STATUS_NAMES.get(
        error.status, "INTERNAL" if error.status >= 500 else "INVALID_ARGUMENT"
    )
    body = {"error": {"code": error.status, "message": error.message, "status": name}}
    return json_answer(body, error.status)
