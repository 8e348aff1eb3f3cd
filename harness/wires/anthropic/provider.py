"""AnthropicProvider: the Messages API with tool_use / tool_result blocks.

Goes through the official ``anthropic`` SDK, imported when a provider is built
so ``import harness.providers`` stays light.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from harness._speed.tls import close_with, http_client_options
from harness.core.errors import ProviderError
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
from harness.core.wires import wire
from harness.providers.credentials import base_url_from_env
from harness.providers.sdk_errors import anthropic_provider_error
from harness.providers.sdk_import import preload_sdk
from harness.providers.skeleton import SdkProvider
from harness.providers.tool_arguments import RAW_ARGUMENTS_KEY

if TYPE_CHECKING:
    import anthropic
    from anthropic.types import (
        ContentBlockParam,
        MessageParam,
        ToolChoiceParam,
        ToolParam,
        ToolResultBlockParam,
    )
    from anthropic.types import Message as AnthropicMessage
    from anthropic.types import Usage as AnthropicUsage
    from anthropic.types.message_create_params import MessageCreateParamsBase

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "AnthropicProvider",
    "anthropic_usage",
    "from_anthropic_message",
    "recorded_decoder",
    "to_anthropic_messages",
    "to_anthropic_tools",
]

_ANTHROPIC = wire("anthropic")  # its key and base URL variables


class AnthropicProvider(SdkProvider["anthropic.Anthropic", "anthropic.AsyncAnthropic"]):
    """``LLMProvider`` over the Anthropic Messages API.

    Args:
        model: model name used when the request names none (e.g. ``"claude-sonnet-4-6"``).
        api_key: API key; defaults to ``ANTHROPIC_API_KEY``, which a ``base_url`` on this
            machine (127.0.0.0/8, ::1, localhost) does not need. Ignored when ``client``
            is given.
        base_url: server URL; defaults to ``ANTHROPIC_BASE_URL``, then the SDK's default.
        max_retries: retries the SDK makes on connection errors, 408/409/429 and 5xx.
        timeout: seconds to wait for a response.
        stream: consume the response as server-sent events and assemble it.
        client: a ready ``anthropic.Anthropic`` client, or an ``anthropic.AsyncAnthropic``
            one for :meth:`acomplete`; the provider then never closes it.
        max_tokens: output token cap when the request sets none (the API requires one).

    Raises:
        ConfigurationError: no API key was given and ``ANTHROPIC_API_KEY`` is unset.

    System messages become the ``system`` parameter. Tool results become
    ``tool_result`` blocks in a user turn, and consecutive turns of one role are
    merged into one message, since the API wants user and assistant to alternate.
    A tool message with ``metadata["is_error"]`` is sent as ``is_error: true``.
    Thinking and server-tool blocks (e.g. tool search) in a response are skipped.

    From async code, ``await provider.acomplete(request)``: with an async client
    it awaits the SDK; with a sync one it runs :meth:`complete` in a thread.
    """

    name = "anthropic"
    _async_client_hint = (
        "AnthropicProvider was given an AsyncAnthropic client: call `await "
        "provider.acomplete(request)`, or pass an anthropic.Anthropic client"
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
        client: anthropic.Anthropic | anthropic.AsyncAnthropic | None = None,
        max_tokens: int = 4096,
    ) -> None:
        self.model = model
        self.stream = stream
        self.max_tokens = max_tokens

        url = base_url_from_env(base_url, _ANTHROPIC.base_url_env[0])

        def build(key: str) -> anthropic.Anthropic:
            preload_sdk("anthropic")
            import anthropic

            # The SDK's default HTTP client on the shared TLS context (CA bundle loaded once).
            http = anthropic.DefaultHttpxClient(**http_client_options())
            client = anthropic.Anthropic(
                api_key=key,
                base_url=url,
                max_retries=max_retries,
                timeout=timeout,
                http_client=http,
            )
            close_with(client, http)
            return client

        self._connect(
            client, api_key=api_key, key_env=_ANTHROPIC.key_env[0], base_url=url, build=build
        )

    @classmethod
    def http_library(cls) -> tuple[str, ...] | None:
        """The library the ``anthropic`` SDK's default HTTP client is built on."""
        preload_sdk("anthropic")
        import anthropic

        return cls._httpx_library(anthropic.DefaultHttpxClient)

    def _client_types(self) -> tuple[type[anthropic.Anthropic], type[anthropic.AsyncAnthropic]]:
        import anthropic

        return anthropic.Anthropic, anthropic.AsyncAnthropic

    def _sdk_errors(
        self,
    ) -> tuple[tuple[type[BaseException], ...], Callable[..., ProviderError]]:
        import anthropic

        # The SDK does not wrap a stream dropped mid-way (httpx2) or a malformed event
        # (JSON); the base class catches those two for every adapter.
        return (anthropic.AnthropicError,), anthropic_provider_error

    def _call(self, client: anthropic.Anthropic, request: LLMRequest) -> LLMResponse:
        params = self._params(request)
        if self.stream:
            with client.messages.stream(**params) as stream:
                message: AnthropicMessage = stream.get_final_message()
        else:
            message = client.messages.create(**params)
        return from_anthropic_message(message)

    async def _acall(self, client: anthropic.AsyncAnthropic, request: LLMRequest) -> LLMResponse:
        params = self._params(request)
        if self.stream:
            async with client.messages.stream(**params) as stream:
                message: AnthropicMessage = await stream.get_final_message()
        else:
            message = await client.messages.create(**params)
        return from_anthropic_message(message)

    def _params(self, request: LLMRequest) -> MessageCreateParamsBase:
        system, messages = to_anthropic_messages(request.messages)
        params: MessageCreateParamsBase = {
            "model": request.model or self.model,
            "max_tokens": request.max_tokens or self.max_tokens,
            "messages": messages,
        }
        if system:
            params["system"] = system
        if request.tools:
            params["tools"] = to_anthropic_tools(request.tools)
            params["tool_choice"] = _tool_choice(request.tool_choice)
        return params


