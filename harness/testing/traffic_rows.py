"""An eval row's numbers from the HTTP traffic of a test: provider, model, tokens, calls.

Each model call's response is decoded by harness's own adapters (the same path
mutants and replays take), so usage is normalised across providers exactly as
for harness's runs: input tokens include cache reads and writes.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from harness.core.messages import LLMResponse, Usage
from harness.core.wires import runtime_wires, wire, wire_for_path

__all__ = ["TrafficSummary", "model_api", "summarize_traffic"]

# The wire formats harness's adapters decode (usage and tool calls): the registry's
# ready runtime wires, told by their path endings.
_DECODED = frozenset(w.name for w in runtime_wires())
_GEMINI_METHODS = wire("gemini").path_suffixes


def model_api(method: str, uri: str) -> str | None:
    """The wire format of a model call (``POST`` to its endpoint), else None."""
    if method.upper() != "POST":
        return None
    entry = wire_for_path(urlsplit(uri).path)
    return entry.name if entry is not None and entry.name in _DECODED else None


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


def _model_in_path(uri: str) -> str | None:
    """Gemini's model: ``.../models/{model}:generateContent``."""
    path = urlsplit(uri).path
    if not path.endswith(_GEMINI_METHODS) or "/models/" not in path:
        return None
    return path.rsplit("/models/", 1)[1].split(":", 1)[0] or None


def _requested_model(body: Any) -> str | None:
    try:
        value = json.loads(body) if isinstance(body, bytes | str) and body else None
    except (ValueError, UnicodeDecodeError):
        return None
    model = value.get("model") if isinstance(value, dict) else None
    return model if isinstance(model, str) and model else None


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
        model = _requested_model(request.body) or _model_in_path(request.uri) or "unknown"
        decoded = None  # a body no adapter reads: counted, without usage
        if api in _DECODED:
            with contextlib.suppress(HarnessError):
                decoded = decode_recorded_response(api, response)
        usage = Usage()
        if isinstance(decoded, LLMResponse):
            tools += len(decoded.tool_calls)
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
