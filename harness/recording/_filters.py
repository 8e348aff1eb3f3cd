"""What of an HTTP exchange is worth keeping in a cassette, and in which form.

Headers are kept by allow-list: secrets (``authorization``, ``x-api-key``,
cookies, organisation/project ids) and noise (``x-stainless-*``, rate limits,
``cf-*``, dates, user agents) never reach the file, whether the interaction was
recorded now or loaded from a file that is saved again. Compressed bodies are
stored decoded (a body that cannot be decoded keeps its ``Content-Encoding``),
JSON bodies pretty-printed with credential fields redacted (form, multipart and
event-stream bodies have theirs redacted in place; a JSON response keeps the
name of the rendering that gives its recorded bytes back, see
:mod:`harness.recording._bodyform`), and 4xx/5xx answers
are dropped unless the caller wants them (a retried 429 would otherwise replay
its backoff, and a failed live call would replay as the answer).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from harness.recording._bodyform import FORM_KEY, INDENTED, exact_form
from harness.recording._encoding import decode_response
from harness.recording._metadata import SIMULATOR_HEADER
from harness.recording._redact import redact_body, redact_json, redact_text_body

__all__ = [
    "REQUEST_HEADERS",
    "RESPONSE_HEADERS",
    "keep_request_headers",
    "response_filter",
    "stored_body",
    "stored_response",
]

REQUEST_HEADERS = frozenset({"content-type", "anthropic-version", "anthropic-beta", "openai-beta"})
RESPONSE_HEADERS = frozenset({"content-type", "request-id", "x-request-id", SIMULATOR_HEADER})

_CLIENT_ERROR = 400


def keep_request_headers(headers: Mapping[str, Any]) -> dict[str, str]:
    """The request headers worth recording (none of them carries a secret)."""
    return {
        name.lower(): str(value)
        for name, value in headers.items()
        if name.lower() in REQUEST_HEADERS
    }


# Kept only while the body is still encoded (decode_response drops it otherwise).
_STILL_ENCODED = "content-encoding"


def _trim_response(response: dict[str, Any]) -> dict[str, Any]:
    headers = {
        name.lower(): list(values) if isinstance(values, list) else [values]
        for name, values in (response.get("headers") or {}).items()
        if name.lower() in RESPONSE_HEADERS or name.lower() == _STILL_ENCODED
    }
    # content-length is dropped too: stored bodies are decoded and re-indented.
    return {**response, "headers": headers}


def response_filter(
    save_error_responses: bool,
) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    """vcrpy ``before_record_response`` hook: decode, trim, maybe drop errors."""

    def keep(response: dict[str, Any]) -> dict[str, Any] | None:
        code = int(response["status"]["code"])
        if not save_error_responses and code >= _CLIENT_ERROR:
            return None
        return _trim_response(decode_response(response))

    return keep


def _text(body: bytes | str | None) -> bytes | str | None:
    if isinstance(body, bytes):
        try:
            return body.decode("utf-8")
        except UnicodeDecodeError:
            return body  # binary stays bytes; YAML stores it as !!binary
    return body


def stored_body(body: bytes | str | None, content_type: str) -> bytes | str | None:
    """A body as it is written: UTF-8 text, JSON indented for reading."""
    text = _text(body)
    if isinstance(text, bytes):
        return redact_body(text)  # binary: a multipart upload's credential parts
    if not isinstance(text, str) or not text:
        return text
    if "json" not in content_type and text[0] not in "{[":
        return redact_text_body(text)  # an event stream, a form, multipart, plain text
    try:
        return json.dumps(redact_json(json.loads(text)), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def stored_response(response: dict[str, Any]) -> dict[str, Any]:
    """A vcrpy response dict in the form written to the cassette (decoded, trimmed)."""
    response = _trim_response(decode_response(response))
    headers = response["headers"]
    content_type = next(
        (
            values[0]
            for name, values in headers.items()
            if name.lower() == "content-type" and values
        ),
        "",
    )
    status = response["status"]
    body = response["body"].get("string")
    return {
        "status": {"code": status["code"], "message": status.get("message") or ""},
        "headers": dict(headers),
        # A still-encoded body stays bytes (YAML !!binary), next to its Content-Encoding.
        "body": {"string": body}
        if _STILL_ENCODED in headers
        else _stored_response_body(body, content_type),
    }


def _stored_response_body(body: bytes | str | None, content_type: str) -> dict[str, Any]:
    """``{"string": ...}`` that replays the recorded bytes (see ``_bodyform``)."""
    stored = stored_body(body, content_type)
    text = _text(body)
    if not isinstance(stored, str) or not isinstance(text, str) or stored == text:
        return {"string": stored}
    try:
        value = json.loads(text)
    except ValueError:
        return {"string": stored}  # redacted in place (an event stream, a form)
    if redact_json(value) != value:
        return {"string": stored}  # a credential was taken out: it never replays
    form = exact_form(text, value)
    if form is not None:
        return {"string": stored, FORM_KEY: form}
    if INDENTED(value) == text:
        return {"string": stored}
    return {"string": text}  # no rendering gives these bytes back: kept verbatim
