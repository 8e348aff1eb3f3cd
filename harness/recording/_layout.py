"""The stored request and response of one interaction, type-checked field by field.

Replay hands these dicts to vcrpy's httpx stub, which indexes and calls methods
on them without asking: a hand-edited or hostile file would otherwise surface
as a raw ``TypeError`` deep inside an SDK call. Every field replay reads is
checked here, and a wrong one is a :class:`CassetteError` naming the file, the
interaction and the field.

Two response layouts are read, as vcrpy reads them: the current one
(``status: {code, message}``, ``headers``, ``body: {string}``) and the one
older vcrpy httpx stubs wrote (``status_code``, ``headers``,
``content``), which is converted to the current one with its body decoded
(vcrpy decodes gzip/deflate there; harness also br/zstd, and drops a stale
``Content-Encoding`` on a body that stub had stored decoded already).

pydantic-ai's test serializer stores a JSON body as the parsed structure under
``parsed_body`` instead of ``body`` (keys sorted, strings NFKC-normalised);
such a body is read back as the JSON text of that structure, as pydantic-ai's
own replay does, and the response loses the wire ``Content-Length`` and
``Content-Encoding``, which described the original bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.core.errors import CassetteError
from harness.recording._bodyform import FORM_KEY, render_form
from harness.recording._encoding import decode_response, encodings_of

__all__ = ["check_request", "check_response"]

_REQUEST_LAYOUT = "request: {method, uri, body, headers}"
_RESPONSE_LAYOUT = (
    "response: {status: {code, message}, headers, body: {string}} "
    "(or vcrpy's older httpx layout: {status_code, headers, content})"
)


def _malformed(path: Path, index: int, what: str, layout: str) -> CassetteError:
    return CassetteError(
        f"cassette {path}, interaction {index}: {what}. vcrpy's layout is {layout}. "
        "Fix the file by hand, or delete it and record it again."
    )


def _headers(path: Path, index: int, part: str, value: Any, layout: str) -> dict[str, list[Any]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        what = f"{part} headers are a {type(value).__name__}, not a mapping"
        raise _malformed(path, index, what, layout)
    headers: dict[str, list[Any]] = {}
    for name, values in value.items():
        listed = values if isinstance(values, list) else [values]
        if not isinstance(name, str) or not all(
            isinstance(v, (str, bytes, int)) and not isinstance(v, bool) for v in listed
        ):
            what = f"{part} header {name!r} has a value that is not text: {values!r:.80}"
            raise _malformed(path, index, what, layout)
        headers[name] = [v if isinstance(v, (str, bytes)) else str(v) for v in listed]
    return headers


def _body_text(path: Path, index: int, what: str, value: Any, layout: str) -> Any:
    if value is None or isinstance(value, (str, bytes)):
        return value
    raise _malformed(path, index, f"{what} is a {type(value).__name__}, not text", layout)


def check_request(path: Path, index: int, request: Any) -> dict[str, Any]:
    """A stored request dict with every field replay reads of the right type."""
    layout = _REQUEST_LAYOUT
    if not isinstance(request, dict):
        raise _malformed(path, index, "it has no request mapping", layout)
    for name in ("method", "uri"):
        if not isinstance(request.get(name), str):
            found = "missing" if name not in request else type(request[name]).__name__
            raise _malformed(path, index, f"request {name} is {found}, not a string", layout)
    if "body" not in request and "parsed_body" in request:
        request = {**_without(request, "parsed_body"), "body": _parsed(request["parsed_body"])}
    if "body" not in request:
        raise _malformed(
            path, index, "the request has no 'body' key (write 'body: null' for none)", layout
        )
    _body_text(path, index, "the request body", request["body"], layout)
    headers = _headers(path, index, "request", request.get("headers"), layout)
    return {**request, "headers": headers}


def _parsed(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _without(mapping: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if k != key}


def _from_parsed_body(response: dict[str, Any]) -> dict[str, Any]:
    """pydantic-ai's layout: the body is the JSON of ``parsed_body``, its wire headers stale."""
    headers = response.get("headers")
    if isinstance(headers, Mapping):
        stale = ("content-length", "content-encoding", "transfer-encoding")
        headers = {k: v for k, v in headers.items() if str(k).lower() not in stale}
    body = {"string": _parsed(response["parsed_body"])}
    return {**_without(response, "parsed_body"), "headers": headers, "body": body}


def _older_layout(path: Path, index: int, response: dict[str, Any]) -> dict[str, Any]:
    code = response["status_code"]
    if not isinstance(code, int) or isinstance(code, bool):
        raise _malformed(path, index, f"status_code {code!r:.40} is not a number", _RESPONSE_LAYOUT)
    content = _body_text(path, index, "content", response.get("content"), _RESPONSE_LAYOUT)
    headers = _headers(path, index, "response", response.get("headers"), _RESPONSE_LAYOUT)
    body = content.encode("utf-8") if isinstance(content, str) else content
    # As vcrpy's httpx stub does for this layout: the body is decoded on reading.
    current = {
        "status": {"code": code, "message": ""},
        "headers": headers,
        "body": {"string": body},
    }
    decoded = decode_response(current)
    if encodings_of(decoded["headers"]):
        # That stub stored httpx's decoded ``content`` next to the original headers:
        # a body that does not decode is text already, and the header is stale.
        decoded["headers"] = {
            name: values
            for name, values in decoded["headers"].items()
            if name.lower() not in ("content-encoding", "content-length")
        }
    return decoded


def check_response(path: Path, index: int, response: Any) -> dict[str, Any]:
    """A stored response dict in the current layout, every field replay reads checked."""
    layout = _RESPONSE_LAYOUT
    if not isinstance(response, dict):
        raise _malformed(path, index, "it has no response mapping", layout)
    if "status_code" in response and "status" not in response:
        return _older_layout(path, index, response)
    if "body" not in response and "parsed_body" in response:
        response = _from_parsed_body(response)
    status = response.get("status")
    if not isinstance(status, dict):
        raise _malformed(path, index, "the response has no status mapping", layout)
    code, message = status.get("code"), status.get("message")
    if not isinstance(code, int) or isinstance(code, bool) or not 100 <= code <= 999:
        raise _malformed(path, index, f"status code {code!r:.40} is not an HTTP status", layout)
    if message is not None and not (isinstance(message, str) and message.isascii()):
        raise _malformed(path, index, f"status message {message!r:.40} is not ASCII text", layout)
    body = response.get("body")
    if not isinstance(body, dict) or "string" not in body:
        raise _malformed(path, index, "the response has no body mapping with 'string'", layout)
    _body_text(path, index, "the response body string", body["string"], layout)
    headers = _headers(path, index, "response", response.get("headers"), layout)
    if FORM_KEY in body:
        # Stored indented, replayed as the bytes that were recorded (see _bodyform).
        exact = (
            render_form(body["string"], body[FORM_KEY]) if isinstance(body["string"], str) else None
        )
        body = {"string": body["string"] if exact is None else exact}
        return {**response, "headers": headers, "body": body}
    return {**response, "headers": headers}
