"""OpenAIResponsesProvider: the OpenAI Responses API (``POST /v1/responses``).

Stateless by design: every request sends ``store: false`` and the whole
conversation as input items, never ``previous_response_id``, so a run can be
replayed from a cassette, resumed from a checkpoint or moved to another account.
Reasoning models need their reasoning items back on the next turn; with
``store: false`` the server keeps nothing, so harness asks for them encrypted
(``include: ["reasoning.encrypted_content"]``) and carries them in the assistant
``Message.metadata`` (see :mod:`harness.wires.openai_responses.items`).

As ``OpenAIProvider`` does, requests go out through the SDK client's ``post``
with the body as built here (``responses.create`` would walk it against the
SDK's TypedDicts and return it unchanged); auth, retries, errors, response
models and the SSE event stream are the SDK's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from harness.core.errors import ProviderError
from harness.core.messages import LLMRequest, LLMResponse
from harness.providers.sdk_import import preload_sdk
from harness.wires.openai.sdk import OpenAISdkProvider, bearer_options
from harness.wires.openai_responses.events import EventAssembler
from harness.wires.openai_responses.items import (
    ITEMS_KEY,
    from_response,
    to_input_items,
    to_response_tools,
)

if TYPE_CHECKING:
    import openai

__all__ = [
    "ITEMS_KEY",
    "EventAssembler",
    "OpenAIResponsesProvider",
    "from_response",
    "recorded_decoder",
    "to_input_items",
    "to_response_tools",
]

_PATH = "/responses"
_INCLUDE = ["reasoning.encrypted_content"]


class OpenAIResponsesProvider(OpenAISdkProvider):
    """``LLMProvider`` over the OpenAI Responses API, stateless (``store: false``).

    Args:
        model: model name used when the request names none (e.g. ``"gpt-4.1-mini"``).
        api_key: API key; defaults to ``OPENAI_API_KEY``. Ignored when ``client`` is given.
        base_url: server URL; defaults to ``OPENAI_BASE_URL``, then the SDK's default.
        max_retries: retries the SDK makes on connection errors, 408/409/429 and 5xx.
        timeout: seconds to wait for a response.
        stream: consume the response as the SDK's server-sent event stream.
        client: a ready ``openai.OpenAI`` client, or an ``openai.AsyncOpenAI`` one for
            :meth:`acomplete`; the provider then never closes it.
        default_max_tokens: ``max_output_tokens`` when the request sets none (None: no cap).
        reasoning_effort: sent as ``reasoning: {"effort": ...}`` for reasoning models
            (``"low"``, ``"medium"``, ...); None sends no ``reasoning`` parameter.

    Raises:
        ConfigurationError: no API key was given and ``OPENAI_API_KEY`` is unset.

    Stop reasons: ``"stop"`` (text), ``"tool_calls"``, ``"refusal"`` (the text is
    the refusal), or the ``incomplete_details.reason`` of an incomplete response
    (``"max_output_tokens"``, ``"content_filter"``). A failed response raises
    ``ProviderError``.
    """

    name = "openai-responses"
    _async_client_hint = (
        "OpenAIResponsesProvider was given an AsyncOpenAI client: call `await "
        "provider.acomplete(request)`, or pass an openai.OpenAI client for complete()"
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
        client: openai.OpenAI | openai.AsyncOpenAI | None = None,
        default_max_tokens: int | None = None,
        reasoning_effort: str | None = None,
    ) -> None:
        self.model = model
        self.stream = stream
        self.default_max_tokens = default_max_tokens
        self.reasoning_effort = reasoning_effort
        self._connect_openai(
            client, api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
        )

    def _body(self, request: LLMRequest) -> dict[str, Any]:
        """The request body, keys sorted as ``responses.create`` sends them."""
        instructions, items = to_input_items(request.messages)
        body: dict[str, Any] = {"include": list(_INCLUDE), "input": items}
        if instructions:
            body["instructions"] = instructions
        max_tokens = request.max_tokens or self.default_max_tokens
        if max_tokens is not None:
            body["max_output_tokens"] = max_tokens
        body["model"] = request.model or self.model
        if self.reasoning_effort is not None:
            body["reasoning"] = {"effort": self.reasoning_effort}
        body["store"] = False
        if self.stream:
            body["stream"] = True
        tools = to_response_tools(request.tools)
        if tools:
            body["tool_choice"] = request.tool_choice.value
            body["tools"] = tools
        return body

    def _call(self, client: openai.OpenAI, request: LLMRequest) -> LLMResponse:
        from openai import Stream
        from openai.types.responses import Response, ResponseStreamEvent

        body = self._body(request)
        if not self.stream:
            response = client.post(_PATH, body=body, cast_to=object, options=bearer_options())
            return from_response(_plain(response))
        stream = client.post(
            _PATH,
            body=body,
            cast_to=Response,
            options=bearer_options(),
            stream=True,
            stream_cls=Stream[ResponseStreamEvent],
        )
        assembler = EventAssembler()
        with stream:
            for event in stream:
                assembler.add(_plain(event))
        return assembler.response()

    async def _acall(self, client: openai.AsyncOpenAI, request: LLMRequest) -> LLMResponse:
        from openai import AsyncStream
        from openai.types.responses import Response, ResponseStreamEvent

        body = self._body(request)
        if not self.stream:
            response = await client.post(_PATH, body=body, cast_to=object, options=bearer_options())
            return from_response(_plain(response))
        stream = await client.post(
            _PATH,
            body=body,
            cast_to=Response,
            options=bearer_options(),
            stream=True,
            stream_cls=AsyncStream[ResponseStreamEvent],
        )
        assembler = EventAssembler()
        async with stream:
            async for event in stream:
                assembler.add(_plain(event))
        return assembler.response()


def _plain(model: Any) -> Mapping[str, Any]:
    """The answer as plain JSON.

    A JSON answer is asked of the SDK as is (``cast_to=object``): building the
    ``Response`` model, only to read it back, cost more than the rest of a
    replayed call together (bench/replay_bench.py). Stream events come as SDK
    objects, read back with ``to_dict``. Either way the mapping reads plain data
    and treats every field as optional, so a recording that lacks a field the
    newest types require (``cache_write_tokens``, the early streams'
    ``sequence_number``) still maps. A JSON body served without a JSON content
    type reaches here as text.
    """
    data = model.to_dict(mode="json") if hasattr(model, "to_dict") else model
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except ValueError:
            data = None
    if not isinstance(data, Mapping):
        raise ProviderError(
            "OpenAI Responses returned something that is not a JSON object; check that the "
            "server at base_url speaks the Responses API",
            provider="openai-responses",
        )
    return data


def recorded_decoder(http: Any, *, key: str, stream: bool) -> OpenAIResponsesProvider:
    """A provider whose SDK client sends through ``http`` (an ``httpx2.Client``).

    Harness's mutants and eval rows decode recorded answers with it: the
    transport answers with the recorded bytes, the SDK and the mapping parse them.
    """
    preload_sdk("openai")
    import openai

    client = openai.OpenAI(
        api_key=key, base_url="http://127.0.0.1/v1", max_retries=0, http_client=http
    )
    return OpenAIResponsesProvider("recorded", client=client, stream=stream)
