"""Cassettes other projects recorded from api.openai.com / api.anthropic.com replay exactly.

Every interaction of every cassette in ``shared/corpus/cassettes`` (beside the
repo) is sent again as the SDK call rebuilt from its recorded request body, in
replay mode, and the SDK's result must equal the SDK's own parse of the recorded
bytes served through ``httpx2.MockTransport`` (streams compared event by event).
The harness adapters then map the same parses, and replay and parse agree.
``peers/`` holds whole cassettes other projects committed (dd-trace-py,
openllmetry, pydantic-ai's ``parsed_body`` serializer); every interaction of
each replays the same way, and so does ``responses/`` (Responses API traffic).
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
import yaml

from harness.core import LLMResponse
from harness.recording import use_cassette
from harness.wires.anthropic.provider import from_anthropic_message
from harness.wires.openai.provider import ChunkAssembler, from_chat_completion
from harness.wires.openai_responses.events import EventAssembler
from harness.wires.openai_responses.items import from_response

ROOT = Path(__file__).resolve().parents[2]
# shared/ sits beside the repo (CI, the main checkout); a worktree is one level deeper.
CORPUS = next(
    (
        base / "cassettes"
        for base in (
            Path(os.environ.get("HARNESS_CORPUS_DIR", ROOT / "missing")),
            ROOT.parent / "shared" / "corpus",
            ROOT.parent.parent / "shared" / "corpus",
        )
        if (base / "cassettes").is_dir()
    ),
    ROOT.parent / "shared" / "corpus" / "cassettes",
)
FAKE_KEY = "sk-test-CORPUS0000"
MISSING = (
    "needs the shared corpus cassettes (traffic other projects recorded from the real "
    f"OpenAI/Anthropic APIs, kept outside this repo) at {CORPUS}: check out ../shared/corpus "
    "beside the repo or set HARNESS_CORPUS_DIR"
)


PEERS = CORPUS / "peers"
RESPONSES = CORPUS / "responses"
MISSING_RESPONSES = (
    f"needs the shared corpus's Responses API cassettes at {RESPONSES}: check out "
    "../shared/corpus beside the repo or set HARNESS_CORPUS_DIR"
)


def _cases(folder: Path = CORPUS, missing: str = MISSING) -> list[Any]:
    if not folder.is_dir():
        return [pytest.param(None, 0, marks=pytest.mark.skip(reason=missing))]
    cases = []
    for path in sorted(folder.glob("*.yaml")):
        # libyaml where built: this runs at collection, on every worker.
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
        for index in range(len(data["interactions"])):
            cases.append(pytest.param(path, index, id=f"{path.stem[:3]}-{index}"))
    return cases


def _tiered(params: list[Any], default: set[str]) -> list[Any]:
    """The rows not named in ``default`` (a sample of each family) run in the deep tier only."""
    return [
        p
        if p.id is None or p.id in default
        else pytest.param(*p.values, id=p.id, marks=[*p.marks, pytest.mark.deep])
        for p in params
    ]


_STALE = ("content-encoding", "content-length", "transfer-encoding")


def _recorded(path: Path, index: int) -> tuple[dict[str, Any], httpx2.Response]:
    """The request body and the response exactly as the file holds it (either layout)."""
    item = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"][index]
    response = item["response"]
    headers = [(k, v) for k, values in (response.get("headers") or {}).items() for v in values]
    request = item["request"]
    sent = request["body"] if "body" in request else json.dumps(request["parsed_body"])
    if "parsed_body" in response:
        # pydantic-ai's serializer: the decoded JSON as a structure, wire headers stale.
        headers = [(k, v) for k, v in headers if k.lower() not in _STALE]
        body = json.dumps(response["parsed_body"]).encode("utf-8")
        return json.loads(sent), httpx2.Response(
            response["status"]["code"], headers=headers, content=body
        )
    if "status_code" in response:
        # vcrpy's older httpx layout stored httpx's *decoded* content next to the
        # original headers; serve it as such (without the stale Content-Encoding).
        headers = [(k, v) for k, v in headers if k.lower() != "content-encoding"]
        status, body = response["status_code"], response["content"]
    else:
        status, body = response["status"]["code"], response["body"]["string"]
    body = body.encode("utf-8") if isinstance(body, str) else body
    return json.loads(sent), httpx2.Response(status, headers=headers, content=body)


def _call(create: Callable[..., Any], body: dict[str, Any]) -> Any:
    # Parameters this SDK version no longer names (Anthropic 2.x dropped
    # ``temperature``) still go out in the body, through extra_body.
    known = inspect.signature(create).parameters
    extra = {k: v for k, v in body.items() if k not in known}
    named = {k: v for k, v in body.items() if k in known}
    return create(**named, extra_body=extra or None)


def _sdk_call(uri: str, body: dict[str, Any], http: httpx2.Client) -> Any:
    """The SDK call that sends ``body``; a stream is drained into its events."""
    if "/chat/completions" in uri:
        oai = openai.OpenAI(api_key=FAKE_KEY, http_client=http, max_retries=0)
        result: Any = _call(oai.chat.completions.create, body)
    elif "/responses" in uri:
        oai = openai.OpenAI(api_key=FAKE_KEY, http_client=http, max_retries=0)
        result = _call(oai.responses.create, body)
    else:
        ant = anthropic.Anthropic(api_key=FAKE_KEY, http_client=http, max_retries=0)
        result = _call(ant.messages.create, body)
    if body.get("stream"):
        return [event for event in result]
    return result


def _adapted(uri: str, parsed: Any) -> LLMResponse:
    if "/responses" in uri:
        if isinstance(parsed, list):
            events = EventAssembler()
            for event in parsed:
                events.add(event.to_dict())
            return events.response()
        return from_response(parsed.to_dict())
    if "/chat/completions" not in uri:
        if isinstance(parsed, list):
            return from_anthropic_message(_accumulate(parsed))
        return from_anthropic_message(parsed)
    if isinstance(parsed, list):
        assembler = ChunkAssembler()
        for chunk in parsed:
            assembler.add(chunk)
        return assembler.response()
    return from_chat_completion(parsed)


def _accumulate(events: list[Any]) -> Any:
    from anthropic.lib.streaming._messages import accumulate_event

    message = None
    buffers: dict[int, bytes] = {}
    for event in events:
        message = accumulate_event(event=event, current_snapshot=message, json_bufs=buffers)
    return message


def _dump(value: Any) -> Any:
    if isinstance(value, list):
        return [item.model_dump() for item in value]
    return value.model_dump()


@pytest.mark.parametrize(
    ("path", "index"),
    _tiered(
        [*_cases(), *_cases(RESPONSES, MISSING_RESPONSES)], {"A05-0", "H10-0", "O01-0", "R06-0"}
    ),
)
def test_replay_equals_the_sdk_parse_of_the_recorded_bytes(
    path: Path, index: int, tmp_path: Path
) -> None:
    body, response = _recorded(path, index)
    uri = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"][index]["request"]["uri"]
    mock: Callable[[httpx2.Request], httpx2.Response] = lambda request: response  # noqa: E731
    expected = _sdk_call(uri, body, httpx2.Client(transport=httpx2.MockTransport(mock)))

    copy = tmp_path / path.name
    shutil.copy(path, copy)
    with use_cassette(copy, ignore_query_params=("beta",)) as cassette:
        # Earlier interactions of the file are sent first, so this one is next in order.
        replayed = None
        for earlier in range(index + 1):
            earlier_body, _ = _recorded(path, earlier)
            replayed = _sdk_call(uri, earlier_body, httpx2.Client())
    assert cassette.report.played == index + 1
    assert _dump(replayed) == _dump(expected)
    adapted = _adapted(uri, replayed)
    assert adapted == _adapted(uri, expected)
    assert adapted.raw_id and adapted.model
    assert adapted.text or adapted.tool_calls
    assert adapted.usage.input_tokens >= adapted.usage.cached_input_tokens


# Old recordings name models the SDK now warns about; the warning is not the replay's.
@pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")
@pytest.mark.parametrize(
    ("path", "index"),
    _tiered(
        _cases(PEERS), {"A01-0", "A03-0", "A09-0", "A10-0", "O05-0", "O07-0", "O08-0", "O09-0"}
    ),
)
def test_peer_cassettes_replay_as_the_sdk_parses_their_bytes(
    path: Path, index: int, tmp_path: Path
) -> None:
    body, response = _recorded(path, index)
    uri = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"][index]["request"]["uri"]
    mock: Callable[[httpx2.Request], httpx2.Response] = lambda request: response  # noqa: E731
    expected = _sdk_call(uri, body, httpx2.Client(transport=httpx2.MockTransport(mock)))
    copy = tmp_path / path.name
    shutil.copy(path, copy)
    with use_cassette(copy, ignore_query_params=("beta",)) as cassette:
        replayed = None
        for earlier in range(index + 1):
            earlier_body, _ = _recorded(path, earlier)
            replayed = _sdk_call(uri, earlier_body, httpx2.Client())
    assert cassette.report.played == index + 1
    assert _dump(replayed) == _dump(expected)
    assert _adapted(uri, replayed) == _adapted(uri, expected)


# (input incl. cache, output, cache reads, cache writes), read off the recorded bodies.
CACHED_USAGE = {
    ("A02", 0): (11 + 2055, 100, 2055, 0),  # Anthropic input_tokens excludes the cache read
    ("A07", 0): (4 + 1165, 201, 0, 1165),  # ... and the cache write
    ("A07", 1): (4 + 1165, 221, 1165, 0),
    ("O03", 0): (1420, 100, 1280, 0),  # OpenAI prompt_tokens already includes cached_tokens
}


@pytest.mark.parametrize(
    ("prefix", "index"), [pytest.param(*key, id=f"{key[0]}-{key[1]}") for key in CACHED_USAGE]
)
def test_adapters_normalise_cached_usage(prefix: str, index: int) -> None:
    matches = sorted(CORPUS.glob(f"{prefix}__*.yaml")) if CORPUS.is_dir() else []
    if not matches:
        pytest.skip(f"no corpus cassette {prefix}*: {MISSING}")
    body, response = _recorded(matches[0], index)
    uri = "/chat/completions" if prefix.startswith("O") else "/v1/messages"
    mock: Callable[[httpx2.Request], httpx2.Response] = lambda request: response  # noqa: E731
    parsed = _sdk_call(uri, body, httpx2.Client(transport=httpx2.MockTransport(mock)))
    usage = _adapted(uri, parsed).usage
    assert (
        usage.input_tokens,
        usage.output_tokens,
        usage.cached_input_tokens,
        usage.cache_write_input_tokens,
    ) == CACHED_USAGE[(prefix, index)]


# (input incl. cache, output incl. reasoning, cache reads, reasoning), off the recorded bodies.
RESPONSES_USAGE = {
    ("R03", 1): (2087, 124, 2048, 0),  # a replayed reasoning item hits the prompt cache
    ("H05", 1): (1185, 15, 1152, 0),
    ("H10", 0): (44, 288, 0, 9),  # reasoning tokens are part of output_tokens
}


@pytest.mark.parametrize(
    ("prefix", "index"), [pytest.param(*key, id=f"{key[0]}-{key[1]}") for key in RESPONSES_USAGE]
)
def test_responses_adapter_normalises_cached_and_reasoning_usage(prefix: str, index: int) -> None:
    matches = sorted(RESPONSES.glob(f"{prefix}__*.yaml")) if RESPONSES.is_dir() else []
    if not matches:
        pytest.skip(f"no corpus cassette {prefix}*: {MISSING_RESPONSES}")
    body, response = _recorded(matches[0], index)
    mock: Callable[[httpx2.Request], httpx2.Response] = lambda request: response  # noqa: E731
    parsed = _sdk_call("/v1/responses", body, httpx2.Client(transport=httpx2.MockTransport(mock)))
    usage = _adapted("/v1/responses", parsed).usage
    assert (
        usage.input_tokens,
        usage.output_tokens,
        usage.cached_input_tokens,
        usage.reasoning_tokens,
    ) == RESPONSES_USAGE[(prefix, index)]
