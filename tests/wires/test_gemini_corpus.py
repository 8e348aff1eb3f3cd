"""Conformance over real Gemini traffic: ``shared/corpus/cassettes/gemini`` (see its README).

41 cassettes pydantic-ai recorded from the Gemini API and Vertex AI (JSON and
``streamGenerateContent?alt=sse``, tool calls, parallel calls, thought
signatures, cached and thought tokens, blocked prompts, HTTP errors). Each file:

* decodes into the traffic trace: one ``llm.call`` per generate request, with
  the tool calls, usage and finish reason that the recorded bodies say (read
  here from the raw YAML, independently of the decoder), and a ``tool.call``
  for every ``functionResponse`` sent back;
* replays through the real google-genai SDK from harness's cassette reader (the
  request rebuilt from the recorded body, Gemini API or Vertex client), and the
  SDK's result equals its own parse of the recorded bytes; the provider's
  mapping of that result equals its mapping of the recorded JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml
from google import genai
from google.genai import errors, types
from google.oauth2.credentials import Credentials

from harness.recording import use_cassette
from harness.testing import trace_from_cassette
from harness.tracing import TraceSpan
from harness.wires.gemini.parts import fold_chunks
from harness.wires.gemini.provider import CONTENT_KEY, from_gemini_response

ROOT = Path(__file__).resolve().parents[2]
# shared/ sits beside the repo (CI, the main checkout); a worktree is one level deeper.
CORPUS = next(
    (
        base / "cassettes" / "gemini"
        for base in (
            Path(os.environ.get("HARNESS_CORPUS_DIR", ROOT / "missing")),
            ROOT.parent / "shared" / "corpus",
            ROOT.parent.parent / "shared" / "corpus",
        )
        if (base / "cassettes" / "gemini").is_dir()
    ),
    ROOT.parent / "shared" / "corpus" / "cassettes" / "gemini",
)
MISSING = (
    "needs the shared corpus's Gemini cassettes (real Gemini API / Vertex AI traffic that "
    f"pydantic-ai recorded, kept outside this repo) at {CORPUS}: check out ../shared/corpus "
    "beside the repo or set HARNESS_CORPUS_DIR"
)
_GENERATE = re.compile(r"/models/([^/:]+):(generateContent|streamGenerateContent)")


def _files() -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    return [pytest.param(path, id=path.name[:3]) for path in sorted(CORPUS.glob("G*.yaml"))]


def _interactions(path: Path) -> list[dict[str, Any]]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    return [i for i in data["interactions"] if _GENERATE.search(i["request"]["uri"])]


def _answer(interaction: dict[str, Any]) -> dict[str, Any]:
    """The recorded answer as one JSON object (a stream's chunks folded)."""
    response = interaction["response"]
    if "parsed_body" in response:
        parsed: dict[str, Any] = response["parsed_body"]
        return parsed
    text = response["body"]["string"]
    chunks = [json.loads(line[5:]) for line in text.splitlines() if line.startswith("data:")]
    return fold_chunks(chunks)


def _last_chunk(interaction: dict[str, Any]) -> dict[str, Any]:
    response = interaction["response"]
    if "parsed_body" in response:
        parsed: dict[str, Any] = response["parsed_body"]
        return parsed
    lines = [ln for ln in response["body"]["string"].splitlines() if ln.startswith("data:")]
    last: dict[str, Any] = json.loads(lines[-1][5:])
    return last


def _expected_call(interaction: dict[str, Any]) -> dict[str, Any]:
    """What an ``llm.call`` must say, read from the raw recording."""
    status = interaction["response"]["status"]["code"]
    if status >= 400:
        error = interaction["response"]["parsed_body"]["error"]
        return {"status": status, "error_type": error["status"]}
    usage = _last_chunk(interaction).get("usageMetadata", {})
    answer = _answer(interaction)
    candidates = answer.get("candidates") or [{}]
    parts = (candidates[0].get("content") or {}).get("parts") or []
    reason = candidates[0].get("finishReason") or answer.get("promptFeedback", {}).get(
        "blockReason"
    )
    return {
        "status": status,
        "stop_reason": reason,
        "asked": [p["functionCall"]["name"] for p in parts if "functionCall" in p],
        "input_tokens": usage.get("promptTokenCount", 0) + usage.get("toolUsePromptTokenCount", 0),
        "output_tokens": usage.get("candidatesTokenCount", 0) + usage.get("thoughtsTokenCount", 0),
        "cached_input_tokens": usage.get("cachedContentTokenCount", 0),
    }


def _decoded_call(span: TraceSpan) -> dict[str, Any]:
    a = span.attributes
    if span.status == "error":
        return {"status": a["http_status"], "error_type": a["error_type"]}
    return {
        "status": a["http_status"],
        "stop_reason": a["stop_reason"],
        "asked": [call["name"] for call in a["tool_calls"]],
        "input_tokens": a["input_tokens"],
        "output_tokens": a["output_tokens"],
        "cached_input_tokens": a["cached_input_tokens"],
    }


def _function_responses(interaction: dict[str, Any]) -> int:
    """``functionResponse`` parts sent after the request's last model content (either
    spelling): the results this request carries for the first time."""
    contents = interaction["request"]["parsed_body"]["contents"]
    models = [i for i, c in enumerate(contents) if c.get("role") == "model"]
    fresh = contents[models[-1] + 1 :] if models else contents
    keys = ("functionResponse", "function_response")
    return sum(1 for c in fresh for part in c["parts"] if any(k in part for k in keys))


@pytest.mark.parametrize("path", _files())
def test_every_file_decodes_into_the_recorded_calls_usage_and_finish_reasons(
    path: Path,
) -> None:
    interactions = _interactions(path)
    tree = trace_from_cassette(path)
    llm = tree.find_all(kind="llm.call")
    assert [span.attributes["provider"] for span in llm] == ["gemini"] * len(interactions)
    assert [_decoded_call(span) for span in llm] == [_expected_call(i) for i in interactions]
    models = [_GENERATE.search(i["request"]["uri"]).group(1) for i in interactions]  # type: ignore[union-attr]
    assert [span.attributes["model"] for span in llm] == models
    # Every functionResponse sent back is a tool.call answered in that request.
    answered = [span for span in tree.find_all(kind="tool.call") if span.attributes["answered"]]
    assert len(answered) == sum(_function_responses(i) for i in interactions)


def _one_tree(name: str) -> Any:
    return trace_from_cassette(CORPUS / name)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)
