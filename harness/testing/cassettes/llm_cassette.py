"""``LLMCassette``: a per-test cassette around any agent code, and what it hands the test.

The test's model traffic (raw SDK clients, pydantic-ai, the OpenAI Agents SDK,
in-house code) goes through one harness cassette at
``<cassette dir>/<model>/<test file without .py>/<test name>.yaml``, with
``-stream`` for the streaming run of ``--harness-stream`` and
``[epoch-k]`` for epoch k's own recording, exactly as harness's own evals name
theirs. The model (:attr:`LLMCassette.model`) is ``--harness-model``, else the
test's ``@pytest.mark.llm_cassette(model=...)``; the test passes it to its agent,
so that recording on a new model writes a new file and never overwrites the
baseline. With neither, the path has no ``<model>`` part. A cassette recorded
before models were in the path still replays when the model comes from the
marker (not from ``--harness-model``), and the run says how to move it.

While the block is open the environment points the SDKs at
:meth:`LLMCassette.base_url` and, when replaying, gives them a dummy key.

The cassette holds all the test's HTTP: its model calls and its *tool traffic*
(what else its code sent, a tool calling a weather API), told apart by the wire
registry (``harness.recording.traffic_kind``). The row's source, cost and counts
come from the model calls only; :meth:`LLMCassette.tool_calls` reads the tool
calls out of them.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.core.errors import ConfigurationError
from harness.core.wires import Wire, ready_wires
from harness.testing.cassettes.llm_config import LLMCassetteConfig

if TYPE_CHECKING:
    import anthropic as anthropic_sdk
    import openai as openai_sdk
    from google import genai
    from google.genai import client as genai_client

    from harness.recording import CassetteHandle
    from harness.testing.cassettes.tool_calls import RecordedToolCall
    from harness.tracing import TraceMode, TraceTree

__all__ = ["DEFAULT_BASE_URLS", "LLMCassette", "llm_cassette_path", "open_llm_cassette"]

# One client per SDK: the wires whose SDK client has a base URL of its own (the
# Responses API goes through the openai client), from the wire registry.
_CLIENT_WIRES: dict[str, Wire] = {w.name: w for w in ready_wires() if w.sdk_base_url}
DEFAULT_BASE_URLS = {name: str(w.sdk_base_url) for name, w in _CLIENT_WIRES.items()}
# Replayed requests never leave the process, but the SDKs insist on a key.
REPLAY_KEY = "harness-replay-placeholder"
_SIMULATOR_KEY = "harness-simulator-placeholder"


def _safe(part: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9_.=\[\]-]+", "_", part).strip("_") or "_"


def llm_cassette_path(
    cassette_dir: Path, test_file: str, test_name: str, model: str | None = None
) -> Path:
    """``<cassette_dir>/<model>/<test file without .py>/<test name>.yaml``, without
    the ``<model>`` part when no model is set (see ``harness.testing.cassettes.llm_paths``)."""
    folder = cassette_dir if model is None else cassette_dir / _model_part(model)
    return folder / Path(test_file).with_suffix("") / f"{_safe(test_name)}.yaml"


def _model_part(model: str) -> str:
    # One folder per model, whatever it is called ("openai/gpt-5", ".."): never a
    # separator, and never a name that climbs out of the cassette dir.
    part = _safe(model)
    return part if part.strip(".") else "_"


class LLMCassette:
    """The ``llm_cassette`` fixture's value: where the agent's client must point, and clients.

    Attributes:
        path: the cassette file of this test.
        model: the model the test must run its agent on: ``--harness-model``, else
            the marker's ``model=``; None when neither is set (the test's own).
        record_mode: the run's record mode (``none`` replays only).
        stream: whether this is the streaming run (``--harness-stream``): a test
            that can stream should, so that its ``-stream`` cassette holds SSE.
        config: the resolved profile and ignore lists.
    """

    def __init__(
        self,
        path: Path,
        record_mode: str,
        *,
        stream: bool = False,
        simulator_url: str | None = None,
        config: LLMCassetteConfig | None = None,
        model: str | None = None,
    ) -> None:
        self.path = path
        self.model = model
        self.record_mode = record_mode
        self.stream = stream
        self.config = config or LLMCassetteConfig()
        self._simulator_url = simulator_url
        self._handle: CassetteHandle | None = None
        self._clients: list[Any] = []

    @property
    def replaying(self) -> bool:
        """True in record mode ``none``: nothing leaves the process."""
        return self.record_mode == "none"

    @property
    def opened(self) -> bool:
        """Whether the cassette file was opened (its exchanges can be read)."""
        return self._handle is not None

    @property
    def handle(self) -> CassetteHandle:
        """The open cassette session (played, recorded, unplayed, misses)."""
        if self._handle is None:
            raise ConfigurationError("the llm_cassette is not open (outside its test)")
        return self._handle

    def base_url(self, provider: str) -> str:
        """The URL the ``provider`` client ("openai", "anthropic", ...) must use in this test.

        The simulator's while recording with ``--harness-base-url``, else the SDK
        default (a replay is answered before any connection, whatever the host).
        """
        if provider not in DEFAULT_BASE_URLS:
            known = " or ".join(repr(name) for name in DEFAULT_BASE_URLS)
            raise ConfigurationError(f"llm_cassette.base_url({provider!r}): use {known}")
        if self.replaying or not self._simulator_url:
            return DEFAULT_BASE_URLS[provider]
        root = self._simulator_url.rstrip("/")
        suffix = _CLIENT_WIRES[provider].simulator_base_path
        if suffix and not root.endswith(suffix):
            return root + suffix
        return root

    def api_key(self, provider: str) -> str:
        """The key a client gets: a dummy when replaying or simulating, else yours."""
        if self.replaying:
            return REPLAY_KEY
        variables = _CLIENT_WIRES[provider].key_env
        key = next((os.environ[v] for v in variables if os.environ.get(v)), None)
        variable = variables[0]
        if key:
            return key
        if self._simulator_url:
            return _SIMULATOR_KEY
        raise ConfigurationError(
            f"recording {provider} needs {variable} (or --harness-base-url "
            "pointing at the harness simulator); replay with --record-mode none needs no key"
        )

    def _client(self, cls: Any, provider: str, kwargs: dict[str, Any]) -> Any:
        settings = {
            "api_key": self.api_key(provider),
            "base_url": self.base_url(provider),
            # A replay answers at once; retrying a miss only delays its report.
            "max_retries": 0 if self.replaying else 2,
            **kwargs,
        }
        client = cls(**settings)
        self._clients.append(client)
        return client

    def openai(self, **kwargs: Any) -> openai_sdk.OpenAI:
        """An ``openai.OpenAI`` client on this cassette (keyword arguments override)."""
        import openai

        return self._client(openai.OpenAI, "openai", kwargs)  # type: ignore[no-any-return]

    def async_openai(self, **kwargs: Any) -> openai_sdk.AsyncOpenAI:
        """An ``openai.AsyncOpenAI`` client on this cassette."""
        import openai

        return self._client(openai.AsyncOpenAI, "openai", kwargs)  # type: ignore[no-any-return]

    def anthropic(self, **kwargs: Any) -> anthropic_sdk.Anthropic:
        """An ``anthropic.Anthropic`` client on this cassette."""
        import anthropic

        return self._client(anthropic.Anthropic, "anthropic", kwargs)  # type: ignore[no-any-return]

    def async_anthropic(self, **kwargs: Any) -> anthropic_sdk.AsyncAnthropic:
        """An ``anthropic.AsyncAnthropic`` client on this cassette."""
        import anthropic

        client = self._client(anthropic.AsyncAnthropic, "anthropic", kwargs)
        return client  # type: ignore[no-any-return]

    def gemini(self, **kwargs: Any) -> genai.Client:
        """A google-genai ``genai.Client`` on this cassette (keyword arguments override).

        Its ``.aio`` is the async client (see :meth:`async_gemini`). google-genai
        sends async calls through aiohttp when aiohttp is importable (vcrpy
        records and replays it too) and through httpx2 otherwise.
        """
        from google import genai
        from google.genai import types

        retry = types.HttpRetryOptions(attempts=1) if self.replaying else None
        # The API version is named, as harness's own provider does: google-genai's
        # default moved (v1beta in 2.x, v1 in 3.x), and with it every recorded path.
        options = types.HttpOptions(
            base_url=self.base_url("gemini"), api_version="v1beta", retry_options=retry
        )
        settings = {"api_key": self.api_key("gemini"), "http_options": options, **kwargs}
        client = genai.Client(**settings)
        self._clients.append(client)
        return client

    def async_gemini(self, **kwargs: Any) -> genai_client.AsyncClient:
        """google-genai's async client (``genai.Client(...).aio``) on this cassette."""
        return self.gemini(**kwargs).aio

    def exchanges(self) -> list[tuple[Any, dict[str, Any]]]:
        """The ``(vcr request, response dict)`` pairs of the test so far, telemetry left out."""
        return self.handle.exchanges

    def trace(self, mode: TraceMode | None = None) -> TraceTree:
        """The traffic trace of the test so far: ``agent.run`` > ``llm.call`` > ``tool.call``.

        ``mode="replay"`` keeps payloads (arguments, results) in this trace only;
        the default is ``HARNESS_TRACE_MODE``, else metadata.
        """
        from harness.testing.cassettes.http_exchanges import http_exchanges, traffic_module

        exchanges = http_exchanges(self.exchanges())
        tree: TraceTree = traffic_module().trace_from_exchanges(exchanges, mode=mode)
        return tree

    def tool_calls(self, *, include_output_tools: bool = False) -> list[RecordedToolCall]:
        """Each tool call of the test so far, from its model traffic, in the order asked.

        Framework-neutral: the name, the arguments (parsed JSON) and the result
        the agent sent back, as far as the wire shows them (see
        :class:`harness.testing.RecordedToolCall`). Needs no ``HARNESS_TRACE_MODE``.
        Output tools (``final_result``, ``final_answer``: the answer, not an
        action) are left out unless ``include_output_tools`` is set, as in
        ``assert_trajectory``.
        """
        from harness.testing.cassettes.http_exchanges import http_exchanges
        from harness.testing.cassettes.tool_calls import tool_calls_from_exchanges

        exchanges = http_exchanges(self.exchanges())
        return tool_calls_from_exchanges(exchanges, include_output_tools=include_output_tools)

    def environment(self) -> dict[str, str]:
        """The variables set during the test, for frameworks that build their own clients."""
        values = {w.base_url_env[0]: self.base_url(p) for p, w in _CLIENT_WIRES.items()}
        for entry in _CLIENT_WIRES.values():
            own_key = any(os.environ.get(v) for v in entry.key_env)
            if self.replaying or (self._simulator_url and not own_key):
                # Every name the SDK reads: google-genai prefers GOOGLE_API_KEY to
                # GEMINI_API_KEY, and a real one must not go out in a dummy's place.
                placeholder = REPLAY_KEY if self.replaying else _SIMULATOR_KEY
                values.update(dict.fromkeys(entry.key_env, placeholder))
        return values

    def close_clients(self) -> None:
        for client in self._clients:
            close = getattr(client, "close", None)
            if callable(close) and not _is_async(client):
                close()
        self._clients.clear()


