"""The SDK clients harness builds share one TLS context per process, and nothing else."""

from __future__ import annotations

import gc
import ssl
from pathlib import Path
from typing import Any

import pytest

from harness._speed.tls import offline_clients, shared_ssl_context
from harness.core import LLMRequest, Message
from harness.providers import AnthropicProvider, OpenAIProvider, OpenAIResponsesProvider
from harness.simulator import SimulatorServer


def _http(provider: Any) -> Any:
    return provider._client._client  # the SDK client's httpx2 client


def _context(provider: Any) -> ssl.SSLContext:
    context: ssl.SSLContext = _http(provider)._transport._pool._ssl_context
    return context


def test_clients_share_the_context_but_not_their_http_clients() -> None:
    built = [
        OpenAIProvider("m", api_key="k"),
        OpenAIProvider("m", api_key="k"),
        OpenAIResponsesProvider("m", api_key="k"),
        AnthropicProvider("m", api_key="k"),
    ]
    try:
        assert {id(_context(p)) for p in built} == {id(shared_ssl_context())}
        assert len({id(_http(p)) for p in built}) == len(
            built
        )  # no pool, cookies or headers shared
        assert shared_ssl_context().verify_mode is ssl.CERT_REQUIRED
        assert shared_ssl_context().check_hostname
    finally:
        for provider in built:
            provider.close()


def test_clients_built_for_a_replay_read_no_proxy_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    with offline_clients():
        replay = [
            OpenAIProvider("m", api_key="k"),
            OpenAIResponsesProvider("m", api_key="k"),
            AnthropicProvider("m", api_key="k"),
        ]
    live = OpenAIProvider("m", api_key="k")  # after the block: the environment counts again
    try:
        for provider in replay:
            assert not _http(provider).trust_env and not _http(provider)._mounts
            assert _context(provider) is shared_ssl_context()
        assert _http(live).trust_env and _http(live)._mounts  # the proxy is mounted
    finally:
        for provider in (*replay, live):
            provider.close()


def test_a_cert_file_setting_gives_a_context_of_its_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    default = shared_ssl_context()
    cafile = ssl.get_default_verify_paths().cafile or pytest.importorskip("certifi").where()
    bundle = tmp_path / "bundle.pem"  # a path no environment here names yet
    bundle.write_bytes(Path(cafile).read_bytes())
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    assert shared_ssl_context() is not default
    assert shared_ssl_context() is shared_ssl_context()


def test_closing_one_client_leaves_the_next_working() -> None:
    script = {"version": 1, "rules": [{"reply": "pong"}]}
    request = LLMRequest(messages=(Message.user("ping"),), model="m")
    with SimulatorServer(script) as sim:
        first = OpenAIProvider("m", api_key="k", base_url=f"{sim.url}/v1", max_retries=0)
        assert first.complete(request).text == "pong"
        first.close()
        second = AnthropicProvider("m", api_key="k", base_url=sim.url, max_retries=0)
        try:
            assert second.complete(request).text == "pong"
        finally:
            second.close()


@pytest.mark.deep
def test_an_unclosed_provider_closes_its_http_client_when_collected() -> None:
    provider: Any = AnthropicProvider("m", api_key="k")
    http = _http(provider)
    assert not http.is_closed
    del provider
    gc.collect()
    assert http.is_closed  # as the SDK's own default client does: no socket left open
