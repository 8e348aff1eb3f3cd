"""Errors of the recording layer and how they cross the SDKs unharmed.

```
CassetteError (harness.core)
 ├── UnmatchedRequestError   replay: the request is not in the cassette (with a diff)
 └── NetworkBlockedError     replay: something tried to open a non-loopback socket
```

The SDKs call vcrpy's transport patch, so an error raised there must travel back
through the SDK. The OpenAI SDK lets unknown exceptions through, but the Anthropic
SDK wraps any transport exception into ``APIConnectionError`` and retries it with
a backoff sleep. :func:`passthrough` therefore gives the raised instance a class
that also derives from ``anthropic.AnthropicError`` (only when that SDK is already
imported), which that SDK re-raises unwrapped and never retries.
"""

from __future__ import annotations

import sys

from harness.core.errors import CassetteError

__all__ = [
    "NetworkBlockedError",
    "UnmatchedRequestError",
    "passthrough",
    "unwrap_cassette_error",
]


class UnmatchedRequestError(CassetteError):
    """A replayed request matched no unplayed interaction of the cassette.

    Attributes:
        cassette_path: the cassette that was searched.
        method: HTTP method of the request.
        path: URL path (and query) of the request.
        host: ``host[:port]`` the request went to (matching ignores it; the report names it).
    """

    def __init__(
        self, message: str, *, cassette_path: str, method: str, path: str, host: str = ""
    ) -> None:
        super().__init__(message)
        self.cassette_path = cassette_path
        self.method = method
        self.path = path
        self.host = host


class NetworkBlockedError(CassetteError):
    """A socket to a non-loopback address was about to open while replaying."""


def unwrap_cassette_error(exc: BaseException | None) -> CassetteError | None:
    """Return the :class:`CassetteError` behind ``exc``, if any.

    SDKs and providers may wrap transport errors (``APIConnectionError``,
    ``ProviderError``); this walks ``__cause__`` and ``__context__`` to find it.
    """
    seen: set[int] = set()
    pending: list[BaseException] = [] if exc is None else [exc]
    while pending:
        current = pending.pop(0)
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, CassetteError):
            return current
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


def passthrough(error: CassetteError) -> CassetteError:
    """Return ``error`` re-classed so that loaded SDKs neither wrap nor retry it."""
    anthropic = sys.modules.get("anthropic")
    base = getattr(anthropic, "AnthropicError", None)
    if isinstance(base, type) and not isinstance(error, base):
        error.__class__ = _with_base(type(error), base)
    return error


_MIXED: dict[tuple[type, type], type[CassetteError]] = {}


def _with_base(cls: type[CassetteError], base: type) -> type[CassetteError]:
    mixed = _MIXED.get((cls, base))
    if mixed is None:
        # Same name and module, so tracebacks still read "UnmatchedRequestError".
        namespace = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        mixed = _MIXED.setdefault((cls, base), type(cls.__name__, (cls, base), namespace))
    return mixed