def _flush_telemetry() -> None:
    """Export the frameworks' pending trace batches now, while the cassette answers them.

    Their exporters run on background threads; a batch left for later would go
    out after the test, to the real host, with the test's dummy key.
    """
    import sys

    for module, name in (("agents", "flush_traces"), ("logfire", "force_flush")):
        flush = getattr(sys.modules.get(module), name, None)
        if callable(flush):
            # Telemetry must never decide a test: whatever its exporter raises is its own.
            with contextlib.suppress(Exception):
                flush()


def _is_async(client: Any) -> bool:
    return type(client).__name__.startswith("Async")


@contextlib.contextmanager
def open_llm_cassette(
    cassette: LLMCassette,
    *,
    allow_unplayed: bool,
    rerecord_hint: str | None = None,
    save_error_responses: bool = False,
    responder: Any = None,
) -> Iterator[LLMCassette]:
    """Open ``cassette``'s file around the block, with its environment set.

    Raises:
        CassetteError: as :func:`harness.recording.use_cassette`.
    """
    from harness.recording import use_cassette
    from harness.testing.profile_hooks import profile_hooks

    config = cassette.config
    saved = {name: os.environ.get(name) for name in cassette.environment()}
    os.environ.update(cassette.environment())
    try:
        with use_cassette(
            cassette.path,
            record_mode="none" if responder is not None else cassette.record_mode,
            ignore_body_fields=config.ignore_body_fields,
            ignore_query_params=config.ignore_query_params,
            ignore_hosts=config.ignore_hosts,
            offline_hosts=config.offline_hosts,
            allow_unplayed=allow_unplayed,
            rerecord_hint=rerecord_hint,
            save_error_responses=save_error_responses,
            responder=responder,
        ) as handle:
            cassette._handle = handle
            try:
                with profile_hooks(config.profiles):
                    yield cassette
            finally:
                _flush_telemetry()
                cassette.close_clients()
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
