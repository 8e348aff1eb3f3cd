"""The simulator answers only requests addressed to itself (issue 41).

A client whose proxy variables point at the simulator, a ``Host`` header for a
model API, or a CONNECT tunnel gets a 421 that says why; its own address and
``localhost`` still get model answers. Driven through the real openai SDK and
httpx2 against ``harness sim serve`` and an in-process server on 127.0.0.1.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpcore2
import httpx2
import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.simulator import SimulatorServer
from harness.simulator._addressing import foreign_target

SCRIPT = {"version": 1, "rules": [{"when": {}, "reply": "pong"}]}
CHAT = {"model": "m", "messages": [{"role": "user", "content": "ping"}]}


@pytest.fixture
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(SCRIPT) as server:
        yield server


def test_a_host_header_for_a_model_api_is_misdirected(sim: SimulatorServer) -> None:
    with httpx2.Client() as client:
        answer = client.post(
            f"{sim.url}/v1/chat/completions", json=CHAT, headers={"Host": "api.openai.com"}
        )
    assert answer.status_code == 421
    message = answer.json()["error"]["message"]
    assert "answers only requests addressed to it" in message and "api.openai.com" in message
    assert sim.requests == []  # no model answer was produced


def test_the_sdk_through_a_proxy_pointing_at_the_simulator_is_refused(
    sim: SimulatorServer,
) -> None:
    # An absolute-form request line ("POST http://api.openai.com/v1/..."), as a proxy gets.
    http = httpx2.Client(proxy=sim.url, trust_env=False)
    client = openai.OpenAI(
        api_key="sk-test-proxy", base_url="http://api.openai.com/v1", http_client=http
    )
    with client, pytest.raises(openai.APIStatusError) as caught:
        client.with_options(max_retries=0).chat.completions.create(**CHAT)  # type: ignore[call-overload]
    assert caught.value.status_code == 421
    assert "for api.openai.com" in str(caught.value)
    assert sim.requests == []


def test_a_connect_tunnel_is_refused(sim: SimulatorServer) -> None:
    http = httpx2.Client(proxy=sim.url, trust_env=False)
    client = openai.OpenAI(api_key="sk-test-proxy", base_url="https://api.openai.com/v1")
    client = client.with_options(http_client=http, max_retries=0)
    # httpx maps the proxy's refusal to a connection error the SDK wraps; where a
    # transport patched by an earlier test in the process (vcrpy's) skips that
    # mapping, httpcore's own ProxyError arrives unwrapped. Either way: a 421.
    with pytest.raises((openai.APIConnectionError, httpcore2.ProxyError)) as caught:
        client.chat.completions.create(**CHAT)  # type: ignore[call-overload]
    assert "421" in repr(caught.value) + repr(caught.value.__cause__)
    assert sim.requests == []


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost"])
def test_its_own_address_is_answered(sim: SimulatorServer, name: str) -> None:
    port = sim.url.rsplit(":", 1)[1]
    with openai.OpenAI(api_key="sk-test-own", base_url=f"http://{name}:{port}/v1") as client:
        answer = client.chat.completions.create(**CHAT)  # type: ignore[call-overload]
    assert answer.choices[0].message.content == "pong"


def test_harness_sim_serve_refuses_a_foreign_host(tmp_path: Path) -> None:
    script = tmp_path / "script.yaml"
    script.write_text("version: 1\nturns: [pong]\n")
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_SCRIPT"}
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", "sim", "serve", "--script", str(script), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        with httpx2.Client(trust_env=False) as client:
            foreign = client.post(
                f"{url}/v1/chat/completions", json=CHAT, headers={"Host": "api.anthropic.com"}
            )
            own = client.post(f"{url}/v1/chat/completions", json=CHAT)
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert foreign.status_code == 421 and own.status_code == 200
    assert "-> 421, addressed to api.anthropic.com" in err


@given(
    host=st.sampled_from(["127.0.0.1", "localhost", "[::1]", "api.openai.com", "10.0.0.1"]),
    port=st.integers(min_value=1, max_value=65535),
)
def test_only_this_machine_at_this_port_is_here(host: str, port: int) -> None:
    mine = host in ("127.0.0.1", "localhost", "[::1]") and port == 8765
    assert (foreign_target(f"{host}:{port}", ("127.0.0.1", 8765)) is None) is mine
    # Bound to every interface, any name at its port is its own.
    assert (foreign_target(f"{host}:{port}", ("0.0.0.0", 8765)) is None) is (port == 8765)
