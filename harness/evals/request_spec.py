"""A case's ``request:`` block: what every model request of its run must carry.

::

    request:
      model: gpt-4.1-mini
      effort: low                 # null: the request states no effort
      temperature: 0
      system_sha256: 3f2a...      # sha256 of the system text (harness.testing.system_sha256)
      tools: [read, edit]         # names, or {name: parameters schema}
      tools_sha256: 9c1e...       # names and parameter schemas together
      stable_prefix: true         # each request starts with the one before it
      complete_history: true      # no turn dropped between requests

Only the keys given are checked (``effort: null`` checks that none is sent);
the run's requests are checked after it by ``harness.testing.assertions.request_checks``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = ["RequestSpec"]

_SHA256 = r"^[0-9a-fA-F]{64}$"


class RequestSpec(BaseModel):
    """The request checks of a case; a key left out is not checked."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str | None = Field(default=None, min_length=1)
    effort: str | None = None
    temperature: float | None = None
    system_sha256: str | None = Field(default=None, pattern=_SHA256)
    tools: tuple[str, ...] | dict[str, Any] | None = None
    tools_sha256: str | None = Field(default=None, pattern=_SHA256)
    stable_prefix: bool = False
    complete_history: bool = False

    @model_validator(mode="after")
    def _checks_something(self) -> RequestSpec:
        stated = {"model", "effort", "temperature"} & self.model_fields_set
        pinned = (self.system_sha256, self.tools, self.tools_sha256)
        if not (stated or any(p is not None for p in pinned) or self.stable_prefix) and not (
            self.complete_history
        ):
            raise ValueError(
                "an empty request block checks nothing: give model, effort, temperature, "
                "system_sha256, tools, tools_sha256, stable_prefix or complete_history"
            )
        return self
