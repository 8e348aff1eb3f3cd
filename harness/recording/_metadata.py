"""The ``harness:`` block that every cassette written by harness carries.

vcrpy reads only ``version`` and ``interactions`` (and its own ``metadata``), so
plain vcrpy ignores this block and still replays the file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field

from harness.core.urls import strip_userinfo
from harness.version import __version__

__all__ = ["METADATA_KEY", "SIMULATOR_HEADER", "CassetteMetadata", "describe_recording"]

METADATA_KEY = "harness"
# The simulator (``harness.simulator``) marks every answer with this header, so a
# recording made against it says so in its metadata.
SIMULATOR_HEADER = "x-harness-simulator"


class CassetteMetadata(BaseModel):
    """Where and when a cassette was recorded (schema version 1).

    ``ignore_body_fields``, ``ignore_query_params`` and ``interaction_count``
    describe the stored ``harness_match`` lines, which let a replay index the file
    without parsing it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: Literal[1] = 1
    provider: str | None = None
    model: str | None = None
    recorded_at: str
    harness_version: str
    recorded_against: str | None = None
    ignore_body_fields: tuple[str, ...] = ()
    interaction_count: int | None = None
    extra: dict[str, Any] = Field(default_factory=dict)
    ignore_query_params: tuple[str, ...] = ()


def _provider(path: str, host: str) -> str | None:
    if path.endswith((":generateContent", ":streamGenerateContent")):
        return "gemini"  # Gemini API and Vertex AI alike
    if path.endswith("/responses"):
        return "openai-responses"
    if path.endswith("/chat/completions") or "openai" in host:
        return "openai"
    if path.endswith("/messages") or "anthropic" in host:
        return "anthropic"
    return None


def _without_login(netloc: str | None) -> str | None:
    # A base URL's ``user:password@`` must never reach ``recorded_against``.
    return netloc.rsplit("@", 1)[-1] if netloc else netloc


def _joined(values: Sequence[str | None]) -> str | None:
    unique = sorted({value for value in values if value})
    return ", ".join(unique) or None


def describe_recording(
    requests: Sequence[tuple[str, Any]],
    simulated: bool,
    overrides: Mapping[str, Any] | None,
    ignore_body_fields: Sequence[str] = (),
    ignore_query_params: Sequence[str] = (),
    hosts: Sequence[str] | None = None,
) -> CassetteMetadata:
    """Metadata for interactions given as ``(uri, normalized request body)`` pairs.

    ``overrides`` (the caller's ``metadata=``) may set ``provider`` and ``model``;
    its other keys are kept under ``extra``. ``hosts`` (where the traffic really
    went) defaults to the hosts of the URIs.
    """
    extra = dict(overrides or {})
    parts = [urlsplit(strip_userinfo(uri)) for uri, _ in requests]
    where = [part.netloc for part in parts] if hosts is None else hosts
    joined = _joined([_without_login(host) for host in where])
    against = f"{joined} (harness simulator)" if joined and simulated else joined
    bodies = [body for _, body in requests]
    models = [body.get("model") if isinstance(body, dict) else None for body in bodies]
    provider = extra.pop("provider", None) or _joined(
        [_provider(part.path, part.netloc) for part in parts]
    )
    return CassetteMetadata(
        provider=provider,
        model=extra.pop("model", None)
        or _joined([m if isinstance(m, str) else None for m in models]),
        recorded_at=datetime.now(UTC).isoformat(timespec="seconds"),
        harness_version=__version__,
        recorded_against=against,
        ignore_body_fields=tuple(ignore_body_fields),
        extra=extra,
        ignore_query_params=tuple(ignore_query_params),
    )