def test_parallel_calls_are_three_tool_calls_of_one_step() -> None:
    tree = _one_tree("G06__test_google_instructions_only_with_tool_calls.yaml")
    steps = tree.find_all(kind="agent.step")
    first_tools = [c for c in steps[0].children if c.kind == "tool.call"]
    assert [t.name for t in first_tools] == ["generate_topic"] * 3
    assert [t.attributes["tool_call_index"] for t in first_tools] == [0, 1, 2]
    assert all(t.attributes["answered_in"] == 1 for t in first_tools)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)
@pytest.mark.parametrize(
    "name",
    [
        "G07__test_google_model_retry.yaml",
        "G40__test_multimodal_tool_return_matrix[direct-uploaded_file-image-google_gemini3].yaml",
    ],
    ids=["G07", "G40"],
)
def test_an_error_response_is_a_failed_tool_call(name: str) -> None:
    tools = _one_tree(name).find_all(kind="tool.call")
    assert len(tools) == 2 and tools[0].attributes["is_error"] is True
    assert tools[0].status == "error" and tools[-1].attributes["is_error"] is False


@pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)
def test_http_errors_and_blocked_prompts_are_read_as_such() -> None:
    not_found = _one_tree("G30__test_model_name_suggestion[google].yaml")
    assert not_found.root.attributes["stop_reason"] == "error"
    (call,) = not_found.find_all(kind="llm.call")
    assert (
        call.attributes["error_type"] == "NOT_FOUND"
        and "not found" in call.attributes["error_message"]
    )
    blocked = _one_tree("G29__test_google_model_armor_prompt_template_text_gets_blocked.yaml")
    assert blocked.root.attributes["stop_reason"] == "MODEL_ARMOR"
    assert blocked.root.attributes["other_exchanges"] == 1  # the OAuth token exchange


# -- replay through the real SDK -----------------------------------------------------


def _sdk_arguments(body: dict[str, Any]) -> tuple[Any, types.GenerateContentConfig]:
    """The ``generate_content`` arguments that send ``body`` again."""
    config = dict(body.get("generationConfig") or body.get("generation_config") or {})
    for key in (
        "systemInstruction",
        "system_instruction",
        "tools",
        "toolConfig",
        "tool_config",
        "safetySettings",
        "safety_settings",
        "cachedContent",
        "cached_content",
        "modelArmorConfig",
        "model_armor_config",
    ):
        if key in body:
            config[key] = body[key]
    return body["contents"], types.GenerateContentConfig.model_validate(config)


def _client(uri: str, **http: Any) -> genai.Client:
    vertex = re.search(r"/projects/([^/]+)/locations/([^/]+)/", uri)
    if vertex is None:
        options = types.HttpOptions(api_version="v1beta", **http)
        return genai.Client(api_key="AIza-test-CORPUS00000", http_options=options)
    options = types.HttpOptions(api_version="v1beta1", **http)
    return genai.Client(
        vertexai=True,
        project=vertex.group(1),
        location=vertex.group(2),
        credentials=Credentials("test-token-CORPUS"),
        http_options=options,
    )


def _send(client: genai.Client, interaction: dict[str, Any]) -> Any:
    uri = interaction["request"]["uri"]
    model, method = _GENERATE.search(uri).groups()  # type: ignore[union-attr]
    contents, config = _sdk_arguments(interaction["request"]["parsed_body"])
    try:
        if method == "streamGenerateContent":
            return list(
                client.models.generate_content_stream(model=model, contents=contents, config=config)
            )
        return client.models.generate_content(model=model, contents=contents, config=config)
    except errors.APIError as exc:
        return exc


