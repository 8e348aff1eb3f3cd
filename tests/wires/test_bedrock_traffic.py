"""Bedrock traffic beyond the corpus: SigV4 scrubbing, the live label, streams that fail.

The corpus files carry no SigV4 header (pydantic-ai's recorder dropped them),
so the scrubbing is checked on traffic made here: a Converse call signed the
way botocore signs it, sent over 127.0.0.1 to a real HTTP server and recorded
through harness's cassette, must leave no credential in the file, and the
file must still decode. Streams are written with the encoder (its frames are
checked against the spec in ``test_bedrock_eventstream``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.wires import is_live_api_host, wire
from harness.evals.live_hosts import is_live_host
from harness.recording import scan_cassette_file, use_cassette
from harness.recording._filters import keep_request_headers
from harness.recording._logfilter import redact_log_text
from harness.recording._redact import redact_uri
from harness.testing import HttpExchange, trace_from_cassette, trace_from_exchanges
from harness.testing.cassettes.live_guard import is_model_api_host
from harness.testing.rows.traffic_rows import model_api, summarize_traffic
from harness.wires.bedrock.eventstream import encode_frame
from harness.wires.bedrock.traffic import fold_stream, model_of_path, read_request, read_response
from tests.loopback import serving

ACCESS_KEY = "AKIAIOSFODNN7EXAMPLE"
SIGNATURE = "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7"
SESSION_TOKEN = "FwoGZXIvYXdzEJr//////////wEaDExampleSessionToken0123456789"
CONTENT_SHA = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
SIGV4 = {
    "authorization": (
        f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/20260101/us-east-1/bedrock/aws4_request, "
        f"SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature={SIGNATURE}"
    ),
    "x-amz-date": "20260101T000000Z",
    "x-amz-security-token": SESSION_TOKEN,
    "x-amz-content-sha256": CONTENT_SHA,
}
SECRETS = (ACCESS_KEY, SIGNATURE, SESSION_TOKEN, CONTENT_SHA)
CONVERSE = {
    "output": {
        "message": {
            "role": "assistant",
            "content": [
                {"text": "Looking it up."},
                {"toolUse": {"toolUseId": "tooluse_1", "name": "lookup", "input": {"q": "x"}}},
            ],
        }
    },
    "stopReason": "tool_use",
    "usage": {"inputTokens": 10, "outputTokens": 4, "totalTokens": 14},
    "metrics": {"latencyMs": 5},
}
REQUEST = {"messages": [{"role": "user", "content": [{"text": "find x"}]}], "system": []}


def _event(kind: str, payload: dict[str, Any], message_type: str = "event") -> bytes:
    headers = {":event-type": kind, ":content-type": "application/json"}
    return encode_frame({**headers, ":message-type": message_type}, json.dumps(payload).encode())


STREAM = b"".join(
    [
        _event("messageStart", {"role": "assistant", "p": "abc"}),
        _event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}}),
        _event("contentBlockStop", {"contentBlockIndex": 0}),
        _event(
            "contentBlockStart",
            {"contentBlockIndex": 1, "start": {"toolUse": {"toolUseId": "t2", "name": "f"}}},
        ),
        _event(
            "contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"a"'}}}
        ),
        _event(
            "contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": ": 1}"}}}
        ),
        _event("contentBlockStop", {"contentBlockIndex": 1}),
        _event("messageStop", {"stopReason": "tool_use"}),
        _event("metadata", {"usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}}),
    ]
)


class _Bedrock(BaseHTTPRequestHandler):
    """Answers ``converse`` with JSON and ``converse-stream`` with event-stream frames."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        stream = self.path.endswith("/converse-stream")
        body = STREAM if stream else json.dumps(CONVERSE).encode()
        self.send_response(200)
        kind = "application/vnd.amazon.eventstream" if stream else "application/json"
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.send_header("x-amzn-requestid", "00000000-0000-0000-0000-000000000000")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:  # keep pytest's output clean
        pass


@pytest.fixture
def bedrock() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Bedrock)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}"


def test_a_signed_call_recorded_keeps_no_sigv4_material(bedrock: str, tmp_path: Path) -> None:
    path = tmp_path / "bedrock.yaml"
    body = json.dumps(REQUEST).encode()
    headers = {"content-type": "application/json", **SIGV4}
    with use_cassette(path, record_mode="all"), httpx.Client() as client:
        for method in ("converse", "converse-stream"):
            url = f"{bedrock}/model/us.amazon.nova-micro-v1%3A0/{method}"
            assert client.post(url, content=body, headers=headers).status_code == 200
    text = path.read_text("utf-8")
    for secret in SECRETS:
        assert secret not in text
    for name in SIGV4:
        assert name not in text.lower()
    tree = trace_from_cassette(path)
    plain, streamed = sorted(tree.find_all("llm.call"), key=lambda s: s.attributes["stream"])
    assert plain.attributes["model"] == streamed.attributes["model"] == "us.amazon.nova-micro-v1:0"
    assert [c["name"] for c in plain.attributes["tool_calls"]] == ["lookup"]
    assert streamed.attributes["stop_reason"] == "tool_use"
    assert [c["id"] for c in streamed.attributes["tool_calls"]] == ["t2"]
    assert (streamed.attributes["input_tokens"], streamed.attributes["output_tokens"]) == (3, 2)


