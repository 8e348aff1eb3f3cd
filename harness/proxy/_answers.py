"""What the proxy sends back: a response dict written to the client, and its own errors.

Answers travel as vcrpy response dicts (``status``, ``headers`` as lists,
``body.string`` bytes), the form the cassette plays and records. The proxy's
own errors (a replay miss, nothing to forward to) are shaped as the wire's
error so the client's SDK shows the message: ``{"type": "error", "error":
{...}}`` reads as an Anthropic error and, through ``error.message``, as an
OpenAI one; Gemini's has a numeric ``code`` and a ``status``. They carry
``x-should-retry: false``, which the OpenAI and Anthropic SDKs obey, so a miss
is reported once instead of after a retry loop.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from harness.core.wires import wire_for_path

__all__ = ["MISS_STATUS", "error_response", "write_response"]

MISS_STATUS = 400
# Headers that describe one connection or one encoding of the body, not the answer.
_HOP = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection", "te"}
)


def error_response(path: str, kind: str, message: str, status: int = MISS_STATUS) -> dict[str, Any]:
    """The proxy's own error answer to a request for ``path``, in that wire's shape."""
    entry = wire_for_path(path.partition("?")[0])
    if entry is not None and entry.name == "gemini":
        payload: dict[str, Any] = {
            "error": {"code": status, "message": message, "status": "FAILED_PRECONDITION"}
        }
    else:
        payload = {"type": "error", "error": {"type": kind, "code": kind, "message": message}}
    return {
        "status": {"code": status, "message": "Harness Proxy Error"},
        "headers": {
            "content-type": ["application/json"],
            "x-should-retry": ["false"],
            "x-harness-proxy": [kind],
        },
        "body": {"string": json.dumps(payload, indent=2).encode("utf-8")},
    }


def _body(response: dict[str, Any]) -> bytes:
    body = (response.get("body") or {}).get("string")
    if body is None:
        return b""
    return body if isinstance(body, bytes) else str(body).encode("utf-8")


def write_response(handler: BaseHTTPRequestHandler, response: dict[str, Any]) -> int:
    """Send a whole response dict to the client; returns its status."""
    status = response.get("status") or {}
    code = int(status.get("code", 200))
    body = _body(response)
    handler.send_response(code, status.get("message") or None)
    for name, values in (response.get("headers") or {}).items():
        if name.lower() in _HOP:
            continue
        for value in values if isinstance(values, list) else [values]:
            handler.send_header(name, str(value))
    if handler.command != "HEAD" or body:
        handler.send_header("content-length", str(len(body)))
    handler.end_headers()
    if body and handler.command != "HEAD":
        handler.wfile.write(body)
    return code
