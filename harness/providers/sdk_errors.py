"""Translate OpenAI and Anthropic SDK exceptions into ``ProviderError``.

Both SDKs share one exception shape; each maps to a ``ProviderError`` whose
message names the provider, the HTTP status, the provider's own error message
(and request id when the server sent one) and a hint on what to do:

```
openai.OpenAIError / anthropic.AnthropicError
 ├── APIStatusError (HTTP 4xx/5xx)   -> ProviderError(status_code=<HTTP status>)
 │     an Anthropic ``event: error`` inside a 200 stream maps its error type
 │     (overloaded_error -> 529, rate_limit_error -> 429, ...) to a status
 ├── APITimeoutError                 -> ProviderError(status_code=None), hint: raise timeout
 ├── APIConnectionError              -> ProviderError(status_code=None), hint: check base URL
 ├── APIError (OpenAI error object in a 200 stream) -> ProviderError(status_code=None)
 └── anything else                   -> ProviderError(status_code=None)
a raw transport failure (httpx2/httpcore2, or httpx/httpcore, error that the
SDK did not wrap: a stream dropped mid-way, or a second module copy)
                                      -> timeout or connection error, as above
```

An answer marked by the harness simulator (its ``x-harness-simulator`` header,
also kept in cassettes recorded from it) says so, with the simulator's own
reason and a hint to change the scenario script, not the model or the key.

Transport failures are recognised by the names and packages of their classes'
MRO, never by identity with the classes imported here. httpx2 imports httpcore2
lazily and caches its exception map at the first request; a tool that resets
``sys.modules`` in between (pytester's inline runs do, after each inner run)
leaves two copies of httpcore2 behind, and the errors of the new copy then pass
the SDK unwrapped, as classes no ``isinstance`` check here would know.

API keys never reach a message: the caller passes its key as a secret to be
redacted, and anything shaped like an ``sk-...`` key is masked as well, since
some servers echo the key they rejected. For the same reason the SDK exception
is chained as ``__cause__`` only when its own text is free of keys
(``chainable_cause``), so a logged traceback cannot leak one either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from harness.core.errors import ProviderError
from harness.core.urls import redact_userinfo
from harness.core.wires import wire

__all__ = [
    "anthropic_provider_error",
    "chainable_cause",
    "is_transport_error",
    "openai_provider_error",
]

_KEY_SHAPE = re.compile(r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_\-]{6,}")
_MAX_BODY_CHARS = 500
# The header every simulator answer carries (the wire's name, as in cassettes).
_SIMULATOR_HEADER = "x-harness-simulator"
# A "secret" this short is a test's dummy key ("x", "test"); replacing it would
# garble the message (when_e[redacted]hausted) and hide nothing.
_MIN_SECRET_CHARS = 8
_SIMULATOR_HINT = (
    "the harness simulator answered from its scenario script (a scripted error, no turn "
    "or rule left, or a request the real API would refuse too); change the script or the "
    "request as the reason says"
)

_TRANSPORT_PACKAGES = frozenset({"httpx", "httpx2", "httpcore", "httpcore2"})
# The transport branches both libraries share (httpcore has no common base class;
# httpx's is TransportError), and httpx's root, which the check here always took.
_TRANSPORT_BASES = frozenset(
    {"HTTPError", "TimeoutException", "NetworkError", "ProtocolError", "ProxyError"}
    | {"UnsupportedProtocol"}
)

# An error event inside a 200 stream carries only its type; map it to the HTTP
# status the same error gets when it arrives before the stream starts.
_ANTHROPIC_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}

_STATUS_HINTS = {
    400: "the provider rejected the request; check the model name and request parameters",
    401: "check {key_env}: the API key is missing, wrong or revoked",
    402: "the account has no credit left; check billing",
    403: "the API key has no access to this model or resource; check its permissions",
    404: "check the model name and the base URL ({base_url_env})",
    408: "the provider timed out; retry, or raise max_retries",
    409: "a transient conflict; retry, or raise max_retries",
    413: "the request is too large; shorten the conversation or send fewer tools",
    422: "the provider could not process the request; check the request parameters",
    429: "rate limited or out of quota; wait, lower concurrency, or raise max_retries",
}


@dataclass(frozen=True)
class _Provider:
    name: str
    label: str
    key_env: str
    base_url_env: str


def _from_registry(name: str, label: str) -> _Provider:
    entry = wire(name)
    return _Provider(name, label, entry.key_env[0], entry.base_url_env[0])


_OPENAI = _from_registry("openai", "OpenAI")
_ANTHROPIC = _from_registry("anthropic", "Anthropic")


def openai_provider_error(
    exc: BaseException, *, secrets: Iterable[str] = (), base_url: str | None = None
) -> ProviderError:
    """Translate an ``openai`` SDK (or transport) exception into a ``ProviderError``.

    Args:
        exc: the exception the SDK raised.
        secrets: strings (the API key) that must not appear in the message.
        base_url: the client's base URL, named when a raw transport error has no request.
    """
    import openai

    if isinstance(exc, openai.APIStatusError):
        body = exc.body
        kind = "/".join(part for part in (exc.type, exc.code) if part)
        return _status_error(
            _OPENAI,
            exc.status_code,
            api_message=_body_message(body) or exc.message,
            kind=kind,
            request_id=exc.request_id,
            secrets=secrets,
            simulator=_from_simulator(exc),
        )
    if isinstance(exc, openai.APITimeoutError) or _wraps_timeout(exc, openai.APIConnectionError):
        return _timeout_error(_OPENAI, secrets)
    if isinstance(exc, openai.APIConnectionError):
        return _connection_error(_OPENAI, str(exc.request.url), secrets)
    if isinstance(exc, openai.APIError):  # an error object inside a 200 stream
        kind = "/".join(part for part in (exc.type, exc.code) if part)
        return _stream_error(_OPENAI, exc.message, kind, secrets)
    return _other_error(_OPENAI, exc, secrets, base_url)


def anthropic_provider_error(
    exc: BaseException, *, secrets: Iterable[str] = (), base_url: str | None = None
) -> ProviderError:
    """Translate an ``anthropic`` SDK (or transport) exception into a ``ProviderError``.

    Args:
        exc: the exception the SDK raised.
        secrets: strings (the API key) that must not appear in the message.
        base_url: the client's base URL, named when a raw transport error has no request.
    """
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        error_type = str(exc.type) if exc.type else None
        status = exc.status_code
        if status < 400:
            status = _ANTHROPIC_TYPE_STATUS.get(error_type or "", 500)
        return _status_error(
            _ANTHROPIC,
            status,
            api_message=exc.api_message or _body_message(exc.body) or exc.message,
            kind=error_type or "",
            request_id=exc.request_id or _body_request_id(exc.body),
            secrets=secrets,
            simulator=_from_simulator(exc),
        )
    if isinstance(exc, anthropic.APITimeoutError) or _wraps_timeout(
        exc, anthropic.APIConnectionError
    ):
        return _timeout_error(_ANTHROPIC, secrets)
    if isinstance(exc, anthropic.APIConnectionError):
        return _connection_error(_ANTHROPIC, str(exc.request.url), secrets)
    return _other_error(_ANTHROPIC, exc, secrets, base_url)


def is_transport_error(exc: BaseException) -> bool:
    """Whether ``exc`` is an httpx/httpcore transport failure, from any module copy.

    The providers catch these next to the SDK's own errors: the SDK lets some
    through unwrapped (see the module docstring).
    """
    return _transport_kind(exc) is not None


def chainable_cause(exc: BaseException, *, secrets: Iterable[str] = ()) -> BaseException | None:
    """Return ``exc`` if its text is safe to show in a traceback, else None.

    Use as ``raise translated from chainable_cause(exc, secrets=...)``.
    """
    text = str(exc)
    if _redact(text, secrets) != text:
        return None
    return exc


def _from_simulator(exc: Any) -> bool:
    """Whether the error response came from ``harness sim`` (or a cassette of it)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers is not None and headers.get(_SIMULATOR_HEADER) is not None


