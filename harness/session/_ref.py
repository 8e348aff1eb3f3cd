"""The identity of a conversation: where its memory, traces and approvals live."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, field_validator

__all__ = ["SESSION_KEY_PATTERN", "SessionRef"]

# Keys become folder names under state_dir/sessions, so they must never hold a
# path separator or start with a dot.
SESSION_KEY_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,249}$")


class SessionRef(BaseModel):
    """A session: ``key`` names its folder; ``source`` says who opened it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str
    source: str = "cli"
    external_id: str | None = None
    workdir: Path | None = None
    display_name: str | None = None

    @field_validator("key")
    @classmethod
    def _check_key(cls, value: str) -> str:
        if not SESSION_KEY_PATTERN.match(value) or ".." in value:
            raise ValueError(
                f"session key {value!r} is not allowed: use letters, digits and _ . : - "
                "(at most 250 characters, not starting with a dot, no '..')"
            )
        return value

    @property
    def label(self) -> str:
        return self.display_name or self.key
