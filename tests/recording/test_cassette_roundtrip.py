"""Record against the simulator with the real SDKs, then replay offline."""

from __future__ import annotations

import asyncio
import concurrent.futures
from pathlib import Path

import openai
import pytest
import vcr
import yaml

from harness.recording import CassetteMetadata, NetworkBlockedError, use_cassette
from harness.recording._guard import network_blocked
from harness.simulator import SimulatorServer

from .helpers import (
    AGENT_SCRIPT,
    anthropic_client,
    anthropic_conversation,
    openai_client,
    openai_conversation,
)

CONVERSATIONS = {
    "openai": (openai_client, openai_conversation),
    "anthropic": (anthropic_client, anthropic_conversation),
}


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_replay_gives_identical_results_without_network(
    provider: str, sim: SimulatorServer, tmp_path: Path
) -> None:
    make_client, converse = CONVERSATIONS[provider]
    cassette = tmp_path / "agent.yaml"
    with make_client(sim.url) as client, use_cassette(cassette, record_mode="once") as recording:
        recorded = converse(client)
    assert recording.report.recorded == 2 and recording.report.saved
    url = sim.url
    sim.stop()
    hits = sim.hits

    with make_client(url) as client, use_cassette(cassette) as replay:
        assert network_blocked()
        replayed = converse(client)
        with pytest.raises(NetworkBlockedError):
            import socket

            socket.create_connection(("10.255.255.1", 9), timeout=0.1)
    assert replayed == recorded
    assert sim.hits == hits
    assert replay.report.played == 2 and replay.report.all_played
    assert not network_blocked()


def test_cassette_metadata_says_simulator(sim: SimulatorServer, tmp_path: Path) -> None:
    cassette = tmp_path / "meta.yaml"
    with (
        openai_client(sim.url) as client,
        use_cassette(cassette, record_mode="once", metadata={"eval": "demo"}) as recording,
    ):
        assert recording.metadata is None  # no file yet
        openai_conversation(client)
    meta = yaml.safe_load(cassette.read_text())["harness"]
    # The handle holds the block it saved, so no reader has to parse the file again.
    assert recording.metadata == CassetteMetadata.model_validate(meta)
    host = sim.url.removeprefix("http://")
    assert meta["provider"] == "openai"
    assert meta["model"] == "gpt-4o-mini"
    assert meta["recorded_against"] == f"{host} (harness simulator)"
    assert meta["extra"] == {"eval": "demo"}
    assert meta["recorded_at"].endswith("+00:00")
    with use_cassette(cassette) as replay:
        assert replay.metadata is not None and replay.metadata.provider == "openai"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_streaming_round_trip(provider: str, sim: SimulatorServer, tmp_path: Path) -> None:
    cassette = tmp_path / "stream.yaml"

    def stream_text(base: str) -> str:
        if provider == "openai":
            with openai_client(base) as client:
                chunks = client.chat.completions.create(
                    model="gpt-4o-mini",
                    stream=True,
                    stream_options={"include_usage": True},
                    messages=[
                        {"role": "user", "content": "x"},
                        {"role": "assistant", "content": "y"},
                        {"role": "user", "content": "z"},
                    ],
                )
                return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        with (
            anthropic_client(base) as client,
            client.messages.stream(
                model="claude-harness-test",
                max_tokens=64,
                messages=[
                    {"role": "user", "content": "x"},
                    {"role": "assistant", "content": "y"},
                    {"role": "user", "content": "z"},
                ],
            ) as events,
        ):
            return "".join(events.text_stream)

    with use_cassette(cassette, record_mode="once"):
        live = stream_text(sim.url)
    url = sim.url
    sim.stop()
    with use_cassette(cassette):
        replayed = stream_text(url)
    assert live == replayed == "The notes say: SENTINEL-A1.\nThat is all."
    stored = cassette.read_text()
    assert "body:\n      string: |" in stored  # the SSE stream is a readable block


