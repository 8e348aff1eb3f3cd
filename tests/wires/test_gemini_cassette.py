"""google-genai under ``llm_cassette``: recorded from the simulator over loopback, replayed offline.

The real SDK's sync, async and streaming calls are recorded into a harness
cassette against ``harness sim`` (``base_url("gemini")`` is the simulator's
while recording), then replayed with no server at all. The file never holds
the key, whether it travelled in ``x-goog-api-key`` or in a ``key=`` query
parameter, and the cassette says it is Gemini traffic from the simulator.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from google.genai import types

from harness.core import CassetteError, ConfigurationError
from harness.recording import read_cassette
from harness.simulator import SimulatorServer
from harness.testing import trace_from_cassette
from harness.testing.cassettes.llm_cassette import LLMCassette, open_llm_cassette

MODEL = "gemini-2.5-flash"
SECRET = "AIzaSyTEST-not-a-real-key-0123456789ab"
SCRIPT = {
    "version": 1,
    "turns": [
        {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
        "Sunny in Paris",
    ],
}
WEATHER = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="The weather in a city",
            parameters_json_schema={"type": "object", "properties": {"city": {"type": "string"}}},
        )
    ]
)
CONFIG = types.GenerateContentConfig(
    tools=[WEATHER], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
)


def _history(call: types.Part) -> list[types.Content]:
    return [
        types.Content(role="user", parts=[types.Part(text="weather in Paris?")]),
        types.Content(role="model", parts=[call]),
        types.Content(
            role="user",
            parts=[
                types.Part.from_function_response(name="get_weather", response={"output": "sunny"})
            ],
        ),
    ]


def _sync_agent(cassette: LLMCassette, stream: bool) -> str:
    client = cassette.gemini()
    if stream:
        chunks = list(
            client.models.generate_content_stream(
                model=MODEL, contents="weather in Paris?", config=CONFIG
            )
        )
        call = next(p for c in chunks for p in c.candidates[0].content.parts if p.function_call)  # type: ignore[index, union-attr]
        final = client.models.generate_content_stream(
            model=MODEL, contents=_history(call), config=CONFIG
        )
        return "".join(c.text or "" for c in final)
    first = client.models.generate_content(model=MODEL, contents="weather in Paris?", config=CONFIG)
    call = first.candidates[0].content.parts[0]  # type: ignore[index, union-attr]
    answer = client.models.generate_content(model=MODEL, contents=_history(call), config=CONFIG)
    return answer.text or ""


async def _async_agent(cassette: LLMCassette, stream: bool) -> str:
    client = cassette.async_gemini()
    try:
        if stream:
            chunks = [
                c
                async for c in await client.models.generate_content_stream(
                    model=MODEL, contents="weather in Paris?", config=CONFIG
                )
            ]
            call = next(p for c in chunks for p in c.candidates[0].content.parts if p.function_call)  # type: ignore[index, union-attr]
            final = await client.models.generate_content_stream(
                model=MODEL, contents=_history(call), config=CONFIG
            )
            return "".join([c.text or "" async for c in final])
        first = await client.models.generate_content(
            model=MODEL, contents="weather in Paris?", config=CONFIG
        )
        call = first.candidates[0].content.parts[0]  # type: ignore[index, union-attr]
        answer = await client.models.generate_content(
            model=MODEL, contents=_history(call), config=CONFIG
        )
        return answer.text or ""
    finally:
        await client.aclose()


def _run(cassette: LLMCassette, mode: str, stream: bool) -> str:
    if mode == "async":
        return asyncio.run(_async_agent(cassette, stream))
    return _sync_agent(cassette, stream)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_record_from_the_simulator_then_replay_offline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, stream: bool
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", SECRET)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    path = tmp_path / "weather.yaml"
    with SimulatorServer(SCRIPT) as server:
        recording = LLMCassette(path, "once", simulator_url=server.url)
        assert recording.base_url("gemini") == server.url
        with open_llm_cassette(recording, allow_unplayed=True):
            recorded = _run(recording, mode, stream)
        received = [r.path for r in server.requests]
    assert recorded == "Sunny in Paris"
    method = "streamGenerateContent" if stream else "generateContent"
    assert [p.rsplit(":", 1)[-1] for p in received] == [method, method]

    replay = LLMCassette(path, "none")
    assert replay.base_url("gemini") == "https://generativelanguage.googleapis.com"
    with open_llm_cassette(replay, allow_unplayed=False) as opened:
        assert _run(opened, mode, stream) == "Sunny in Paris"
        assert opened.handle.report.played == 2

    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and "x-goog-api-key" not in text.lower()
    stored = read_cassette(path)
    assert stored.metadata is not None and stored.metadata.provider == "gemini"
    tree = trace_from_cassette(path)
    calls = tree.find_all(kind="llm.call")
    assert [c.attributes["provider"] for c in calls] == ["gemini", "gemini"]
    assert calls[0].attributes["tool_calls"][0]["name"] == "get_weather"
    assert [t.name for t in tree.find_all(kind="tool.call")] == ["get_weather"]
    assert calls[1].attributes["stop_reason"] == "STOP"


def test_a_key_in_the_query_string_is_never_written(tmp_path: Path) -> None:
    path = tmp_path / "query.yaml"
    body = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    with SimulatorServer({"version": 1, "turns": ["hello"]}) as server:
        recording = LLMCassette(path, "once", simulator_url=server.url)
        with open_llm_cassette(recording, allow_unplayed=True):
            url = f"{server.url}/v1beta/models/{MODEL}:generateContent?key={SECRET}"
            with httpx2.Client() as http:
                answer = http.post(url, json=body, headers={"x-goog-api-key": SECRET})
    assert answer.status_code == 200
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text
    stored: Any = yaml.safe_load(text)
    assert "key=" in stored["interactions"][0]["request"]["uri"]


def test_base_url_names_gemini_among_the_providers(tmp_path: Path) -> None:
    cassette = LLMCassette(tmp_path / "x.yaml", "none")
    with pytest.raises(ConfigurationError, match="'gemini'"):
        cassette.base_url("cohere")
    environment = cassette.environment()
    assert environment["GOOGLE_GEMINI_BASE_URL"] == "https://generativelanguage.googleapis.com"
    assert environment["GEMINI_API_KEY"] == environment["GOOGLE_API_KEY"] != SECRET


def test_a_google_key_quoted_in_a_prompt_is_refused_and_nothing_written(tmp_path: Path) -> None:
    leaked = "AIza" + "Sy" + "B" * 33  # the shape of a Gemini API key
    path = tmp_path / "leak.yaml"
    with SimulatorServer({"version": 1, "turns": ["noted"]}) as server:
        recording = LLMCassette(path, "once", simulator_url=server.url)
        with (
            pytest.raises(CassetteError, match=r"Google API key") as caught,
            open_llm_cassette(recording, allow_unplayed=True) as opened,
        ):
            opened.gemini().models.generate_content(model=MODEL, contents=f"my key is {leaked}")
    assert not path.exists()
    assert leaked not in str(caught.value)
