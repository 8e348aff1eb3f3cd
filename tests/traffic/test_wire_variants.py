"""Azure OpenAI and local OpenAI-compatible servers are variants of Chat Completions."""

from __future__ import annotations

import pytest

from harness.evals.provenance import Source, local_servers, source_of_document
from harness.recording._canonical import canonical_uri
from harness.recording._metadata import describe_recording
from harness.testing.rows.traffic_rows import model_api
from harness.traffic.wire import wire_for

AZURE = (
    "https://contoso.openai.azure.com/openai/deployments/gpt-4o-mini/chat/completions"
    "?api-version=2024-10-21"
)


def _document(uri: str) -> dict[str, object]:
    request = {"method": "POST", "uri": uri, "body": "{}", "headers": {}}
    response = {"status": {"code": 200}, "headers": {}, "body": {"string": "{}"}}
    return {"version": 1, "interactions": [{"request": request, "response": response}]}


def test_an_azure_openai_call_is_chat_completions_from_a_live_host() -> None:
    assert wire_for("POST", AZURE) == "openai"
    assert model_api("POST", AZURE) == "openai"
    assert source_of_document(_document(AZURE)) is Source.LIVE
    metadata = describe_recording([(AZURE, {"model": "gpt-4o-mini"})], False, None)
    assert metadata.provider == "openai"
    assert metadata.recorded_against == "contoso.openai.azure.com"
    # Not a path the simulator serves: it stays on its own host.
    assert canonical_uri(AZURE) == AZURE


@pytest.mark.parametrize(
    ("netloc", "server"),
    [
        ("127.0.0.1:11434", "ollama"),
        ("localhost:8000", "vllm"),
        ("[::1]:1234", "lm-studio"),
        ("192.168.1.7:4000", "litellm"),
    ],
)
def test_a_local_server_is_labelled_by_what_it_is(netloc: str, server: str) -> None:
    uri = f"http://{netloc}/v1/chat/completions"
    assert model_api("POST", uri) == "openai"
    assert source_of_document(_document(uri)) is Source.LOCAL
    assert local_servers([netloc]) == (server,)


@pytest.mark.parametrize(
    "netlocs",
    [["127.0.0.1:9999"], ["127.0.0.1:11434", "api.openai.com"], ["example.com:11434"], []],
    ids=["unknown-port", "mixed-with-live", "remote-host", "none"],
)
def test_anything_else_is_not_labelled_a_local_server(netlocs: list[str]) -> None:
    assert local_servers(netlocs) is None
