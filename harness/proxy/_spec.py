"""``ProxySpec``: everything one proxy run is told, as a value a child process can read.

``harness proxy`` builds it from its flags; the ``llm_proxy`` fixture writes it
to a JSON file for the proxy process it starts. Validated on read, so a bad
spec is one clear error before anything listens.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.core.errors import ConfigurationError
from harness.core.urls import is_loopback_host
from harness.core.wires import ready_wires
from harness.recording import RecordMode

__all__ = ["ANY_WIRE", "ProxySpec", "parse_upstreams"]

ANY_WIRE = "*"
SPEC_VERSION = 1


class ProxySpec(BaseModel):
    """One proxy run.

    Attributes:
        cassette: the cassette file it replays from and records to.
        record_mode: as ``llm_cassette``'s (``none`` only replays).
        upstreams: where requests are forwarded while recording, by wire name
            (``*``: every wire); empty: never forward.
        host, port: where it listens (loopback; port 0 picks a free one).
        profiles: per-run values to pin (``codex``, ``claude-code``).
        ignore_body_fields, ignore_query_params: matching ignores, as ``llm_cassette``'s.
        normalize: ``(regex, placeholder)`` text rules of the test's own.
        allow_unplayed: whether interactions left unplayed are fine when it stops.
        save_error_responses: also record 4xx/5xx answers.
        rerecord_hint: the command that re-records, shown in a miss report.
        mutant: the id of the mutant to serve (by the fixture's child only).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: int = SPEC_VERSION
    cassette: Path
    record_mode: RecordMode = RecordMode.NONE
    upstreams: dict[str, str] = Field(default_factory=dict)
    host: str = "127.0.0.1"
    port: int = Field(default=0, ge=0, le=65535)
    profiles: tuple[str, ...] = ()
    ignore_body_fields: tuple[str, ...] = ()
    ignore_query_params: tuple[str, ...] = ()
    normalize: tuple[tuple[str, str], ...] = ()
    allow_unplayed: bool = True
    save_error_responses: bool = False
    rerecord_hint: str | None = None
    mutant: str | None = None

    @field_validator("host")
    @classmethod
    def _check_host(cls, value: str) -> str:
        # 0.0.0.0 and :: name this machine when dialled, but bound they listen everywhere.
        if value.strip("[]") in ("0.0.0.0", "::") or not is_loopback_host(value):
            raise ValueError(
                f"host {value!r} is not a loopback address: the proxy answers from a cassette "
                "and forwards with the caller's keys, so it listens on 127.0.0.1 only"
            )
        return value

    @field_validator("upstreams")
    @classmethod
    def _check_upstreams(cls, value: dict[str, str]) -> dict[str, str]:
        known = {w.name for w in ready_wires()} | {ANY_WIRE}
        for name, url in value.items():
            if name not in known:
                raise ValueError(f"no wire {name!r}; known: {', '.join(sorted(known))}")
            parts = urlsplit(url)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise ValueError(
                    f"upstream {url!r} is not an http(s) URL; use e.g. http://127.0.0.1:8765"
                )
        return value


def parse_upstreams(values: list[str]) -> dict[str, str]:
    """``--upstream URL`` (every wire) and ``--upstream WIRE=URL`` as a dict by wire.

    Raises:
        ConfigurationError: a value that is neither (named in the message).
    """
    upstreams: dict[str, str] = {}
    for value in values:
        name, sep, url = value.partition("=")
        if sep and "://" not in name:
            upstreams[name.strip()] = url.strip()
        else:
            upstreams[ANY_WIRE] = value.strip()
    for url in upstreams.values():
        if "://" not in url:
            raise ConfigurationError(
                f"--upstream {url!r} has no scheme: use http://{url} (or WIRE=URL for one wire)"
            )
    return upstreams
