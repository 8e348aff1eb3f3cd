"""GeminiProvider: Gemini's ``generateContent`` through the official google-genai SDK.

Stateless, as harness's other adapters: each request sends the whole
conversation as ``contents``. Gemini's thinking models sign their turns
(``thoughtSignature``, a sibling key on a part) and want each signed part back
unchanged on later turns, so the model's content is kept, as received, in the
assistant ``Message.metadata`` under :data:`CONTENT_KEY` and sent back verbatim;
a message without it (a scripted history, a checkpoint of another provider) is
rebuilt from its text and calls, its first call marked with the validator's
skip sentinel as google-genai does for calls it did not receive.

Function calls of gemini-2.x carry no id; the provider names them
``<responseId>-<n>`` for harness and sends the ids back only where the server
gave one. A tool result goes back as a ``functionResponse`` (``{"output": ...}``,
or ``{"error": ...}`` for a result marked ``is_error``), several in one user
turn for parallel calls.

As the OpenAI adapters send through their SDK client's ``post``, requests go out
through google-genai's request layer with the body as built here (camelCase
JSON): auth (API key or Vertex credentials), base URL, API version, retries,
errors and the SSE reader are the SDK's; its typed models are skipped, which
would cost ten times the rest of a replayed call. google-genai is imported when
a provider is built (``import harness`` stays light).
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from harness._speed.tls import http_client_options
from harness.core.errors import ConfigurationError, ProviderError
from harness.core.messages import (
    LLMRequest,
    LLMResponse,
    Message,
    Role,
    ToolCall,
    ToolChoice,
    ToolDefinition,
    Usage,
)
from harness.providers.credentials import base_url_from_env
from harness.providers.sdk_import import preload_sdk
from harness.providers.skeleton import SdkProvider
from harness.wires.gemini.errors import gemini_provider_error
from harness.wires.gemini.parts import (
    answer_content,
    answer_parts,
    answer_text,
    finish_reason,
    fold_chunks,
    function_calls,
    read_usage,
)

if TYPE_CHECKING:
    from google import genai
    from google.genai import client as genai_client

__all__ = [
    "BASE_URL_ENV",
    "CONTENT_KEY",
    "KEY_ENV",
    "GeminiProvider",
    "from_gemini_response",
    "recorded_decoder",
    "to_gemini_contents",
    "to_gemini_tools",
]

# Where an assistant message keeps the model's content as received (camelCase JSON).
CONTENT_KEY: Final = "gemini_content"
KEY_ENV: Final = "GEMINI_API_KEY"
_OTHER_KEY_ENV: Final = "GOOGLE_API_KEY"
BASE_URL_ENV: Final = "GOOGLE_GEMINI_BASE_URL"
# google-genai's sentinel for a call whose signature the client never had.
_SKIP_SIGNATURE: Final = base64.b64encode(b"skip_thought_signature_validator").decode()
_MODES: Final = {ToolChoice.AUTO: "AUTO", ToolChoice.REQUIRED: "ANY", ToolChoice.NONE: "NONE"}


class GeminiProvider(SdkProvider["genai.Client", "genai_client.AsyncClient"]):
    """``LLMProvider`` over Gemini's ``generateContent`` (Gemini API or Vertex AI).

    A client built here speaks API version ``v1beta`` (where thinking, JSON Schema
    parameters and every Gemini model are served), whatever the SDK's default.

    Args:
        model: model name used when the request names none (e.g. ``"gemini-2.5-flash"``).
        api_key: API key; defaults to ``GEMINI_API_KEY`` (then ``GOOGLE_API_KEY``),
            which a ``base_url`` on this machine does not need. Ignored with ``client``.
        base_url: server URL; defaults to ``GOOGLE_GEMINI_BASE_URL``, then the SDK's.
        max_retries: retries the SDK makes on 408/429/5xx (0: none).
        timeout: seconds to wait for a response.
        stream: call ``streamGenerateContent?alt=sse`` and fold the chunks.
        client: a ready ``genai.Client`` (Gemini API or ``vertexai=True``), or its
            ``client.aio`` for :meth:`acomplete`; the provider then never closes it.
        default_max_tokens: ``maxOutputTokens`` when the request sets none (None: no cap).

    Raises:
        ConfigurationError: no API key was given and none is in the environment.

    Stop reasons are Gemini's ``finishReason`` as sent (``STOP`` also ends a turn
    that calls tools; ``MAX_TOKENS``, ``SAFETY``, ``MALFORMED_FUNCTION_CALL``,
    ...), or the ``blockReason`` of a prompt refused before generation.
    ``await provider.acomplete(request)`` uses the SDK's async client
    (``client.aio``) natively, also for a provider built from a key; ``await
    provider.aclose()`` then closes its pool for the running event loop.
    """

    name = "gemini"
    _async_client_hint = (
        "GeminiProvider was given an async client (client.aio): call `await "
        "provider.acomplete(request)`, or pass the genai.Client itself"
    )

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        max_retries: int = 2,
        timeout: float = 60.0,
        stream: bool = False,
        client: genai.Client | genai_client.AsyncClient | None = None,
        default_max_tokens: int | None = None,
    ) -> None:
        import os

        self.model = model
        self.stream = stream
        self.default_max_tokens = default_max_tokens
        url = base_url_from_env(base_url, BASE_URL_ENV)

        def build(key: str) -> genai.Client:
            try:
                preload_sdk("google.genai")
            except ImportError:
                raise ConfigurationError(
                    "the gemini provider needs the google-genai SDK: "
                    "pip install 'harness-toolkit[gemini]'"
                ) from None
            from google import genai
            from google.genai import types

            # As the other adapters' clients: the process's one TLS context (google-genai
            # would load the CA bundle twice a client, 70 ms, its websocket's included)
            # and, for a replay (tls.offline_clients), no proxy settings, so a proxy
            # variable (a SOCKS one without socksio) cannot fail a replay.
            http = http_client_options()
            options = types.HttpOptions(
                base_url=url,
                api_version="v1beta",
                timeout=int(timeout * 1000),
                retry_options=types.HttpRetryOptions(attempts=max_retries + 1),
                client_args=http,
                async_client_args={**http, "ssl": http["verify"]},  # ssl: the websocket's
            )
            return genai.Client(api_key=key, http_options=options)

        self._connect(
            client,
            api_key=api_key or os.environ.get(KEY_ENV) or os.environ.get(_OTHER_KEY_ENV),
            key_env=KEY_ENV,
            base_url=url,
            build=build,
        )

    def _client_types(self) -> tuple[type[genai.Client], type[genai_client.AsyncClient]]:
        from google import genai
        from google.genai import client as genai_client

        return genai.Client, genai_client.AsyncClient

    def _sdk_errors(
        self,
    ) -> tuple[tuple[type[BaseException], ...], Callable[..., ProviderError]]:
        from google.genai import errors

        return (errors.APIError, errors.UnknownApiResponseError), gemini_provider_error

    async def acomplete(self, request: LLMRequest) -> LLMResponse:
        """``complete`` for async code: the SDK's async client, awaited natively."""
        from google import genai

        client = self._client
        if isinstance(client, genai.Client):
            with self._translated_errors():
                return await self._acall(client.aio, request)
        return await super().acomplete(request)

    async def aclose(self) -> None:
        """Close the async HTTP pool an owned client opened on this event loop.

        google-genai keeps one async pool per event loop; a provider built from a
        key closes it here (a client passed in is the caller's to close).
        """
        from google import genai

        if self._owns_client and isinstance(self._client, genai.Client):
            await self._client.aio.aclose()

    def _call(self, client: genai.Client, request: LLMRequest) -> LLMResponse:
        api = _api_client(client)
        path, body = self._path(api, request), self._body(request)
        if not self.stream:
            answer = api.request("post", f"{path}:generateContent", body)
            return from_gemini_response(_object(answer.body))
        chunks = api.request_streamed("post", f"{path}:streamGenerateContent?alt=sse", body)
        return from_gemini_response(fold_chunks([_object(c.body) for c in chunks]))

    async def _acall(self, client: genai_client.AsyncClient, request: LLMRequest) -> LLMResponse:
        api = _api_client(client)
        path, body = self._path(api, request), self._body(request)
        if not self.stream:
            answer = await api.async_request("post", f"{path}:generateContent", body)
            return from_gemini_response(_object(answer.body))
        stream = await api.async_request_streamed(
            "post", f"{path}:streamGenerateContent?alt=sse", body
        )
        return from_gemini_response(fold_chunks([_object(c.body) async for c in stream]))

    def _path(self, api: Any, request: LLMRequest) -> str:
        """The model's resource path, as google-genai names it for either service."""
        model = request.model or self.model
        if model.startswith(("models/", "publishers/", "projects/", "tunedModels/")):
            return model
        return f"publishers/google/models/{model}" if api.vertexai else f"models/{model}"

    def _body(self, request: LLMRequest) -> dict[str, Any]:
        """The ``generateContent`` body, in the wire's camelCase."""
        system, contents = to_gemini_contents(request.messages)
        body: dict[str, Any] = {"contents": contents}
        if system:
            body["systemInstruction"] = {"role": "user", "parts": [{"text": system}]}
        if request.tools:
            body["tools"] = to_gemini_tools(request.tools)
            body["toolConfig"] = {"functionCallingConfig": {"mode": _MODES[request.tool_choice]}}
        max_tokens = request.max_tokens or self.default_max_tokens
        if max_tokens is not None:
            body["generationConfig"] = {"maxOutputTokens": max_tokens}
        return body


