"""What a model request sent, whatever its wire: one view for request checks.

A production quality drop can come from configuration alone (an effort default,
a broken cache prefix, one system-prompt line), so tests check the requests an
agent sent as well as what it did. Every wire says the same things in its own
words; :class:`SentRequest` says them once:

- ``model``; ``temperature``; ``effort`` (a level such as ``"low"``, or
  ``"budget:<tokens>"``, ``"adaptive"``, ``"disabled"``) with the wire's own
  ``reasoning`` settings beside it (Chat's ``reasoning_effort``, Responses'
  ``reasoning``, Messages' ``thinking`` / ``output_config``, Gemini's
  ``thinkingConfig``, Bedrock's ``additionalModelRequestFields``);
- ``system``: the instructions, wherever the wire puts them (a ``system`` or
  ``developer`` message, ``instructions``, ``system``, ``systemInstruction``),
  parts joined by a newline;
- ``messages``: the conversation after the system text, each with a ``key``
  (a digest of the item as sent, ``cache_control`` markers left out, since a
  client moves them every turn without breaking the cache) and a readable text;
- ``tools``: name, description and JSON-schema parameters.

The readers of each wire are functions ``(body, url) -> SentRequest``: Chat
Completions, Messages and Responses in their wires' packages (``sent`` modules),
the wires with a package of their own in ``<package>.sent``.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final, Protocol

from harness.core.wires import wire as registry_wire
from harness.traffic.wire import STABLE_JSON, json_object, wire_for

if TYPE_CHECKING:
    from harness.core.messages import LLMRequest

__all__ = [
    "SYSTEM_ROLES",
    "Reader",
    "SentMessage",
    "SentRequest",
    "SentTool",
    "call_text",
    "effort_of_thinking",
    "item_key",
    "joined",
    "model_of",
    "number",
    "sent_from_body",
    "sent_from_exchanges",
    "sent_from_llm_request",
    "sha256_text",
    "tools_sha256",
]

Reader = Callable[[dict[str, Any], str], "SentRequest"]


# Helpers the wires' readers (``harness.wires.<name>.sent``) share.
SYSTEM_ROLES: Final = ("system", "developer")


def joined(parts: list[str]) -> str | None:
    """The parts on lines of their own, or None when there are none."""
    return "\n".join(parts) if parts else None


def call_text(name: Any, arguments: Any) -> str:
    """A tool call as one comparable line, whatever the wire's argument encoding."""
    text = arguments if isinstance(arguments, str) else STABLE_JSON(arguments or {})
    return f"call {name}({text})"


def model_of(body: dict[str, Any]) -> str | None:
    """The body's ``model`` field as a string, or None."""
    value = body.get("model")
    return str(value) if value is not None else None


