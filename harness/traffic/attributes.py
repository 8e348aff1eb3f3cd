"""The attributes of ``llm.call`` and ``tool.call`` spans built outside harness's runtime.

The traffic trace and the framework adapters describe model and tool calls
with harness's own attribute names and hashes (``tool_call_id``,
``argument_hash``, ``observation_chars``, ``input_tokens``, ...), so a query or
an outline with attributes reads every kind of trace alike. Text is described
by hash and length; the text itself only goes into replay-mode payloads.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harness.core import ConfigurationError
from harness.settings import env_value
from harness.tracing import (
    DEFAULT_MAX_PAYLOAD_CHARS,
    TraceMode,
    parse_trace_mode,
    redact,
    truncate,
)
from harness.traffic.wire import STABLE_JSON, TokenUsage, ToolAsk, digest

__all__ = [
    "arguments_value",
    "asked_calls",
    "capture_mode",
    "payload_limit",
    "payload_value",
    "tool_call_attributes",
    "usage_attributes",
]


def capture_mode(mode: TraceMode | None) -> TraceMode:
    """``mode``, else ``HARNESS_TRACE_MODE``, else metadata (``off`` reads as metadata:
    a trace asked for is always built).

    Raises:
        ConfigurationError: not one of off, metadata, replay.
    """
    chosen = parse_trace_mode(mode or env_value("trace_mode") or "metadata")
    return "metadata" if chosen == "off" else chosen


def payload_limit(given: int | None) -> int:
    """``given``, else ``HARNESS_TRACE_MAX_PAYLOAD_CHARS``, else 4000.

    Raises:
        ConfigurationError: the limit is not a whole number of at least 1.
    """
    raw: Any = given if given is not None else env_value("trace_max_payload_chars")
    if raw is None or raw == "":
        return DEFAULT_MAX_PAYLOAD_CHARS
    try:
        limit = int(raw)
    except (TypeError, ValueError):
        limit = 0
    if limit < 1:
        raise ConfigurationError(
            f"max payload chars must be a whole number of at least 1, got {raw!r} "
            "(HARNESS_TRACE_MAX_PAYLOAD_CHARS); unset it for the default of "
            f"{DEFAULT_MAX_PAYLOAD_CHARS}"
        )
    return limit


def arguments_value(text: str) -> Any:
    """Tool arguments as sent (JSON text) parsed, or the text when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def _encoded(text: str) -> str:
    # As harness's executor hashes arguments: the parsed object as stable JSON.
    value = arguments_value(text)
    return STABLE_JSON(value) if isinstance(value, dict) else text


def payload_value(value: Any, limit: int) -> Any:
    """``value`` redacted and truncated for a replay-mode payload."""
    return truncate(redact(value), limit)


def usage_attributes(usage: TokenUsage) -> dict[str, Any]:
    """Token counts under harness's names; ``reasoning_tokens`` only when known."""
    attributes: dict[str, Any] = {
        "input_tokens": usage.input,
        "output_tokens": usage.output,
        "cached_input_tokens": usage.cached_input,
        "cache_write_input_tokens": usage.cache_write_input,
    }
    if usage.reasoning is not None:
        attributes["reasoning_tokens"] = usage.reasoning
    return attributes


def asked_calls(asks: Sequence[ToolAsk], *, limit: int | None) -> list[dict[str, Any]]:
    """The ``tool_calls`` attribute of an ``llm.call``: id, name, argument size and hash
    (and the arguments themselves when ``limit`` is given, i.e. in replay mode)."""
    calls = []
    for ask in asks:
        encoded = _encoded(ask.arguments)
        entry: dict[str, Any] = {
            "id": ask.call_id,
            "name": ask.name,
            "argument_chars": len(encoded),
            "argument_hash": digest(encoded),
        }
        if limit is not None:
            entry["arguments"] = payload_value(arguments_value(ask.arguments), limit)
        calls.append(entry)
    return calls


def tool_call_attributes(
    ask: ToolAsk, index: int, result: str | None, is_error: bool | None
) -> dict[str, Any]:
    """A ``tool.call``'s attributes, as harness's executor writes them.

    Args:
        ask: the call (id, tool name, arguments as JSON text).
        index: its position among the calls of one model answer.
        result: the result text sent back, None when none was.
        is_error: the error flag, None where the source has none.
    """
    encoded = _encoded(ask.arguments)
    arguments = arguments_value(ask.arguments)
    attributes: dict[str, Any] = {
        "tool_call_id": ask.call_id,
        "tool_name": ask.name,
        "tool_call_index": index,
        "argument_hash": digest(encoded),
        "argument_keys": sorted(arguments) if isinstance(arguments, dict) else [],
        "argument_chars": len(encoded),
    }
    if result is not None:
        attributes["observation_hash"] = digest(result)
        attributes["observation_chars"] = len(result)
        attributes["status"] = "error" if is_error else "completed"
    if is_error is not None:
        attributes["is_error"] = is_error
    return attributes
