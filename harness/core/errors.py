"""The one error hierarchy of harness.

```
HarnessError
 ├── ConfigurationError      bad settings, missing keys, unknown tool names
 ├── ProviderError           a model provider failed (HTTP status, SDK error, script ran out)
 ├── ToolError               a tool refused its input; becomes an error observation
 ├── ApprovalError           an approval cannot be created or resumed (fail closed)
 ├── CassetteError           a cassette is missing, corrupt, or a request is not in it
 └── TraceAssertionError     a trace did not have the expected shape (also AssertionError)
```

Every message says what was wrong and what to do about it. Third-party errors
(SDKs, vcrpy, OS) are translated into these where they enter harness.
"""

from __future__ import annotations

__all__ = [
    "ApprovalError",
    "CassetteError",
    "ConfigurationError",
    "HarnessError",
    "ProviderError",
    "ToolError",
    "TraceAssertionError",
]


class HarnessError(Exception):
    """Root of every error harness raises on purpose."""


class ConfigurationError(HarnessError):
    """A setting is missing or invalid; the message names the variable and the fix."""


class ProviderError(HarnessError):
    """A model provider could not produce a response.

    Attributes:
        status_code: HTTP status when the provider answered with an error, else None.
        provider: provider name, when known.
    """

    def __init__(
        self, message: str, *, status_code: int | None = None, provider: str | None = None
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.provider = provider


class ToolError(HarnessError):
    """A tool refused its input. The loop turns it into an error observation.

    Attributes:
        error_type: short machine-readable tag (e.g. ``path_outside_workdir``).
    """

    def __init__(self, message: str, *, error_type: str = "tool_error") -> None:
        super().__init__(message)
        self.error_type = error_type


class ApprovalError(HarnessError):
    """An approval could not be created, found or resumed; nothing was executed."""


class CassetteError(HarnessError):
    """A cassette is missing, unreadable, or does not hold the request being replayed."""


class TraceAssertionError(HarnessError, AssertionError):
    """A trace did not match the expected shape; the message holds a readable diff."""