async def _asend(client: genai.Client, interaction: dict[str, Any]) -> Any:
    uri = interaction["request"]["uri"]
    model, method = _GENERATE.search(uri).groups()  # type: ignore[union-attr]
    contents, config = _sdk_arguments(interaction["request"]["parsed_body"])
    try:
        if method == "streamGenerateContent":
            stream = await client.aio.models.generate_content_stream(
                model=model, contents=contents, config=config
            )
            return [chunk async for chunk in stream]
        return await client.aio.models.generate_content(
            model=model, contents=contents, config=config
        )
    except errors.APIError as exc:
        return exc


def _recorded_bytes(interaction: dict[str, Any]) -> httpx2.Response:
    response = interaction["response"]
    status = response["status"]["code"]
    if "parsed_body" in response:
        return httpx2.Response(status, json=response["parsed_body"])
    headers = {"content-type": "text/event-stream"}
    return httpx2.Response(status, headers=headers, content=response["body"]["string"].encode())


def _dump(result: Any) -> Any:
    if isinstance(result, errors.APIError):
        return {"code": result.code, "status": result.status, "message": result.message}
    if isinstance(result, list):
        return [chunk.model_dump(exclude={"sdk_http_response"}) for chunk in result]
    return result.model_dump(exclude={"sdk_http_response"})


def _mapped(result: Any) -> Any:
    """The provider's mapping of an SDK result, signatures aside (alphabets differ)."""
    if isinstance(result, errors.APIError):
        return None
    chunks = result if isinstance(result, list) else [result]
    data = [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in chunks]
    response = from_gemini_response(fold_chunks(data))
    return response.model_copy(update={"metadata": {}}), response.metadata.get(CONTENT_KEY)


# google-genai releases older than a finish reason (MODEL_ARMOR in 2.x) warn on it
# while parsing: the SDK's own lag, not harness's, and both sides parse alike.
@pytest.mark.filterwarnings("ignore:.* is not a valid FinishReason:UserWarning")
# The default run replays the async test's four files (JSON, stream, Vertex, a 404);
# every file decodes in the default run above, and replays in the deep tier.
@pytest.mark.parametrize(
    "path",
    [
        p
        if p.id is None or p.id in {"G06", "G14", "G20", "G30"}
        else pytest.param(*p.values, id=p.id, marks=[*p.marks, pytest.mark.deep])
        for p in _files()
    ],
)
def test_every_file_replays_through_the_sdk_as_the_sdk_parses_its_bytes(
    path: Path, tmp_path: Path
) -> None:
    interactions = _interactions(path)
    expected = []
    for interaction in interactions:
        answer = _recorded_bytes(interaction)
        mock: Callable[[httpx2.Request], httpx2.Response] = lambda _r, a=answer: a  # noqa: E731
        http = httpx2.Client(transport=httpx2.MockTransport(mock))
        expected.append(
            _send(_client(interaction["request"]["uri"], httpx_client=http), interaction)
        )
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    with use_cassette(copy) as cassette:
        replayed = [_send(_client(i["request"]["uri"]), i) for i in interactions]
    assert cassette.report.played == len(interactions)
    assert [_dump(r) for r in replayed] == [_dump(e) for e in expected]
    for result, interaction in zip(replayed, interactions, strict=True):
        mapped = _mapped(result)
        if mapped is None:
            continue
        response, content = mapped
        wire = from_gemini_response(_answer(interaction))
        assert response == wire.model_copy(update={"metadata": {}})
        kept = wire.metadata.get(CONTENT_KEY)
        assert (content is None) == (kept is None)
        if content is not None:
            assert len(content["parts"]) == len(kept["parts"])


@pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)
@pytest.mark.parametrize(
    "name",
    [
        "G06__test_google_instructions_only_with_tool_calls.yaml",
        "G14__test_google_streaming_tool_call_thought_signature.yaml",
        "G20__test_google_vertex_service_tier_flex_stream.yaml",
        "G30__test_model_name_suggestion[google].yaml",
    ],
    ids=["G06-json", "G14-stream", "G20-vertex-stream", "G30-404"],
)
def test_the_async_client_replays_too(name: str, tmp_path: Path) -> None:
    path = CORPUS / name
    interactions = _interactions(path)
    copy = tmp_path / name
    shutil.copy(path, copy)
    synchronous = []
    with use_cassette(copy) as cassette:
        synchronous = [_send(_client(i["request"]["uri"]), i) for i in interactions]

    async def replay() -> list[Any]:
        results = []
        for interaction in interactions:
            client = _client(interaction["request"]["uri"])
            try:
                results.append(await _asend(client, interaction))
            finally:
                await client.aio.aclose()
        return results

    with use_cassette(copy) as cassette:
        asynchronous = asyncio.run(replay())
    assert cassette.report.played == len(interactions)
    assert [_dump(r) for r in asynchronous] == [_dump(r) for r in synchronous]
