"""``ProxyServer`` in this process against the simulator: streaming recorded chunk by
chunk and replayed on the three wires, credentials kept out of the file, a miss answered
as the wire's error, ``HEAD`` probes, and a re-recording that is byte-identical."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from harness.proxy import ProxyServer, ProxySpec
from harness.recording import check_cassettes
from harness.simulator import SimulatorServer

SCRIPT: dict[str, Any] = {"rules": [{"when": {}, "reply": "The answer is 42."}]}
SECRET = "sk-proj-Q9x7TzLm4KpR2vWn8YbC3dFh6JsA1eGu"


@pytest.fixture
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(SCRIPT) as server:
        yield server


def _proxy(cassette: Path, upstream: str | None = None, **settings: Any) -> ProxyServer:
    spec = ProxySpec(
        cassette=cassette,
        record_mode="rewrite" if upstream else "none",
        upstreams={"*": upstream} if upstream else {},
        **settings,
    )
    return ProxyServer(spec).start()


def _openai_chat(url: str) -> str:
    client = openai.OpenAI(base_url=url + "/v1", api_key=SECRET, max_retries=0)
    stream = client.chat.completions.create(
        model="gpt-4.1-mini", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    return "".join(c.choices[0].delta.content or "" for c in stream if c.choices)


def _openai_responses(url: str) -> str:
    client = openai.OpenAI(base_url=url + "/v1", api_key=SECRET, max_retries=0)
    stream = client.responses.create(model="gpt-4.1-mini", input="hi", stream=True)
    return "".join(e.delta for e in stream if e.type == "response.output_text.delta")


def _anthropic(url: str) -> str:
    client = anthropic.Anthropic(base_url=url, api_key=SECRET, max_retries=0)
    with client.messages.stream(
        model="claude-sonnet-4-6", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        return "".join(stream.text_stream)


@pytest.mark.parametrize(
    "call",
    [
        _openai_chat,
        pytest.param(_openai_responses, marks=pytest.mark.deep),
        pytest.param(_anthropic, marks=pytest.mark.deep),  # the chat run covers the default tier
    ],
    ids=["chat", "responses", "messages"],
)
def test_a_stream_is_recorded_through_and_replayed_without_the_upstream(
    tmp_path: Path, sim: SimulatorServer, call: Any
) -> None:
    cassette = tmp_path / "c.yaml"
    recording = _proxy(cassette, sim.url)
    try:
        assert call(recording.url) == "The answer is 42."
    finally:
        final = recording.stop()
    assert final["recorded"] == 1 and final["saved"]
    text = cassette.read_text()
    assert "data:" in text and SECRET not in text  # the event stream, never the key
    assert check_cassettes([cassette]) == []
    hits = sim.hits
    replaying = _proxy(cassette)
    try:
        assert call(replaying.url) == "The answer is 42."
    finally:
        assert replaying.stop()["played"] == 1
    assert sim.hits == hits  # nothing was forwarded


def test_no_credential_header_reaches_the_cassette(tmp_path: Path, sim: SimulatorServer) -> None:
    cassette = tmp_path / "c.yaml"
    proxy = _proxy(cassette, sim.url)
    headers = {
        "authorization": f"Bearer {SECRET}",
        "x-api-key": SECRET,
        "x-goog-api-key": SECRET,
        "openai-organization": "org-Zx81Kq",
        "cookie": f"session={SECRET}",
    }
    try:
        body = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}
        sent = httpx.post(proxy.url + "/v1/chat/completions", json=body, headers=headers)
        assert sent.status_code == 200
        assert sim.requests  # the upstream got the request
    finally:
        proxy.stop()
    text = cassette.read_text()
    assert SECRET not in text and "org-Zx81Kq" not in text
    assert "proxy.log" not in text


def test_a_miss_is_the_wires_error_naming_the_nearest_request(tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    with SimulatorServer(SCRIPT) as sim:
        recording = _proxy(cassette, sim.url)
        _openai_chat(recording.url)
        recording.stop()
    proxy = _proxy(cassette)
    try:
        client = openai.OpenAI(base_url=proxy.url + "/v1", api_key="x", max_retries=0)
        with pytest.raises(openai.BadRequestError) as raised:
            client.chat.completions.create(
                model="gpt-4.1-mini", messages=[{"role": "user", "content": "bye"}], stream=True
            )
        message = str(raised.value)
        assert "Nearest recorded request: interaction 0" in message
        assert "'hi' -> 'bye'" in message
        assert raised.value.response.headers["x-should-retry"] == "false"
        probe = httpx.head(proxy.url + "/")  # a connectivity probe: up, and not a miss
        assert probe.status_code == 200
    finally:
        final = proxy.stop()
    assert [e["kind"] for e in final["errors"]] == ["harness_replay_miss"]
    assert final["failure"] is None


def _codex_like(run: int) -> dict[str, Any]:
    """A Responses request with every per-run value Codex puts in one."""
    context = (
        f"<environment_context>\n  <cwd>/tmp/run-{run}/work</cwd>\n"
        f"  <current_date>2026-12-0{run}</current_date>\n</environment_context>"
    )
    output = f"Chunk ID: c{run}f3a\nWall time: 0.00{run}1 seconds\nProcess exited with code 0\nok"
    return {
        "model": "gpt-4.1-mini",
        "prompt_cache_key": f"0f5c-{run}",
        "client_metadata": {"session": f"s-{run}"},
        "input": [
            {"id": f"msg_{run}a", "type": "message", "role": "user", "content": context},
            {
                "type": "function_call",
                "id": f"fc_{run}",
                "call_id": "call_1",
                "name": "exec_command",
                "arguments": '{"cmd": "cat notes.txt"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": output},
        ],
    }


def test_re_recording_a_codex_run_gives_the_same_bytes_and_replays_either(
    tmp_path: Path, sim: SimulatorServer
) -> None:
    files = []
    for run in (1, 2):
        cassette = tmp_path / f"run{run}.yaml"
        proxy = _proxy(cassette, sim.url, profiles=("codex",))
        try:
            sent = httpx.post(proxy.url + "/v1/responses", json=_codex_like(run))
            assert sent.status_code == 200, sent.text
        finally:
            proxy.stop()
        files.append(re.sub(r"recorded_at: .*", "", cassette.read_text()))
    assert files[0] == files[1]
    assert "<workdir>" in files[0] and "<wall-time>" in files[0] and "s-1" not in files[0]
    replay = _proxy(tmp_path / "run1.yaml", profiles=("codex",))
    try:
        answer = httpx.post(replay.url + "/v1/responses", json=_codex_like(3))
        assert answer.status_code == 200 and json.loads(answer.text)["output"]
    finally:
        replay.stop()


def test_the_proxy_listens_on_loopback_only(tmp_path: Path) -> None:
    for host in ("0.0.0.0", "192.168.1.5"):
        with pytest.raises(ValueError, match="not a loopback address"):
            ProxySpec(cassette=tmp_path / "c.yaml", host=host)


NODE_STREAM = """
const base = process.env.OPENAI_BASE_URL;
async function main() {
  const answer = await fetch(base + "/chat/completions", {
    method: "POST",
    headers: {"content-type": "application/json", "authorization": "Bearer dummy"},
    body: JSON.stringify({model: "gpt-4.1-mini", stream: true,
                          messages: [{role: "user", content: "hi"}]}),
  });
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of answer.body) {
    for (const line of decoder.decode(chunk).split("\\n")) {
      if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
      const delta = JSON.parse(line.slice(6)).choices[0]?.delta?.content;
      if (delta) text += delta;
    }
  }
  console.log(text);
}
main();
"""


@pytest.mark.deep
def test_a_node_fetch_stream_is_recorded_and_replayed(tmp_path: Path, sim: SimulatorServer) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    script = tmp_path / "stream.js"
    script.write_text(NODE_STREAM)
    cassette = tmp_path / "c.yaml"
    for upstream in (sim.url, None):  # record, then replay with no upstream
        proxy = _proxy(cassette, upstream)
        try:
            env = {**os.environ, "OPENAI_BASE_URL": proxy.url + "/v1"}
            done = subprocess.run(
                [node, str(script)], env=env, capture_output=True, text=True, timeout=60
            )
        finally:
            proxy.stop()
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "The answer is 42."