@pytest.mark.parametrize("name", sorted(SIGV4))
def test_no_sigv4_header_is_kept_on_recording(name: str) -> None:
    headers = {name: SIGV4[name], name.upper(): SIGV4[name], "content-type": "application/json"}
    assert keep_request_headers(headers) == {"content-type": "application/json"}


def test_a_presigned_url_loses_its_signature_credential_and_token() -> None:
    url = (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse?X-Amz-Algorithm="
        f"AWS4-HMAC-SHA256&X-Amz-Credential={ACCESS_KEY}%2F20260101%2Fus-east-1%2Fbedrock"
        f"%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Security-Token={SESSION_TOKEN}"
        f"&X-Amz-Signature={SIGNATURE}"
    )
    redacted = redact_uri(url)
    assert all(secret not in redacted for secret in (ACCESS_KEY, SIGNATURE, SESSION_TOKEN))
    assert "X-Amz-Algorithm=AWS4-HMAC-SHA256" in redacted
    assert set(wire("bedrock").secret_params) == {
        "X-Amz-Signature",
        "X-Amz-Credential",
        "X-Amz-Security-Token",
    }


def test_botocore_s_request_log_line_is_redacted() -> None:
    # botocore.endpoint logs the prepared request at DEBUG, header values as bytes.
    headers = ", ".join(f"'{k.title()}': b'{v}'" for k, v in SIGV4.items())
    line = (
        "Sending http request: <AWSPreparedRequest stream_output=False, method=POST, "
        "url=https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse, "
        f"headers={{{headers}}}>"
    )
    redacted = redact_log_text(line)
    for secret in (ACCESS_KEY, SIGNATURE, SESSION_TOKEN):
        assert secret not in redacted
    plain = f"authorization: {SIGV4['authorization']}"
    assert SIGNATURE not in redact_log_text(plain) and ACCESS_KEY not in redact_log_text(plain)


def test_a_trace_of_signed_traffic_holds_no_credential() -> None:
    exchange = HttpExchange(
        method="POST",
        url="https://bedrock-runtime.eu-west-1.amazonaws.com/model/m/converse",
        request_headers={"content-type": "application/json", **SIGV4},
        request_body=json.dumps(REQUEST).encode(),
        status=200,
        response_headers={"content-type": "application/json"},
        response_body=json.dumps(CONVERSE).encode(),
    )
    text = trace_from_exchanges([exchange], mode="replay").to_json()
    assert all(secret not in text for secret in SECRETS)


@pytest.mark.parametrize(
    "host",
    [
        "bedrock-runtime.us-east-1.amazonaws.com",
        "bedrock-runtime.eu-central-1.amazonaws.com",
        "BEDROCK-RUNTIME.us-east-2.amazonaws.com.",
        "bedrock-runtime-fips.us-gov-west-1.amazonaws.com",
    ],
)
def test_bedrock_runtime_hosts_are_live_and_guarded(host: str) -> None:
    assert is_live_api_host(host) and is_live_host(host) and is_model_api_host(host)


@pytest.mark.parametrize(
    "host",
    ["s3.us-east-1.amazonaws.com", "bedrock-runtime.us-east-1.amazonaws.com.evil.example"],
)
def test_other_hosts_are_not_labelled_bedrock(host: str) -> None:
    assert not is_live_api_host(host)


@pytest.mark.parametrize(
    ("path", "model"),
    [
        ("/model/us.amazon.nova-micro-v1%3A0/converse", "us.amazon.nova-micro-v1:0"),
        ("/model/openai.gpt-oss-120b-1%3A0/converse-stream", "openai.gpt-oss-120b-1:0"),
        (
            "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A1%3Aprofile%2Fx/converse",
            "arn:aws:bedrock:us-east-1:1:profile/x",
        ),
        (
            "/model/arn:aws:bedrock:us-east-1:1:profile/x/converse",
            "arn:aws:bedrock:us-east-1:1:profile/x",
        ),
        ("/model/m/invoke", None),
        ("/v1/chat/completions", None),
        ("/converse", None),
    ],
)
def test_the_model_is_the_url_decoded_path_segment(path: str, model: str | None) -> None:
    assert model_of_path(path) == model


def _streamed(body: bytes, status: int = 200) -> HttpExchange:
    return HttpExchange(
        method="POST",
        url="https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream",
        request_headers={"content-type": "application/json"},
        request_body=json.dumps(REQUEST).encode(),
        status=status,
        response_headers={"content-type": "application/vnd.amazon.eventstream"},
        response_body=body,
    )


