"""The exchanges of a cassette session as ``HttpExchange`` values for the traffic trace.

Request headers are kept by the cassette's allow-list, so no credential ever
reaches a trace; response bodies are the decoded bytes the code under test read.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

from harness.recording import is_telemetry

__all__ = ["http_exchanges", "traffic_module"]

_SAFE_REQUEST_HEADERS = frozenset({"content-type", "anthropic-version", "anthropic-beta", "accept"})


def _bytes(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8")


def _response_headers(response: dict[str, Any]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for name, values in (response.get("headers") or {}).items():
        listed = values if isinstance(values, list) else [values]
        headers[str(name).lower()] = ", ".join(str(v) for v in listed)
    return headers


def traffic_module() -> ModuleType:
    """``harness.traffic`` (``HttpExchange``, ``trace_from_exchanges``).

    Imported by name when a traffic trace is first asked for: it builds on the
    tracing package, which a replay that never looks at its trace need not load.
    """
    return importlib.import_module("harness.traffic")


def http_exchanges(pairs: Sequence[tuple[Any, dict[str, Any]]]) -> list[Any]:
    """``HttpExchange`` values for ``(vcr request, response dict)`` pairs, telemetry dropped."""
    exchange = traffic_module().HttpExchange
    exchanges = []
    for request, response in pairs:
        if is_telemetry(request.uri):
            continue
        headers = {
            name.lower(): str(value)
            for name, value in dict(request.headers).items()
            if name.lower() in _SAFE_REQUEST_HEADERS
        }
        body = response.get("body") or {}
        exchanges.append(
            exchange(
                method=request.method,
                url=request.uri,
                request_headers=headers,
                request_body=_bytes(request.body),
                status=int((response.get("status") or {}).get("code", 200)),
                response_headers=_response_headers(response),
                response_body=_bytes(body.get("string") if isinstance(body, dict) else body),
            )
        )
    return exchanges