def _api_client(client: Any) -> Any:
    """The SDK client's request layer (auth, base URL, API version, retries, errors).

    The typed ``models.generate_content`` would convert the body built here into
    its pydantic types and back, and the answer too: about 2 ms of CPU per call,
    ten times the rest of a replayed call (bench/replay_bench.py). Every
    google-genai release since 1.0 has this layer as ``_api_client``.
    """
    api = getattr(client, "_api_client", None)
    if api is None or not hasattr(api, "request_streamed"):
        raise ProviderError(
            "this google-genai version has no request layer harness can send through "
            "(client._api_client); install google-genai>=1.0",
            provider="gemini",
        )
    return api


def recorded_decoder(http: Any, *, key: str, stream: bool) -> GeminiProvider:
    """A provider whose SDK client sends through ``http`` (an ``httpx2.Client``).

    Harness's mutants and eval rows decode recorded answers with it: the
    transport answers with the recorded bytes, the SDK and the mapping parse them.
    """
    from google import genai
    from google.genai import types

    options = types.HttpOptions(
        base_url="http://127.0.0.1",
        api_version="v1beta",
        httpx_client=http,
        retry_options=types.HttpRetryOptions(attempts=1),
    )
    client = genai.Client(api_key=key, http_options=options)
    return GeminiProvider("recorded", client=client, stream=stream)


