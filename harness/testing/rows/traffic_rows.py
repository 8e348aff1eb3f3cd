"""An eval row's numbers from the HTTP traffic of a test: provider, model, tokens, calls.

Each model call's response is decoded by harness's own adapters (the same path
mutants and replays take), so usage is normalised across providers exactly as
for harness's runs: input tokens include cache reads and writes. An output tool's
call (pydantic-ai's ``final_result``, smolagents' ``final_answer``, a tool its
request's definition marks as one: see
``harness.core.output_tools``) is the answer, not a tool call, as in the traffic trace.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from harness.core.messages import LLMResponse, Usage
from harness.core.output_tools import (
    declared_output_tools,
    is_output_tool,
    may_declare_output_tools,
)
from harness.core.wire_parts import load_part
from harness.core.wires import Capability, ready_wires, runtime_wires, wire_for_path

__all__ = ["TrafficSummary", "model_api", "summarize_traffic"]

# The wire formats harness's adapters decode (usage and tool calls): the registry's
# ready runtime wires, told by their path endings.
_DECODED = frozenset(w.name for w in runtime_wires())
# Wires harness only reads (Bedrock): no adapter, so their own traffic reader
# (its ``readers(url)``, the registry's traffic part) gives usage and calls.
_READ_ONLY = frozenset(
    w.name for w in ready_wires() if w.name not in _DECODED and Capability.TRAFFIC in w.capabilities
)


def model_api(method: str, uri: str) -> str | None:
    """The wire format of a model call (``POST`` to its endpoint), else None."""
    if method.upper() != "POST":
        return None
    entry = wire_for_path(urlsplit(uri).path)
    if entry is None:
        return None
    if entry.name in _READ_ONLY:
        # Its path endings are generic (``/converse``): its reader knows a call by the whole path.
        reader = load_part(entry, "traffic")
        return entry.name if reader.is_call(method, uri) else None
    return entry.name if entry.name in _DECODED else None


@dataclass(frozen=True, slots=True)
class TrafficSummary:
    """What the model calls of one test amounted to."""

    providers: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    llm_calls: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    usage_by_model: tuple[tuple[str, Usage], ...] = ()

    @property
    def provider(self) -> str:
        """The row's provider: the one used, ``a+b`` for several, ``none`` without calls."""
        return "+".join(self.providers) or "none"

    @property
    def model(self) -> str:
        return "+".join(self.models) or "none"

    def row_fields(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "model": self.model,
            "steps": self.llm_calls,
            "llm_calls": self.llm_calls,
            "tool_calls": self.tool_calls,
            "input_tokens": self.usage.input_tokens,
            "output_tokens": self.usage.output_tokens,
            "cached_input_tokens": self.usage.cached_input_tokens,
            "cache_write_input_tokens": self.usage.cache_write_input_tokens,
        }


def _model_in_path(api: str, uri: str) -> str | None:
    """The model a call names in its path, for a wire that puts it there (by its reader)."""
    found: str | None = load_part(api, "traffic").model_in_path(uri)
    return found


def _requested_model(body: Any) -> str | None:
    try:
        value = json.loads(body) if isinstance(body, bytes | str) and body else None
    except (ValueError, UnicodeDecodeError):
        return None
    model = value.get("model") if isinstance(value, dict) else None
    return model if isinstance(model, str) and model else None


def _declared(api: str, request: Any) -> frozenset[str]:
    """The output tools a request's tool definitions mark as such (``output_tools``)."""
    body = request.body if isinstance(request.body, bytes) else str(request.body or "").encode()
    if not may_declare_output_tools(body):
        return frozenset()
    data = _json(body)
    if data is None:
        return frozenset()
    from harness.traffic.sent import sent_from_body  # lazy: only bodies with a marker

    tools = sent_from_body(api, data, request.uri).tools
    return declared_output_tools((tool.name, tool.description) for tool in tools)


def summarize_traffic(exchanges: Sequence[tuple[Any, dict[str, Any]]]) -> TrafficSummary:
    """Sum the model calls among ``(vcr request, response dict)`` exchanges."""
    from harness.core.errors import HarnessError
    from harness.evals.recorded_responses import decode_recorded_response

    providers: dict[str, None] = {}
    by_model: dict[str, Usage] = {}
    calls = tools = 0
    for request, response in exchanges:
        api = model_api(request.method, request.uri)
        if api is None:
            continue
        calls += 1
        providers[api] = None
        if api in _READ_ONLY:
            model, usage, asked = _read_only_call(api, request, response)
            tools += asked
            by_model[model] = by_model.get(model, Usage()) + usage
            continue
        model = _requested_model(request.body) or _model_in_path(api, request.uri) or "unknown"
        decoded = None  # a body no adapter reads: counted, without usage
        if api in _DECODED:
            with contextlib.suppress(HarnessError):
                decoded = decode_recorded_response(api, response)
        usage = Usage()
        if isinstance(decoded, LLMResponse):
            declared = _declared(api, request)
            tools += sum(
                1 for call in decoded.tool_calls if not is_output_tool(call.name, declared)
            )
            usage = decoded.usage
        by_model[model] = by_model.get(model, Usage()) + usage
    return TrafficSummary(
        providers=tuple(providers),
        models=tuple(by_model),
        llm_calls=calls,
        tool_calls=tools,
        usage=sum(by_model.values(), Usage()),
        usage_by_model=tuple(by_model.items()),
    )


def _body_bytes(response: dict[str, Any]) -> bytes:
    if "body" not in response and "parsed_body" in response:  # pydantic-ai's serializer
        return json.dumps(response["parsed_body"]).encode("utf-8")
    body = response.get("body")
    value = body.get("string") if isinstance(body, dict) else body
    return value if isinstance(value, bytes) else str(value or "").encode("utf-8")


def _json(raw: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(raw) if raw else None
    except (ValueError, UnicodeDecodeError):
        return None
    return value if isinstance(value, dict) else None


def _read_only_call(api: str, request: Any, response: dict[str, Any]) -> tuple[str, Usage, int]:
    """``(model, usage, tool calls asked)`` of one call of a read-only wire, by its reader."""
    read_request, read_json, _ = load_part(api, "traffic").readers(request.uri)
    body = request.body if isinstance(request.body, bytes) else str(request.body or "").encode()
    sent = _json(body)
    model = read_request(sent or {}).model  # the model is in the URL, not the body
    raw = _body_bytes(response)
    status = response.get("status")
    code = int(status.get("code", 200)) if isinstance(status, dict) else 200
    answer = read_json(code, _json(raw), raw)
    usage = Usage(
        input_tokens=answer.usage.input,
        output_tokens=answer.usage.output,
        cached_input_tokens=answer.usage.cached_input,
        cache_write_input_tokens=answer.usage.cache_write_input,
        reasoning_tokens=answer.usage.reasoning or 0,
    )
    declared = _declared(api, request)
    asked = sum(1 for ask in answer.asks if not is_output_tool(ask.name, declared))
    return model or "unknown", usage, asked
