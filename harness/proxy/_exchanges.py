"""The proxy's exchanges as JSON, and back: how the ``llm_proxy`` fixture reads them.

The traffic trace, the eval row and ``tool_calls()`` of a test read the
exchanges its agent had, as the in-process cassette's ``(vcr request,
response dict)`` pairs. The proxy serves them on its control path; this module
is both ends of that. Only headers no credential travels in are kept
(``content-type``, API versions and betas); bodies go as base64.
"""

from __future__ import annotations

import base64
from typing import Any

from vcr.request import Request

__all__ = ["CONTROL_PREFIX", "exchange_from_json", "exchange_to_json"]

CONTROL_PREFIX = "/__harness__/"
_SAFE_HEADERS = frozenset(
    {"content-type", "accept", "anthropic-version", "anthropic-beta", "openai-beta"}
)


def _bytes(value: Any) -> bytes:
    if value is None:
        return b""
    return value if isinstance(value, bytes) else str(value).encode("utf-8")


def exchange_to_json(request: Any, response: dict[str, Any]) -> dict[str, Any]:
    """One ``(vcr request, response dict)`` pair as JSON."""
    headers = {
        str(name).lower(): str(value)
        for name, value in dict(request.headers).items()
        if str(name).lower() in _SAFE_HEADERS
    }
    body = response.get("body") or {}
    status = response.get("status") or {}
    return {
        "method": request.method,
        "uri": request.uri,
        "headers": headers,
        "body": base64.b64encode(_bytes(request.body)).decode("ascii"),
        "response": {
            "status": {"code": int(status.get("code", 200)), "message": status.get("message", "")},
            "headers": {
                str(k).lower(): v if isinstance(v, list) else [v]
                for k, v in (response.get("headers") or {}).items()
            },
            "body": base64.b64encode(_bytes(body.get("string"))).decode("ascii"),
        },
    }


def exchange_from_json(data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The ``(vcr request, response dict)`` pair of :func:`exchange_to_json`'s output."""
    request = Request(
        data["method"], data["uri"], base64.b64decode(data["body"]), dict(data["headers"])
    )
    answer = data["response"]
    response = {
        "status": answer["status"],
        "headers": answer["headers"],
        "body": {"string": base64.b64decode(answer["body"])},
    }
    return request, response
