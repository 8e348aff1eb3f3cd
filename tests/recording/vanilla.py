"""Replaying a committed cassette's requests through the SDK client harness builds.

Shared by the plain-vcrpy test and the pytest-recording run (pytester), so that
both send exactly what harness's provider sends: the recorded request body,
through ``openai.OpenAI`` (``chat.completions`` or ``responses``) /
``anthropic.Anthropic`` / google-genai's request layer (as ``GeminiProvider`` sends)
on the SDK's default host.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from harness.testing.cassettes.recorded import _build

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = sorted((ROOT / "cassettes").rglob("*.yaml"))


def recorded_exchanges(path: Path) -> list[tuple[dict[str, Any], str]]:
    """``(request body, response body text)`` of every interaction, in file order."""
    data = yaml.safe_load(path.read_text("utf-8"))
    return [
        (json.loads(i["request"]["body"]), i["response"]["body"]["string"])
        for i in data["interactions"]
    ]


def replay_through_sdk(path: Path) -> int:
    """Send every recorded request of ``path`` with the client harness builds for replay
    (no base URL, no retries) and check the SDK's parse against the recorded answer.

    Returns how many requests were answered. The caller has a vcrpy cassette active.
    """
    provider_name, model = path.relative_to(ROOT / "cassettes").parts[:2]
    if provider_name == "gemini":
        return _replay_gemini(path, model)
    exchanges = recorded_exchanges(path)
    stream = any(body.get("stream") for body, _ in exchanges)
    provider = _build(provider_name, model, "placeholder-key", None, retries=0, stream=stream)
    client: Any = provider._client  # type: ignore[attr-defined]
    try:
        for body, answer in exchanges:
            if provider_name == "openai":
                result = client.chat.completions.create(**body)
            elif provider_name == "openai-responses":
                result = client.responses.create(**body)
            else:
                result = client.messages.create(**body)
            if body.get("stream"):
                events = list(result)
                sent = answer.count("\ndata: ") + answer.startswith("data: ")
                done = answer.count("data: [DONE]")
                if provider_name.startswith("openai"):
                    assert len(events) == sent - done, (path, len(events), sent)
                else:
                    assert events[0].type == "message_start"
                    assert events[-1].type == "message_stop"
            else:
                assert result.id == json.loads(answer)["id"], path
    finally:
        provider.close()
    return len(exchanges)


def _replay_gemini(path: Path, model: str) -> int:
    """Gemini's model and streaming are in the URL: send each request to its recorded path."""
    data = yaml.safe_load(path.read_text("utf-8"))
    provider = _build("gemini", model, "placeholder-key", None, retries=0)
    api: Any = provider._client._api_client  # type: ignore[attr-defined]
    try:
        for interaction in data["interactions"]:
            url = urlsplit(interaction["request"]["uri"])
            # The request layer adds the API version (v1beta) to the path it is given.
            method = url.path.split("/", 2)[2] + (f"?{url.query}" if url.query else "")
            body = json.loads(interaction["request"]["body"])
            answer = interaction["response"]["body"]["string"]
            if ":streamGenerateContent" in method:
                chunks = [json.loads(c.body) for c in api.request_streamed("post", method, body)]
                assert len(chunks) == answer.count("data: "), (path, len(chunks))
            else:
                result = json.loads(api.request("post", method, body).body)
                assert result["responseId"] == json.loads(answer)["responseId"], path
    finally:
        provider.close()
    return len(data["interactions"])