def _status_error(
    provider: _Provider,
    status: int,
    *,
    api_message: str,
    kind: str,
    request_id: str | None,
    secrets: Iterable[str],
    simulator: bool = False,
) -> ProviderError:
    detail = f" ({kind})" if kind else ""
    request = f" [request id {request_id}]" if request_id else ""
    who = f"The harness simulator (as the {provider.label} API)" if simulator else None
    hint = _SIMULATOR_HINT if simulator else _hint(provider, status)
    message = (
        f"{who or provider.label + ' API'} returned HTTP {status}{detail}: "
        f"{api_message.rstrip('.')}.{request} Hint: {hint}."
    )
    return ProviderError(_redact(message, secrets), status_code=status, provider=provider.name)


def _hint(provider: _Provider, status: int) -> str:
    template = _STATUS_HINTS.get(status)
    if template is None:
        if status >= 500:
            return "the provider had a server-side problem; retry later or raise max_retries"
        return "see the provider's message above"
    return template.format(key_env=provider.key_env, base_url_env=provider.base_url_env)


def _stream_error(
    provider: _Provider, api_message: str, kind: str, secrets: Iterable[str]
) -> ProviderError:
    detail = f" ({kind})" if kind else ""
    message = (
        f"{provider.label} API reported an error inside the response stream{detail}: "
        f"{api_message.rstrip('.')}. Hint: retry the call; the SDK does not retry errors "
        "that arrive after the stream has started."
    )
    return ProviderError(_redact(message, secrets), provider=provider.name)