def _object(body: Any) -> dict[str, Any]:
    """An answer body (JSON text) as a JSON object; anything else is a ProviderError."""
    try:
        data = json.loads(body) if body else {}
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ProviderError(
            "Gemini returned something that is not a JSON object; check that the server at "
            "base_url speaks generateContent",
            provider="gemini",
        )
    return data


def to_gemini_tools(tools: tuple[ToolDefinition, ...]) -> list[dict[str, Any]]:
    """Harness tools as one ``functionDeclarations`` tool (JSON Schema parameters)."""
    declarations = [
        {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
        for t in tools
    ]
    return [{"functionDeclarations": declarations}]


def to_gemini_contents(messages: tuple[Message, ...]) -> tuple[str, list[dict[str, Any]]]:
    """Split harness messages into the system instruction and ``contents``.

    Consecutive turns of one role are merged (several tool results form one user
    turn), as the API wants user and model to alternate.
    """
    system: list[str] = []
    turns: list[dict[str, Any]] = []
    asked: dict[str, tuple[str, str | None]] = {}  # harness id -> (name, wire id)
    for index, message in enumerate(messages):
        if message.role is Role.SYSTEM:
            if message.content:
                system.append(message.content)
            continue
        role = "model" if message.role is Role.ASSISTANT else "user"
        parts = list(_parts(index, message, asked))
        if not parts:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["parts"].extend(parts)
        else:
            turns.append({"role": role, "parts": parts})
    return "\n\n".join(system), turns


def _parts(
    index: int, message: Message, asked: dict[str, tuple[str, str | None]]
) -> Iterator[dict[str, Any]]:
    if message.role is Role.TOOL:
        yield _function_response(index, message, asked)
        return
    if message.role is not Role.ASSISTANT:
        if message.content:
            yield {"text": message.content}
        return
    kept: Any = message.metadata.get(CONTENT_KEY)
    kept_parts = (
        [p for p in kept["parts"] if isinstance(p, Mapping)] if _usable(kept, message) else []
    )
    wire_calls = function_calls(kept_parts) if kept_parts else None
    for position, call in enumerate(message.tool_calls):
        wire_id = wire_calls[position].get("id") if wire_calls is not None else None
        asked[call.id] = (call.name, wire_id if isinstance(wire_id, str) else None)
    if wire_calls is not None:
        yield from (dict(part) for part in kept_parts)
        return
    if message.content:
        yield {"text": message.content}
    for position, call in enumerate(message.tool_calls):
        part: dict[str, Any] = {"functionCall": {"name": call.name, "args": call.arguments}}
        if position == 0:
            part["thoughtSignature"] = _SKIP_SIGNATURE
        yield part


def _usable(kept: Any, message: Message) -> bool:
    """Whether the content kept in metadata still says what ``message`` says."""
    if not isinstance(kept, Mapping) or not isinstance(kept.get("parts"), list):
        return False
    calls = function_calls(p for p in kept["parts"] if isinstance(p, Mapping))
    return [c.get("name") for c in calls] == [c.name for c in message.tool_calls] and [
        c.get("args") or {} for c in calls
    ] == [c.arguments for c in message.tool_calls]


def _function_response(
    index: int, message: Message, asked: dict[str, tuple[str, str | None]]
) -> dict[str, Any]:
    if not message.tool_call_id:
        raise ProviderError(
            f"message {index} has role 'tool' but no tool_call_id; build tool results "
            "with Message.tool(tool_call_id, content)",
            provider="gemini",
        )
    name, wire_id = asked.get(
        message.tool_call_id, (str(message.metadata.get("tool_name") or ""), None)
    )
    if not name:
        raise ProviderError(
            f"message {index} answers tool call {message.tool_call_id!r}, which no earlier "
            "assistant message asked for; Gemini needs the function's name",
            provider="gemini",
        )
    key = "error" if message.metadata.get("is_error") else "output"
    response: dict[str, Any] = {"name": name, "response": {key: message.content}}
    if wire_id is not None:
        response["id"] = wire_id
    return {"functionResponse": response}


def from_gemini_response(data: Mapping[str, Any]) -> LLMResponse:
    """Map a ``GenerateContentResponse`` (JSON, a stream folded) to an ``LLMResponse``.

    Thought summaries are left out of the text; the content is kept in
    ``metadata`` for the next turn (see the module docstring).
    """
    parts = answer_parts(data)
    response_id = data.get("responseId")
    prefix = response_id if isinstance(response_id, str) and response_id else "gemini"
    calls = []
    for position, call in enumerate(function_calls(parts)):
        args = call.get("args")
        given = call.get("id")
        calls.append(
            ToolCall(
                id=given if isinstance(given, str) and given else f"{prefix}-{position}",
                name=str(call.get("name") or ""),
                arguments=dict(args) if isinstance(args, Mapping) else {},
            )
        )
    usage = read_usage(data)
    content = answer_content(data)
    model = data.get("modelVersion")
    return LLMResponse(
        text=answer_text(parts),
        tool_calls=tuple(calls),
        usage=Usage(
            input_tokens=usage.input,
            output_tokens=usage.output,
            cached_input_tokens=usage.cached,
            reasoning_tokens=usage.reasoning,
        ),
        model=model if isinstance(model, str) else None,
        stop_reason=finish_reason(data),
        raw_id=response_id if isinstance(response_id, str) else None,
        metadata={CONTENT_KEY: content} if content is not None and parts else {},
    )
