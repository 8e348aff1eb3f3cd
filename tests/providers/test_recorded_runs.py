"""Record a real tool-calling run against the simulator, then replay it offline.

The OpenAI, Anthropic and Gemini adapters, the real SDKs and the cassette layer work
together here: identical RunResult and trace shape on replay, zero simulator
hits, the socket guard on, and no key anywhere on disk or in the logs.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.core import CassetteError
from harness.core.wires import wire
from harness.recording import use_cassette
from harness.simulator import SimulatorServer
from harness.testing import normalize_trace
from harness.testing.cassettes.recorded import RECORDED_PROVIDERS, recorded_provider

SCRIPT = {
    "version": 1,
    "turns": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        {"tool_calls": [{"name": "read", "arguments": {"path": "b.txt"}}]},
        "a says alpha, b says beta",
    ],
}
FAKE_KEYS = {
    "openai": "sk-test-SECRET123",
    "openai-responses": "sk-test-SECRET789",
    "anthropic": "sk-ant-test-SECRET456",
    "gemini": "gemini-test-SECRET246",
}


def _reads_proxy_settings(provider: object) -> bool:
    """Whether the SDK client's HTTP client takes proxies from the environment."""
    client = provider._client  # type: ignore[attr-defined]
    http = getattr(client, "_client", None) or client._api_client._httpx_client
    return bool(http.trust_env)


def _app(tmp_path: Path, provider: object, name: str) -> Application:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "a.txt").write_text("alpha\n")
    (work / "b.txt").write_text("beta\n")
    settings = Settings(workdir=work, state_dir=tmp_path / f"state-{name}", trace_mode="replay")
    return build_application(settings, provider=provider)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", RECORDED_PROVIDERS)
def test_record_then_replay_a_three_step_run(
    tmp_path: Path,
    name: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    cassette = tmp_path / "run.yaml"
    monkeypatch.setenv(wire(name).key_env[0], FAKE_KEYS[name])
    with SimulatorServer(SCRIPT) as server:
        with recorded_provider(
            name, model=None, cassette=cassette, record_mode="once", base_url=server.url
        ) as recorded:
            first = _app(tmp_path, recorded.provider, "record").run("read both", session="rt")
        hits = server.hits
    assert first.stop_reason == "final" and first.steps == 3 and hits == 3

    # A replay's client reads no proxy from the environment (it never needs one).
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    with recorded_provider(name, model=None, cassette=cassette) as replayed:
        assert not _reads_proxy_settings(replayed.provider)
        second = _app(tmp_path, replayed.provider, "replay").run("read both", session="rt")
    assert server.hits == hits  # the simulator is stopped and saw nothing more
    assert second.model_dump(exclude={"trace_id", "trace_path"}) == first.model_dump(
        exclude={"trace_id", "trace_path"}
    )
    assert first.trace_path and second.trace_path
    from harness.testing import load_trace

    assert normalize_trace(load_trace(second.trace_path)) == normalize_trace(
        load_trace(first.trace_path)
    )
    written = [cassette, first.trace_path, second.trace_path]
    for path in written:
        assert "SECRET" not in path.read_text(), path
    assert "SECRET" not in caplog.text


def test_replay_refuses_the_network(tmp_path: Path) -> None:
    """Inside a replaying block a non-loopback connection fails before any packet."""
    import socket

    cassette = tmp_path / "empty.yaml"
    with (
        SimulatorServer(SCRIPT) as server,
        recorded_provider(
            "openai", model=None, cassette=cassette, record_mode="once", base_url=server.url
        ) as recorded,
    ):
        _app(tmp_path, recorded.provider, "r").run("read both", session="g")
    with use_cassette(cassette), pytest.raises(CassetteError):
        socket.create_connection(("10.255.255.1", 443), timeout=0.2)
