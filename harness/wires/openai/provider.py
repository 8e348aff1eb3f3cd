"""OpenAIProvider: Chat Completions with tool calling through the official ``openai`` SDK.

Works with any OpenAI-compatible server through ``base_url``. The SDK is
imported when a provider is built, so ``import harness.providers`` stays light.

Requests go out through the SDK client's ``post`` (its documented way to send a
body as is) rather than ``chat.completions.create``. ``create`` first walks the
parameters against the SDK's TypedDicts, trying every member of every union, to
rename aliased keys and format dates and files; none of that applies to the
plain JSON this module builds, so the walk returns its input unchanged, at a
cost of 1.8 ms for a 4-message request and 17 ms for 52 messages (openai 3.57).
tests/providers/test_openai_payload.py runs the SDK's own transform over
generated payloads to keep that true. Everything else is the SDK's: auth
headers, retries, errors, response models, streaming. One consequence:
instrumentation that patches ``Completions.create`` does not see these calls;
harness's trace records each one as ``llm.call``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from harness.core.errors import ProviderError
from harness.core.messages import (
    LLMRequest,
    LLMResponse,
    Message,
    Role,
    ToolCall,
    ToolDefinition,
    Usage,
)
from harness.providers.sdk_import import preload_sdk
from harness.providers.tool_arguments import (
    RAW_ARGUMENTS_KEY,
    encode_tool_arguments,
    parse_tool_arguments,
)
from harness.wires.openai.sdk import OpenAISdkProvider, bearer_options

if TYPE_CHECKING:
    import openai
    from openai.types import CompletionUsage
    from openai.types.chat import (
        ChatCompletion,
        ChatCompletionChunk,
        ChatCompletionFunctionToolParam,
        ChatCompletionMessageFunctionToolCallParam,
        ChatCompletionMessageParam,
    )

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "ChunkAssembler",
    "OpenAIProvider",
    "from_chat_completion",
    "recorded_decoder",
    "to_chat_messages",
    "to_chat_tools",
]

MaxTokensParam = Literal["max_completion_tokens", "max_tokens"]


class OpenAIProvider(OpenAISdkProvider):
    """``LLMProvider`` over the OpenAI Chat Completions API.

    Args:
        model: model name used when the request names none (e.g. ``"gpt-4o-mini"``).
        api_key: API key; defaults to ``OPENAI_API_KEY``, which a ``base_url`` on this
            machine (127.0.0.0/8, ::1, localhost) does not need. Ignored when ``client``
            is given.
        base_url: server URL; defaults to ``OPENAI_BASE_URL``, then the SDK's default.
        max_retries: retries the SDK makes on connection errors, 408/409/429 and 5xx.
        timeout: seconds to wait for a response.
        stream: consume the response as server-sent events and assemble it.
        client: a ready ``openai.OpenAI`` client, or an ``openai.AsyncOpenAI`` one for
            :meth:`acomplete`; the provider then never closes it.
        default_max_tokens: output token cap when the request sets none (None: no cap).
        max_tokens_param: wire name of the token cap; ``"max_tokens"`` for older
            OpenAI-compatible servers that do not know ``max_completion_tokens``.

    Raises:
        ConfigurationError: no API key was given and ``OPENAI_API_KEY`` is unset.

    Tool-call arguments that are not a JSON object come back as
    ``{RAW_ARGUMENTS_KEY: "<raw text>"}`` instead of failing the call.

    From async code, ``await provider.acomplete(request)``: with an async client
    it awaits the SDK; with a sync one it runs :meth:`complete` in a thread.
    """

    name = "openai"
    _async_client_hint = (
        "OpenAIProvider was given an AsyncOpenAI client: call `await "
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
        max_tokens_param: MaxTokensParam = "max_completion_tokens",
    ) -> None:
        self.model = model
        self.stream = stream
        self.default_max_tokens = default_max_tokens
        self.max_tokens_param: MaxTokensParam = max_tokens_param
        self._connect_openai(
            client, api_key=api_key, base_url=base_url, max_retries=max_retries, timeout=timeout
        )

    def _call(self, client: openai.OpenAI, request: LLMRequest) -> LLMResponse:
        body = self._body(request)
        if self.stream:
            return self._complete_streaming(client, body)
        return from_chat_completion(self._post(client, body))

    async def _acall(self, client: openai.AsyncOpenAI, request: LLMRequest) -> LLMResponse:
        from openai import AsyncStream
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        body = self._body(request)
        if not self.stream:
            completion = await client.post(
                "/chat/completions", body=body, cast_to=ChatCompletion, options=bearer_options()
            )
            return from_chat_completion(completion)
        stream = await client.post(
            "/chat/completions",
            body=body,
            cast_to=ChatCompletion,
            options=bearer_options(),
            stream=True,
            stream_cls=AsyncStream[ChatCompletionChunk],
        )
        assembler = ChunkAssembler()
        async with stream:
            async for chunk in stream:
                assembler.add(chunk)
        return assembler.response()

    def _body(self, request: LLMRequest) -> dict[str, Any]:
        """The request body, its keys in the order ``chat.completions.create``
        sends them, so a cassette recorded either way is the same byte for byte."""
        body: dict[str, Any] = {"model": request.model or self.model}
        if self.stream:
            body["stream"] = True
        body["messages"] = to_chat_messages(request.messages)
        max_tokens = request.max_tokens or self.default_max_tokens
        if max_tokens is not None:
            body[self.max_tokens_param] = max_tokens
        if self.stream:
            # Without include_usage the stream carries no token counts at all.
            body["stream_options"] = {"include_usage": True}
        tools = to_chat_tools(request.tools)
        if tools:
            body["tool_choice"] = request.tool_choice.value
            body["tools"] = tools
        return body

    def _post(self, client: openai.OpenAI, body: dict[str, Any]) -> ChatCompletion:
        from openai.types.chat import ChatCompletion

        return client.post(
            "/chat/completions", body=body, cast_to=ChatCompletion, options=bearer_options()
        )

    def _complete_streaming(self, client: openai.OpenAI, body: dict[str, Any]) -> LLMResponse:
        from openai import Stream
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        stream = client.post(
            "/chat/completions",
            body=body,
            cast_to=ChatCompletion,
            options=bearer_options(),
            stream=True,
            stream_cls=Stream[ChatCompletionChunk],
        )
        assembler = ChunkAssembler()
        with stream:
            for chunk in stream:
                assembler.add(chunk)
        return assembler.response()


def to_chat_messages(messages: tuple[Message, ...]) -> list[ChatCompletionMessageParam]:
    """Map harness messages to Chat Completions messages, in order."""
    out: list[ChatCompletionMessageParam] = []
    for index, message in enumerate(messages):
        if message.role is Role.SYSTEM:
            out.append({"role": "system", "content": message.content})
        elif message.role is Role.USER:
            out.append({"role": "user", "content": message.content})
        elif message.role is Role.ASSISTANT:
            if not message.tool_calls:
                out.append({"role": "assistant", "content": message.content})
                continue
            calls: list[ChatCompletionMessageFunctionToolCallParam] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": call.name,
                        "arguments": encode_tool_arguments(call.arguments),
                    },
                }
                for call in message.tool_calls
            ]
            # OpenAI's own assistant turns carry content null next to tool calls.
            out.append(
                {"role": "assistant", "content": message.content or None, "tool_calls": calls}
            )
        else:
            if not message.tool_call_id:
                raise ProviderError(
                    f"message {index} has role 'tool' but no tool_call_id; build tool results "
                    "with Message.tool(tool_call_id, content)",
                    provider="openai",
                )
            out.append(
                {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
            )
    return out


def to_chat_tools(tools: tuple[ToolDefinition, ...]) -> list[ChatCompletionFunctionToolParam]:
    """Map harness tool definitions to Chat Completions function tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            },
        }
        for tool in tools
    ]