def test_plain_vcrpy_replays_a_harness_cassette(sim: SimulatorServer, tmp_path: Path) -> None:
    cassette = tmp_path / "vanilla.yaml"
    with openai_client(sim.url) as client, use_cassette(cassette, record_mode="once"):
        recorded = openai_conversation(client)
    sim.stop()
    # Stored under the real API host, so vcrpy's default match_on (scheme, host,
    # port, ...) replays it for a client on the SDK's default base URL.
    with (
        openai_client("https://api.openai.com") as client,
        vcr.use_cassette(str(cassette), record_mode="none") as plain,
    ):
        assert openai_conversation(client) == recorded
    assert plain.play_count == 2
    stored = yaml.safe_load(cassette.read_text())
    assert {i["request"]["uri"] for i in stored["interactions"]} == {
        "https://api.openai.com/v1/chat/completions"
    }
    assert stored["harness"]["recorded_against"] == (
        f"{sim.url.removeprefix('http://')} (harness simulator)"
    )


def test_a_loaded_simulator_recording_keeps_its_real_host_when_saved_again(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    cassette = tmp_path / "again.yaml"
    with openai_client(sim.url) as client, use_cassette(cassette, record_mode="once"):
        openai_conversation(client)
    with openai_client(sim.url) as client, use_cassette(cassette, record_mode="new_episodes"):
        openai_conversation(client, prompt="Read other.txt")
    stored = yaml.safe_load(cassette.read_text())
    assert len(stored["interactions"]) == 4
    assert stored["harness"]["recorded_against"] == (
        f"{sim.url.removeprefix('http://')} (harness simulator)"
    )


def test_compressed_answers_are_stored_decoded(tmp_path: Path) -> None:
    cassette = tmp_path / "gzip.yaml"
    with SimulatorServer(AGENT_SCRIPT, gzip=True) as server:
        with openai_client(server.url) as client, use_cassette(cassette, record_mode="once"):
            recorded = openai_conversation(client)
        url = server.url
    stored = yaml.safe_load(cassette.read_text())
    response = stored["interactions"][0]["response"]
    assert "content-encoding" not in response["headers"]
    assert '"finish_reason": "tool_calls"' in response["body"]["string"]
    with openai_client(url) as client, use_cassette(cassette):
        assert openai_conversation(client) == recorded


def test_secrets_and_noise_headers_never_reach_the_file(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    cassette = tmp_path / "clean.yaml"
    with (
        openai_client(sim.url) as openai_sdk,
        anthropic_client(sim.url) as anthropic_sdk,
        use_cassette(cassette, record_mode="once"),
    ):
        openai_conversation(openai_sdk)
        anthropic_conversation(anthropic_sdk)
    text = cassette.read_text()
    assert "SECRET" not in text
    for noise in (
        "authorization",
        "x-api-key",
        "x-stainless",
        "user-agent",
        "content-length",
        "date:",
    ):
        assert noise not in text.lower()


def test_async_and_threaded_clients_replay(tmp_path: Path) -> None:
    cassette = tmp_path / "parallel.yaml"
    prompts = [f"question {n}" for n in range(6)]

    def ask(client: openai.OpenAI, prompt: str) -> str:
        reply = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}]
        )
        return reply.choices[0].message.content or ""

    script = {"rules": [{"reply": "same answer"}]}
    with SimulatorServer(script) as sim, openai_client(sim.url) as client:
        with use_cassette(cassette, record_mode="once"):
            recorded = [ask(client, prompt) for prompt in prompts]
        url = sim.url

    async def ask_all() -> list[str]:
        async with openai.AsyncOpenAI(api_key="sk-x", base_url=f"{url}/v1", max_retries=0) as aio:
            replies = await asyncio.gather(
                *(
                    aio.chat.completions.create(
                        model="gpt-4o-mini", messages=[{"role": "user", "content": p}]
                    )
                    for p in prompts
                )
            )
        return [reply.choices[0].message.content or "" for reply in replies]

    with use_cassette(cassette, allow_unplayed=False):
        assert asyncio.run(ask_all()) == recorded
    with (
        openai_client(url) as client,
        use_cassette(cassette, allow_unplayed=False),
        concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool,
    ):
        assert list(pool.map(lambda p: ask(client, p), prompts)) == recorded
