"""``harness sim serve`` answers google-genai's generateContent and its SSE stream, in a process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from google import genai
from google.genai import types

from harness.simulator import SimulatorServer
from harness.wires.gemini.simulator import route


def test_the_router_knows_gemini_and_vertex_paths_and_refuses_a_bad_body() -> None:
    assert route("/v1beta/models/gemini-2.5-flash:streamGenerateContent") is not None
    vertex = "/v1beta1/projects/p/locations/global/publishers/google/models/g:generateContent"
    api = route(vertex)
    assert api is not None and api.model == "g" and not api.stream
    assert route("/v1beta/cachedContents") is None
    with SimulatorServer({"version": 1, "turns": ["hi"]}) as server:
        answer, _ = server.handle("/v1beta/models/g:generateContent", b'{"contents": []}')
    assert answer.status == 400
    assert json.loads(answer.body)["error"]["status"] == "INVALID_ARGUMENT"


@pytest.mark.deep  # a process of its own: seconds
def test_harness_sim_serve_answers_the_sdk_json_and_stream(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"version": 1, "rules": [{"reply": "hello from the simulator"}]}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "GOOGLE_"))}
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
        options = types.HttpOptions(base_url=url, api_version="v1beta")
        client = genai.Client(api_key="AIza-test-placeholder", http_options=options)
        answer = client.models.generate_content(model="gemini-2.5-flash", contents="hi")
        streamed = client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi")
        text = "".join(chunk.text or "" for chunk in streamed)
        client.close()
    finally:
        process.terminate()
        _, err = process.communicate(timeout=10)
    assert answer.text == text == "hello from the simulator"
    assert answer.usage_metadata is not None and answer.usage_metadata.prompt_token_count
    assert "POST /v1beta/models/gemini-2.5-flash:generateContent -> 200" in err
    assert "POST /v1beta/models/gemini-2.5-flash:streamGenerateContent -> 200" in err