def sha256_text(text: str) -> str:
    """The hex SHA-256 of ``text`` (UTF-8): how a test pins a prompt without pasting it."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _without_cache_marks(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_cache_marks(v) for k, v in value.items() if k != "cache_control"}
    if isinstance(value, list):
        return [_without_cache_marks(v) for v in value]
    return value


def item_key(item: Any) -> str:
    """16 hex digits naming a message item as sent (key order and cache markers ignored)."""
    text = STABLE_JSON(_without_cache_marks(item))
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


@dataclass(frozen=True, slots=True)
class SentMessage:
    """One conversation item: its role (user, assistant, tool), a readable text, its key."""

    role: str
    text: str
    key: str


@dataclass(frozen=True, slots=True)
class SentTool:
    """One tool as the model was shown it."""

    name: str
    parameters: Any = None
    description: str = ""


def tools_sha256(tools: Iterable[SentTool]) -> str:
    """SHA-256 over the tools' names and parameter schemas, sorted by name.

    Descriptions are left out (they are prose, reworded freely); a renamed
    parameter, a new required field or a dropped tool changes it.
    """
    listed = sorted(([t.name, t.parameters] for t in tools), key=lambda p: str(p[0]))
    return sha256_text(STABLE_JSON(listed))


@dataclass(frozen=True, slots=True)
class SentRequest:
    """One model request, normalised across wires (see the module docstring)."""

    wire: str
    model: str | None
    system: str | None
    messages: tuple[SentMessage, ...]
    tools: tuple[SentTool, ...] = ()
    temperature: float | None = None
    effort: str | None = None
    reasoning: Any = None  # the wire's own reasoning settings, as sent
    # A request that continues a conversation the server keeps (Responses'
    # ``previous_response_id``): its messages are only the new ones.
    continues: str | None = None
    index: int = field(default=0, compare=False)

    @property
    def system_sha256(self) -> str | None:
        return None if self.system is None else sha256_text(self.system)

    @property
    def tools_sha256(self) -> str:
        return tools_sha256(self.tools)

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tools)


def effort_of_thinking(thinking: Any) -> str | None:
    """Anthropic-style ``thinking`` settings as an effort: ``budget:N``, ``adaptive``, ..."""
    if not isinstance(thinking, dict):
        return None
    kind = str(thinking.get("type") or "")
    if kind == "enabled" and thinking.get("budget_tokens") is not None:
        return f"budget:{thinking['budget_tokens']}"
    return kind or None


def number(value: Any) -> float | None:
    """A JSON number as a float (booleans are not numbers here), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def sent_from_llm_request(
    request: LLMRequest,
    *,
    wire: str = "harness",
    model: str | None = None,
    effort: str | None = None,
    temperature: float | None = None,
    index: int = 0,
) -> SentRequest:
    """The view of a request harness's runtime handed its provider.

    ``model`` is the provider's when the request names none; ``effort`` and
    ``temperature`` are the provider's configuration (the runtime's requests
    carry neither).
    """
    system = [m.content for m in request.messages if m.role.value == "system"]
    messages = []
    for message in request.messages:
        if message.role.value == "system":
            continue
        dumped = message.model_dump(mode="json")
        calls = " ".join(f"call {c.name}({STABLE_JSON(c.arguments)})" for c in message.tool_calls)
        text = " ".join(part for part in (message.content, calls) if part)
        messages.append(SentMessage(message.role.value, text, item_key(dumped)))
    tools = tuple(SentTool(t.name, t.parameters, t.description) for t in request.tools)
    return SentRequest(
        wire=wire,
        model=request.model or model,
        system="\n".join(system) if system else None,
        messages=tuple(messages),
        tools=tools,
        temperature=temperature,
        effort=effort,
        index=index,
    )


def _reader(wire: str) -> Reader:
    # Each wire's reader lives in its package (``harness.wires.<name>.sent``), a
    # room above this one: it is found by the registry's home, not imported.
    home = registry_wire(wire).home
    module = importlib.import_module(f"{home}.sent")
    read: Reader = module.sent_request
    return read


def sent_from_body(wire: str, body: dict[str, Any], url: str = "", index: int = 0) -> SentRequest:
    """The view of a request body of ``wire`` (a registry name) posted to ``url``."""
    found = _reader(wire)(body, url)
    return found if found.index == index else replace(found, index=index)


class PostedExchange(Protocol):
    """What a request view needs of an exchange (``traffic.exchanges.HttpExchange``
    has it): typed by shape, as ``exchanges`` reads request views from this module."""

    @property
    def method(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def request_body(self) -> bytes: ...
    @property
    def request_headers(self) -> Any: ...


def sent_from_exchanges(exchanges: Sequence[PostedExchange]) -> list[SentRequest]:
    """The model requests among ``exchanges``, in order (other traffic skipped)."""
    from harness.recording import decode_content  # lazy: yaml and the decoders

    sent: list[SentRequest] = []
    for exchange in exchanges:
        wire = wire_for(exchange.method, exchange.url)
        if wire is None:
            continue
        data = json_object(decode_content(exchange.request_body, exchange.request_headers))
        if data is None:
            continue
        sent.append(sent_from_body(wire, data, exchange.url, index=len(sent)))
    return sent