def _timeout_error(provider: _Provider, secrets: Iterable[str]) -> ProviderError:
    message = (
        f"{provider.label} API request timed out waiting for the provider's response. Hint: "
        "raise the provider's timeout= or max_retries, or retry later."
    )
    return ProviderError(_redact(message, secrets), provider=provider.name)


def _connection_error(provider: _Provider, url: str, secrets: Iterable[str]) -> ProviderError:
    url = redact_userinfo(url)
    message = (
        f"{provider.label} API connection to {url} failed: the request could not be sent or "
        "the response was cut off. Hint: check the network, proxy settings and the base URL "
        f"({provider.base_url_env} or base_url=)."
    )
    return ProviderError(_redact(message, secrets), provider=provider.name)


def _other_error(
    provider: _Provider, exc: BaseException, secrets: Iterable[str], base_url: str | None
) -> ProviderError:
    kind = _transport_kind(exc)
    if kind == "timeout":
        return _timeout_error(provider, secrets)
    if kind == "connection":
        return _connection_error(provider, _request_url(exc) or base_url or "the base URL", secrets)
    message = (
        f"{provider.label} API call failed: {type(exc).__name__}: {exc}. Hint: check the "
        "provider configuration; retry if the failure looks transient."
    )
    return ProviderError(_redact(message, secrets), provider=provider.name)


def _wraps_timeout(exc: BaseException, connection_error: type[BaseException]) -> bool:
    """An SDK connection error whose cause is a timeout the SDK did not recognise.

    The Anthropic SDK wraps any unknown exception as a connection error; a timeout
    of a second httpcore2 copy is one.
    """
    return isinstance(exc, connection_error) and (
        exc.__cause__ is not None and _transport_kind(exc.__cause__) == "timeout"
    )


def _transport_kind(exc: BaseException) -> str | None:
    """``"timeout"``, ``"connection"`` or None, judged by the MRO's names and packages."""
    kind = None
    for cls in type(exc).__mro__:
        if cls.__module__.partition(".")[0] not in _TRANSPORT_PACKAGES:
            continue
        if cls.__name__ == "TimeoutException":
            return "timeout"
        if cls.__name__ in _TRANSPORT_BASES:
            kind = "connection"
    return kind


def _request_url(exc: BaseException) -> str | None:
    """The URL of the request an httpx error carries; httpcore errors carry none."""
    try:
        request = getattr(exc, "request", None)
    except RuntimeError:  # httpx raises this when the error carries no request
        return None
    url = getattr(request, "url", None)
    return None if url is None else str(url)


def _body_message(body: object) -> str | None:
    """The ``message`` of an error body (``{"error": {...}}`` or the inner object)."""
    if isinstance(body, dict):
        inner: Any = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        return None
    if isinstance(body, str) and body.strip():
        return body.strip()[:_MAX_BODY_CHARS]
    return None


def _body_request_id(body: object) -> str | None:
    if isinstance(body, dict) and isinstance(body.get("request_id"), str):
        return str(body["request_id"])
    return None


def _redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if len(secret) >= _MIN_SECRET_CHARS:
            text = text.replace(secret, "[redacted]")
    return _KEY_SHAPE.sub("sk-[redacted]", text)
