"""Providers that run the real SDKs through a per-test cassette."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness._speed.tls import offline_clients
from harness.core.errors import ConfigurationError
from harness.core.wire_parts import load_part
from harness.core.wires import runtime_wires, wire
from harness.providers import LLMProvider

__all__ = [
    "DEFAULT_MODELS",
    "RECORDED_PROVIDERS",
    "RecordedProvider",
    "cassette_path",
    "recorded_provider",
    "shape_path",
]

# The model each runtime wire of the registry records and replays by default
# (tests/testing/cassettes/test_recorded_providers.py: one for every runtime wire).
DEFAULT_MODELS = {w.name: str(w.recorded_model) for w in runtime_wires()}
# Every provider the committed evals and cases run on: the registry's runtime wires.
RECORDED_PROVIDERS = tuple(w.name for w in runtime_wires())
_KEY_VARIABLES = {name: wire(name).key_env for name in DEFAULT_MODELS}
# What each provider's SDK client asks for (a harness adapter sends nothing else).
_SDK_ENDPOINTS = {name: wire(name).path_suffixes for name in DEFAULT_MODELS}
# Replayed requests never leave the process, but the SDKs insist on a key.
_REPLAY_KEY = "harness-replay-placeholder"
_SIMULATOR_KEY = "harness-simulator-placeholder"


def _safe(part: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.=-]+", "_", part).strip("_") or "_"


def cassette_path(
    cassette_dir: Path, provider: str, model: str, test_file: str, test_name: str
) -> Path:
    """``<dir>/<provider>/<model>/<test file without .py>/<test name>.yaml``."""
    relative = Path(test_file).with_suffix("")
    return cassette_dir / _safe(provider) / _safe(model) / relative / f"{_safe(test_name)}.yaml"


def shape_path(shapes_dir: Path, provider: str, model: str, test_name: str) -> Path:
    """``evals/shapes/<provider>/<model>/<test>.txt``."""
    return shapes_dir / _safe(provider) / _safe(model) / f"{_safe(test_name)}.txt"


@dataclass(frozen=True, slots=True)
class RecordedProvider:
    """A provider bound to a cassette, and what the cassette did."""

    provider: LLMProvider
    name: str
    model: str
    cassette: Path
    handle: Any


@contextmanager
def recorded_provider(
    name: str,
    *,
    model: str | None,
    cassette: Path,
    record_mode: str = "none",
    base_url: str | None = None,
    rerecord_hint: str | Callable[[], str] | None = None,
    allow_unplayed: bool = True,
    ignore_query_params: tuple[str, ...] = (),
    save_error_responses: bool = False,
    stream: bool = False,
) -> Iterator[RecordedProvider]:
    """Yield a provider of a runtime wire whose HTTP goes through ``cassette``.

    In mode ``none`` nothing leaves the process. Recording needs either a key
    (the wire's key variable, e.g. ``OPENAI_API_KEY``) or ``base_url`` pointing at the
    simulator. ``stream`` makes the provider stream (SSE); 4xx/5xx answers are
    saved only with ``save_error_responses``.
    """
    from harness.recording import use_cassette

    if name not in _KEY_VARIABLES:
        known = ", ".join(_KEY_VARIABLES)
        raise ConfigurationError(f"provider {name!r} cannot be recorded; use one of {known}")
    model = model or DEFAULT_MODELS[name]
    replay = record_mode == "none"
    key = _api_key(name, replay=replay, base_url=base_url)
    metadata = {"provider": name, "model": model}
    with use_cassette(
        cassette,
        record_mode=record_mode,
        metadata=metadata,
        rerecord_hint=rerecord_hint,
        allow_unplayed=allow_unplayed,
        ignore_query_params=ignore_query_params,
        save_error_responses=save_error_responses,
        # A replay patches only the SDK's own HTTP library (the guard refuses the rest),
        # unless the file holds requests off its endpoints: another library's traffic.
        intercept=_sdk_http_library(name) if replay else None,
        intercept_paths=_SDK_ENDPOINTS[name],
    ) as handle:
        with offline_clients() if replay else nullcontext():
            provider = _build(
                name,
                model,
                key,
                None if replay else base_url,
                retries=0 if replay else 2,
                stream=stream,
            )
        try:
            yield RecordedProvider(provider, name, model, cassette, handle)
        finally:
            close = getattr(provider, "close", None)
            if callable(close):
                close()


@functools.cache  # the SDK's classes do not change within a process
def _sdk_http_library(name: str) -> tuple[str, ...] | None:
    """The vcrpy patcher name of the HTTP library ``name``'s SDK client is built on,
    as the wire's adapter (its provider part) says; None patches everything."""
    library: tuple[str, ...] | None = load_part(name, "provider").http_library()
    return library


def _api_key(name: str, *, replay: bool, base_url: str | None) -> str:
    variables = _KEY_VARIABLES[name]
    if replay:
        return _REPLAY_KEY
    key = next((os.environ[v] for v in variables if os.environ.get(v)), None)
    if base_url:
        return key or _SIMULATOR_KEY
    if not key:
        raise ConfigurationError(
            f"recording {name} needs {variables[0]} (or --harness-base-url pointing at the "
            "harness simulator); replay with --record-mode none needs no key"
        )
    return key


def _build(
    name: str, model: str, key: str, base_url: str | None, *, retries: int, stream: bool = False
) -> LLMProvider:
    entry = wire(name)
    # A simulator root gets the path the SDK's base URL carries (the openai client's /v1).
    prefix = entry.simulator_base_path
    if base_url and prefix and not base_url.rstrip("/").endswith(prefix):
        base_url = base_url.rstrip("/") + prefix
    # The wire's SDK adapter, from its package by the registry's dotted path.
    adapter: Callable[..., LLMProvider] = load_part(entry, "provider")
    return adapter(model, api_key=key, base_url=base_url, max_retries=retries, stream=stream)