def test_an_exception_frame_is_an_error_span() -> None:
    body = _event("messageStart", {"role": "assistant"})
    body += encode_frame(
        {
            ":exception-type": "throttlingException",
            ":content-type": "application/json",
            ":message-type": "exception",
        },
        b'{"message":"Too many requests, please wait before trying again."}',
    )
    call = trace_from_exchanges([_streamed(body)]).one("llm.call")
    assert call.status == "error"
    assert call.attributes["error_type"] == "throttlingException"
    assert call.attributes["error_message"].startswith("Too many requests")


def test_a_corrupt_stream_is_an_error_span_that_says_why() -> None:
    body = bytearray(STREAM)
    body[-1] ^= 0x01
    call = trace_from_exchanges([_streamed(bytes(body))]).one("llm.call")
    assert call.status == "error"
    assert call.attributes["error_type"] == "invalid_event_stream"
    assert "message CRC-32 does not match" in call.attributes["error_message"]


def test_a_tool_input_cut_off_mid_json_is_kept_as_sent() -> None:
    body = b"".join(
        [
            _event(
                "contentBlockStart",
                {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t", "name": "f"}}},
            ),
            _event(
                "contentBlockDelta",
                {"contentBlockIndex": 0, "delta": {"toolUse": {"input": '{"a": '}}},
            ),
            _event("messageStop", {"stopReason": "max_tokens"}),
        ]
    )
    call = trace_from_exchanges([_streamed(body)]).one("llm.call")
    (asked,) = call.attributes["tool_calls"]
    assert asked["argument_chars"] == len('{"a": ')
    assert call.attributes["stop_reason"] == "max_tokens"


class _Sent:
    def __init__(self, uri: str, body: bytes | None) -> None:
        self.method, self.uri, self.body = "POST", uri, body


def test_an_eval_row_takes_the_model_from_the_url() -> None:
    uri = "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-pro-v1%3A0/converse"
    response = {"status": {"code": 200}, "body": {"string": json.dumps(CONVERSE).encode()}}
    summary = summarize_traffic([(_Sent(uri, None), response)])
    assert (summary.provider, summary.model, summary.tool_calls) == (
        "bedrock",
        "us.amazon.nova-pro-v1:0",
        1,
    )
    assert (summary.usage.input_tokens, summary.usage.output_tokens) == (10, 4)


def test_a_converse_ending_elsewhere_is_no_model_call() -> None:
    assert model_api("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse")
    assert model_api("POST", "http://127.0.0.1:9/api/chat/converse") is None
    assert (
        model_api("GET", "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse") is None
    )


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=12,
)
_keys = st.sampled_from(
    [
        "contentBlockIndex",
        "start",
        "delta",
        "toolUse",
        "toolResult",
        "text",
        "input",
        "reasoningContent",
        "signature",
        "redactedContent",
        "stopReason",
        "usage",
        "role",
    ]
)
_payload = st.dictionaries(_keys, _json | st.dictionaries(_keys, _json, max_size=3), max_size=4)
_kinds = st.sampled_from(
    [
        "messageStart",
        "contentBlockStart",
        "contentBlockDelta",
        "contentBlockStop",
        "messageStop",
        "metadata",
        "other",
    ]
)


@given(st.lists(st.tuples(_kinds, _payload), max_size=12))
def test_any_stream_of_events_folds_without_raising(
    events: list[tuple[str, dict[str, Any]]],
) -> None:
    answer = read_response(200, fold_stream(events), b"")
    assert answer.status == 200


@given(st.dictionaries(st.sampled_from(["messages", "system", "toolConfig"]), _json, max_size=3))
def test_any_request_body_reads_without_raising(body: dict[str, Any]) -> None:
    request = read_request(body, model="m")
    assert request.wire == "bedrock" and request.model == "m"


@pytest.mark.parametrize("key", ["AKIAIOSFODNN7EXAMPLE", "ASIAIOSFODNN7EXAMPLE"])
def test_a_cassette_that_kept_a_sigv4_header_is_flagged(key: str, tmp_path: Path) -> None:
    # A plain vcrpy recording keeps every header: the scan is the second line of defence.
    path = tmp_path / "plain.yaml"
    authorization = SIGV4["authorization"].replace(ACCESS_KEY, key)
    interaction = {
        "request": {
            "body": json.dumps(REQUEST),
            "headers": {"Authorization": [authorization]},
            "method": "POST",
            "uri": "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse",
        },
        "response": {
            "body": {"string": json.dumps(CONVERSE)},
            "headers": {},
            "status": {"code": 200, "message": "OK"},
        },
    }
    path.write_text(json.dumps({"interactions": [interaction], "version": 1}), "utf-8")
    findings = [str(finding) for finding in scan_cassette_file(path)]
    assert findings and all("Authorization" in finding for finding in findings), findings
    assert not any(key in finding for finding in findings)  # a finding never repeats it