def from_chat_completion(completion: ChatCompletion) -> LLMResponse:
    """Map a (non-streamed) Chat Completion to an ``LLMResponse``."""
    from openai.types.chat import ChatCompletionMessageFunctionToolCall

    if not completion.choices:
        raise ProviderError(
            f"OpenAI returned a completion without choices (id {completion.id}); retry, or "
            "check that the server at base_url speaks the Chat Completions API",
            provider="openai",
        )
    choice = completion.choices[0]
    message = choice.message
    calls = tuple(
        ToolCall(
            id=call.id,
            name=call.function.name,
            arguments=parse_tool_arguments(call.function.arguments),
        )
        for call in message.tool_calls or ()
        # Custom (free-text) tools are never offered, so only function calls can come back.
        if isinstance(call, ChatCompletionMessageFunctionToolCall)
    )
    return LLMResponse(
        text=message.content or message.refusal or "",
        tool_calls=calls,
        usage=_usage(completion.usage),
        model=completion.model,
        stop_reason=choice.finish_reason,
        raw_id=completion.id,
    )


def _usage(usage: CompletionUsage | None) -> Usage:
    # prompt_tokens already counts the cached part; OpenAI reports no cache writes.
    if usage is None:
        return Usage()
    details = usage.prompt_tokens_details
    output_details = usage.completion_tokens_details
    return Usage(
        input_tokens=usage.prompt_tokens,
        output_tokens=usage.completion_tokens,
        cached_input_tokens=(details.cached_tokens or 0) if details else 0,
        reasoning_tokens=(output_details.reasoning_tokens or 0) if output_details else 0,
    )


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ChunkAssembler:
    """Assembles streamed ``ChatCompletionChunk``s into one ``LLMResponse``.

    Text and refusal deltas are concatenated; tool calls are keyed by their
    ``index`` (OpenAI sends the id and name once, then argument fragments); the
    usage arrives in a final chunk with no choices.
    """

    def __init__(self) -> None:
        self._text: list[str] = []
        self._refusal: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._finish_reason: str | None = None
        self._usage: CompletionUsage | None = None
        self._id: str | None = None
        self._model: str | None = None

    def add(self, chunk: ChatCompletionChunk) -> None:
        """Fold one chunk into the response."""
        self._id = self._id or chunk.id
        self._model = chunk.model or self._model
        if chunk.usage is not None:
            self._usage = chunk.usage
        for choice in chunk.choices:
            if choice.index != 0:  # only the first choice is ever requested
                continue
            if choice.finish_reason is not None:
                self._finish_reason = choice.finish_reason
            delta = choice.delta
            if delta.content:
                self._text.append(delta.content)
            if delta.refusal:
                self._refusal.append(delta.refusal)
            for fragment in delta.tool_calls or ():
                partial = self._calls.setdefault(fragment.index, _PartialCall())
                partial.id = partial.id or fragment.id or ""
                if fragment.function is not None:
                    partial.name = partial.name or fragment.function.name or ""
                    partial.arguments.append(fragment.function.arguments or "")

    def response(self) -> LLMResponse:
        """The assembled response; raises ``ProviderError`` if no chunk arrived."""
        if self._id is None:
            raise ProviderError(
                "OpenAI stream ended before any chunk arrived; retry, or set stream=False",
                provider="openai",
            )
        calls = tuple(
            ToolCall(id=p.id, name=p.name, arguments=parse_tool_arguments("".join(p.arguments)))
            for _, p in sorted(self._calls.items())
        )
        return LLMResponse(
            text="".join(self._text) or "".join(self._refusal),
            tool_calls=calls,
            usage=_usage(self._usage),
            model=self._model,
            stop_reason=self._finish_reason,
            raw_id=self._id,
        )


def recorded_decoder(http: Any, *, key: str, stream: bool) -> OpenAIProvider:
    """A provider whose SDK client sends through ``http`` (an ``httpx2.Client``).

    Harness's mutants and eval rows decode recorded answers with it: the
    transport answers with the recorded bytes, the SDK and the mapping parse them.
    """
    preload_sdk("openai")
    import openai

    client = openai.OpenAI(
        api_key=key, base_url="http://127.0.0.1/v1", max_retries=0, http_client=http
    )
    return OpenAIProvider("recorded", client=client, stream=stream)
