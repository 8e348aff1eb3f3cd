"""google-genai's exceptions translated into ``ProviderError``.

```
google.genai.errors.APIError (code, status, message)
 ├── ClientError (4xx)  -> ProviderError(status_code=code), hint by status
 └── ServerError (5xx)  -> ProviderError(status_code=code), retry hint
UnknownApiResponseError -> ProviderError(status_code=None)
a raw transport failure (httpx/httpx2) -> ProviderError(status_code=None), check base URL
```

An answer of the harness simulator (its ``x-harness-simulator`` header) says
so. The key never reaches a message: the caller's secrets are replaced and
anything shaped like a Google API key (``AIza...``) is masked too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

from harness.core.errors import ProviderError
from harness.core.urls import redact_userinfo

__all__ = ["gemini_provider_error"]

_GOOGLE_KEY: Final = re.compile(r"AIza[0-9A-Za-z_\-]{10,}")
_MIN_SECRET_CHARS: Final = 8
_HINTS: Final = {
    400: "the API rejected the request; check the model name and request parameters",
    401: "check GEMINI_API_KEY: the key is missing, wrong or revoked",
    403: "the key has no access to this model or project; check its permissions",
    404: "check the model name and the base URL (GOOGLE_GEMINI_BASE_URL)",
    429: "rate limited or out of quota; wait, lower concurrency, or raise max_retries",
}
_SIMULATOR_HINT: Final = (
    "the harness simulator answered from its scenario script; change the script or the "
    "request as the reason says"
)


def _redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        if len(secret) >= _MIN_SECRET_CHARS:
            text = text.replace(secret, "[redacted]")
    return _GOOGLE_KEY.sub("AIza[redacted]", text)


def _from_simulator(exc: Any) -> bool:
    headers = getattr(getattr(exc, "response", None), "headers", None)
    try:
        return headers is not None and headers.get("x-harness-simulator") is not None
    except AttributeError:  # aiohttp / requests responses have other header types
        return False


def gemini_provider_error(
    exc: BaseException, *, secrets: Iterable[str] = (), base_url: str | None = None
) -> ProviderError:
    """Translate a google-genai (or transport) exception into a ``ProviderError``."""
    from google.genai import errors

    if isinstance(exc, errors.APIError):
        status = int(exc.code) if isinstance(exc.code, int) else 500
        kind = f" ({exc.status})" if exc.status else ""
        simulator = _from_simulator(exc)
        who = "The harness simulator (as the Gemini API)" if simulator else "Gemini API"
        hint = (
            _SIMULATOR_HINT
            if simulator
            else _HINTS.get(
                status,
                "the provider had a server-side problem; retry later or raise max_retries"
                if status >= 500
                else "see the provider's message above",
            )
        )
        api_message = str(exc.message or "").rstrip(".")
        message = f"{who} returned HTTP {status}{kind}: {api_message}. Hint: {hint}."
        return ProviderError(_redact(message, secrets), status_code=status, provider="gemini")
    url = _request_url(exc) or base_url
    where = f" to {redact_userinfo(url)}" if url else ""
    message = (
        f"Gemini API call{where} failed: {type(exc).__name__}: {exc}. Hint: check the network, "
        "the base URL (base_url= or GOOGLE_GEMINI_BASE_URL) and the provider configuration."
    )
    return ProviderError(_redact(message, secrets), provider="gemini")


def _request_url(exc: BaseException) -> str | None:
    """The URL of the request an httpx/httpx2 error carries, if it carries one."""
    try:
        request = getattr(exc, "request", None)
    except RuntimeError:  # httpx raises this when the error has no request
        return None
    url = getattr(request, "url", None)
    return None if url is None else str(url)
