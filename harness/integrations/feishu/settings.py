"""FeishuSettings: the Feishu app's credentials and the adapter's knobs, from ``FEISHU_*``."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import SettingsConfigDict

from harness.core.errors import ConfigurationError
from harness.settings import EnvironSettings, explain

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
# The environment ``from_env`` is reading; unset, a model takes only its arguments.
_PATH = re.compile(r"^/[A-Za-z0-9_./-]*$")


class FeishuSettings(EnvironSettings):
    """Configuration of the Feishu adapter; secrets are ``SecretStr`` so they never print.

    ``approvers`` are the open_ids allowed to decide approvals
    (``HARNESS_FEISHU_APPROVERS``, comma-separated). An empty set means nobody
    may: every ``/approve`` and ``/reject`` is refused (fail closed), and
    approvals are then decided with ``harness approve`` on the server.
    """

    model_config = SettingsConfigDict(frozen=True, extra="forbid", validate_default=False)

    app_id: str = Field(default="", description="the Feishu app's App ID")
    app_secret: SecretStr = Field(default=SecretStr(""), description="the app's App Secret")
    verification_token: SecretStr = Field(
        default=SecretStr(""), description="token Feishu signs webhook events with"
    )
    encrypt_key: SecretStr = Field(
        default=SecretStr(""), description="key of the app's encrypted events, if set there"
    )
    base_url: str | None = Field(
        default=None, description="Feishu's open API (a loopback double in tests)"
    )
    approvers: frozenset[str] = Field(
        default=frozenset(), description="comma-separated open_ids allowed to decide approvals"
    )
    path: str = Field(default=DEFAULT_FEISHU_PATH, description="URL path of the event webhook")

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
    def env_variables(cls) -> dict[str, str]:
        """Field -> the variable ``from_env`` reads it from."""
        return dict(_FIELD_TO_ENV)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> FeishuSettings:
        """``overrides`` (None ones skipped), then the variables, then ``./.env``.

        ``environ`` given stands for the whole environment (no ``./.env``). Bad values
        raise ``ConfigurationError`` naming the variable.
        """
        given = {key: value for key, value in overrides.items() if value is not None}
        try:
            with cls.reading(environ):
                return cls(**given)
        except ValidationError as exc:
            raise ConfigurationError(explain(exc, _FIELD_TO_ENV, "Feishu settings")) from None

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
