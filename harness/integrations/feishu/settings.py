"""FeishuSettings: the Feishu app's credentials and the adapter's knobs, from ``FEISHU_*``."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, SecretStr, ValidationError, field_validator

from harness.core.errors import ConfigurationError

__all__ = ["DEFAULT_FEISHU_PATH", "FeishuSettings"]

DEFAULT_FEISHU_PATH = "/api/events/feishu"

_ENV = {
    "FEISHU_APP_ID": "app_id",
    "FEISHU_APP_SECRET": "app_secret",
    "FEISHU_VERIFICATION_TOKEN": "verification_token",
    "FEISHU_ENCRYPT_KEY": "encrypt_key",
    "FEISHU_BASE_URL": "base_url",
    "HARNESS_FEISHU_APPROVERS": "approvers",
    "HARNESS_FEISHU_PATH": "path",
}
_FIELD_TO_ENV = {field: env for env, field in _ENV.items()}
_PATH = re.compile(r"^/[A-Za-z0-9_./-]*$")


class FeishuSettings(BaseModel):
    """Configuration of the Feishu adapter; secrets are ``SecretStr`` so they never print.

    ``approvers`` are the open_ids allowed to decide approvals
    (``HARNESS_FEISHU_APPROVERS``, comma-separated). An empty set means nobody
    may: every ``/approve`` and ``/reject`` is refused (fail closed), and
    approvals are then decided with ``harness approve`` on the server.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    app_id: str = ""
    app_secret: SecretStr = SecretStr("")
    verification_token: SecretStr = SecretStr("")
    encrypt_key: SecretStr = SecretStr("")
    base_url: str | None = None
    approvers: frozenset[str] = frozenset()
    path: str = DEFAULT_FEISHU_PATH

    @field_validator("approvers", mode="before")
    @classmethod
    def _approvers(cls, value: Any) -> Any:
        if isinstance(value, str):
            return frozenset(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("path")
    @classmethod
    def _path(cls, value: str) -> str:
        if not _PATH.match(value) or value == "/health" or ".." in value:
            raise ValueError("must be a URL path such as /api/events/feishu (not /health)")
        return value

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> FeishuSettings:
        """Read the ``FEISHU_*`` variables; bad values raise ``ConfigurationError``."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for variable, field in _ENV.items():
            raw = env.get(variable)
            if raw is not None and raw.strip():
                values[field] = raw.strip()
        values.update({key: value for key, value in overrides.items() if value is not None})
        try:
            return cls(**values)
        except ValidationError as exc:
            problems = [
                f"{_FIELD_TO_ENV.get(str(error['loc'][0]), error['loc'][0])}: {error['msg']}"
                for error in exc.errors()
            ]
            raise ConfigurationError("invalid Feishu settings: " + "; ".join(problems)) from None

    def require(self, *, webhook: bool) -> None:
        """Fail with every missing variable named: the app credentials, and for
        the HTTP webhook also the verification token (without it anyone could
        post events that run the agent)."""
        missing = [
            name
            for name, present in (
                ("FEISHU_APP_ID", bool(self.app_id)),
                ("FEISHU_APP_SECRET", bool(self.app_secret.get_secret_value())),
                ("FEISHU_VERIFICATION_TOKEN", bool(self.verification_token.get_secret_value())),
            )
            if not present and (webhook or name != "FEISHU_VERIFICATION_TOKEN")
        ]
        if missing:
            raise ConfigurationError(
                f"the Feishu adapter needs {', '.join(missing)}; copy them from the app's "
                "page in the Feishu developer console"
            )