def _tool_choice(choice: ToolChoice) -> ToolChoiceParam:
    if choice is ToolChoice.REQUIRED:
        return {"type": "any"}  # Anthropic's name for "must call some tool"
    if choice is ToolChoice.NONE:
        return {"type": "none"}
    return {"type": "auto"}


def to_anthropic_messages(messages: tuple[Message, ...]) -> tuple[str, list[MessageParam]]:
    """Split harness messages into the ``system`` text and alternating turns.

    Consecutive messages that land on the same role (several tool results, tool
    results followed by user text) are merged into one turn, in order.
    """
    system: list[str] = []
    turns: list[tuple[Literal["user", "assistant"], list[ContentBlockParam]]] = []
    for index, message in enumerate(messages):
        if message.role is Role.SYSTEM:
            if message.content:
                system.append(message.content)
            continue
        role: Literal["user", "assistant"] = (
            "assistant" if message.role is Role.ASSISTANT else "user"
        )
        blocks = _blocks(index, message)
        if not blocks:  # the API rejects empty turns and empty text blocks
            continue
        if turns and turns[-1][0] == role:
            turns[-1][1].extend(blocks)
        else:
            turns.append((role, blocks))
    return "\n\n".join(system), [_turn(role, blocks) for role, blocks in turns]


def _turn(role: Literal["user", "assistant"], blocks: list[ContentBlockParam]) -> MessageParam:
    if role == "assistant":
        return {"role": "assistant", "content": blocks}
    return {"role": "user", "content": blocks}


def _blocks(index: int, message: Message) -> list[ContentBlockParam]:
    if message.role is Role.TOOL:
        if not message.tool_call_id:
            raise ProviderError(
                f"message {index} has role 'tool' but no tool_call_id; build tool results "
                "with Message.tool(tool_call_id, content)",
                provider="anthropic",
            )
        result: ToolResultBlockParam = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id,
            "is_error": bool(message.metadata.get("is_error")),
        }
        if message.content:
            result["content"] = message.content
        return [result]
    blocks: list[ContentBlockParam] = []
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    if message.role is Role.ASSISTANT:
        blocks.extend(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
            for call in message.tool_calls
        )
    return blocks


def to_anthropic_tools(tools: tuple[ToolDefinition, ...]) -> list[ToolParam]:
    """Map harness tool definitions to Messages API tools."""
    return [
        {"name": tool.name, "description": tool.description, "input_schema": tool.parameters}
        for tool in tools
    ]


def anthropic_usage(usage: AnthropicUsage) -> Usage:
    """Normalise Anthropic usage: its ``input_tokens`` excludes cache reads and writes."""
    read = usage.cache_read_input_tokens or 0
    written = usage.cache_creation_input_tokens or 0
    return Usage(
        input_tokens=usage.input_tokens + read + written,
        output_tokens=usage.output_tokens,
        cached_input_tokens=read,
        cache_write_input_tokens=written,
    )


def from_anthropic_message(message: AnthropicMessage) -> LLMResponse:
    """Map a Messages API response (streamed or not) to an ``LLMResponse``.

    Adjacent text blocks (e.g. split by citations) are concatenated; text blocks
    separated by other blocks (a server tool call in between) become paragraphs
    joined by a blank line. ``tool_use`` blocks become tool calls; thinking and
    server-tool blocks are skipped.
    """
    from anthropic.types import TextBlock, ToolUseBlock

    paragraphs: list[str] = []
    calls: list[ToolCall] = []
    after_text = False
    for block in message.content:
        if isinstance(block, TextBlock):
            if after_text:
                paragraphs[-1] += block.text
            else:
                paragraphs.append(block.text)
        elif isinstance(block, ToolUseBlock):
            calls.append(ToolCall(id=block.id, name=block.name, arguments=dict(block.input)))
        after_text = isinstance(block, TextBlock)
    return LLMResponse(
        text="\n\n".join(p for p in paragraphs if p),
        tool_calls=tuple(calls),
        usage=anthropic_usage(message.usage),
        model=message.model,
        stop_reason=message.stop_reason,
        raw_id=message.id,
    )


def recorded_decoder(http: Any, *, key: str, stream: bool) -> AnthropicProvider:
    """A provider whose SDK client sends through ``http`` (an ``httpx2.Client``).

    Harness's mutants and eval rows decode recorded answers with it: the
    transport answers with the recorded bytes, the SDK and the mapping parse them.
    """
    preload_sdk("anthropic")
    import anthropic

    client = anthropic.Anthropic(
        api_key=key, base_url="http://127.0.0.1", max_retries=0, http_client=http
    )
    return AnthropicProvider("recorded", client=client, stream=stream)
