"""The fast reader of cassette items agrees with PyYAML, or steps aside.

``read_block_document`` may return None (PyYAML then reads the text) but must
never return data PyYAML would read differently.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from harness.recording._entries import split_items, stamp_checksums
from harness.recording._fastyaml import read_block_document
from harness.recording._format import dump_document

CASSETTE = Path("cassette.yaml")


def item_texts(response: dict[str, Any]) -> str:
    """The ``response:`` text of one item, exactly as a saved cassette holds it."""
    data = {
        "version": 1,
        "interactions": [
            {
                "harness_match": "POST /v1/x 0123 0000000000000000",
                "request": {"method": "POST", "uri": "http://127.0.0.1/v1/x", "body": "{}"},
                "response": response,
            }
        ],
    }
    split = split_items(dump_document(CASSETTE, data))
    assert split is not None
    return split[1][0].response_text


def pyyaml(text: str) -> Any:
    return yaml.load(text, Loader=yaml.CSafeLoader)


def agrees(text: str) -> Any:
    """The fast result, after checking it equals PyYAML's (None if it stepped aside)."""
    fast = read_block_document(text)
    if fast is not None:
        assert fast == pyyaml(text)
        assert type(fast["response"]["status"]["code"]) is type(
            pyyaml(text)["response"]["status"]["code"]
        )
    return fast


def response(code: int, message: str, headers: dict[str, list[str]], body: str) -> dict[str, Any]:
    return {
        "status": {"code": code, "message": message},
        "headers": headers,
        "body": {"string": body},
    }


header_names = st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)
any_text = st.text(max_size=60)
header_values = st.one_of(
    any_text, st.sampled_from(["yes", "1", "1.5", "null", "~", "- x", "a: b"])
)


@pytest.mark.deep
@given(
    code=st.integers(min_value=-1000, max_value=1000),
    message=any_text,
    headers=st.dictionaries(header_names, st.lists(header_values, max_size=3), max_size=4),
    body=st.text(max_size=300),
)
@settings(max_examples=400, deadline=None)
def test_agrees_with_pyyaml_on_any_response(
    code: int, message: str, headers: dict[str, list[str]], body: str
) -> None:
    agrees(item_texts(response(code, message, headers, body)))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(st.characters(codec="ascii"), max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=12,
)


@pytest.mark.deep
@given(payload=json_values, stream=st.booleans())
@settings(max_examples=200, deadline=None)
def test_reads_the_bodies_providers_send_without_pyyaml(payload: Any, stream: bool) -> None:
    # Pretty JSON and SSE streams, the bodies cassettes hold, take the fast path:
    # otherwise this reader would be correct but pointless.
    encoded = json.dumps(payload, indent=2)
    body = "".join(f"data: {line}\n\n" for line in encoded.splitlines()) if stream else encoded
    headers = {"content-type": ["application/json"], "x-request-id": ["req_123"]}
    fast = agrees(item_texts(response(200, "OK", headers, body)))
    assert fast is not None
    assert fast["response"]["body"]["string"] == body


@given(payload=json_values, spacing=st.sampled_from([None, 2]))
@settings(max_examples=200, deadline=None)
def test_reads_streams_framed_with_crlf_without_pyyaml(payload: Any, spacing: int | None) -> None:
    # Gemini frames SSE events with \r\n, which a block scalar cannot hold: the
    # dumper writes such a body as one double-quoted line, read here as JSON.
    event = json.dumps({"text": payload, "quote": 'say "hi"\\n', "path": "C:\\x"}, indent=spacing)
    body = f"data: {event}\r\n\r\n" * 3
    headers = {"content-type": ["text/event-stream"]}
    fast = agrees(item_texts(response(200, "OK", headers, body)))
    assert fast is not None
    assert fast["response"]["body"]["string"] == body


quoted_text = st.text(
    st.one_of(
        st.sampled_from('\\"\r\n\t /ux0e\x00\x07\x1b\x85\xa0\u2028\ufeff\U0001f600é'),
        st.characters(exclude_categories=["Cs"]),  # the dumper cannot write surrogates
    ),
    max_size=40,
)


@pytest.mark.deep  # 500 hypothesis examples
@given(value=quoted_text)
@example(value="a\rb")
@example(value='\\"data: {\\"q\\": \\"\\\\u00e9\\"}\r\n\t é\U0001f600')
@settings(max_examples=500, deadline=None)
def test_double_quoted_scalars_agree_with_pyyaml(value: str) -> None:
    # Escapes, backslashes and quotes in any order: whatever the dumper quotes is
    # read as PyYAML reads it, or left to PyYAML.
    text = dump_document(CASSETTE, {"message": value, "values": [value]})
    fast = read_block_document(text)
    assert fast is None or fast == pyyaml(text)
    plain = all(c.isprintable() or c in "\r\n\t" for c in value)
    if fast is None and "\r" in value and plain:
        pytest.fail(f"text with \\r and JSON's escapes only should be read here: {text!r}")


@pytest.mark.parametrize(
    ("line", "value"),
    [
        pytest.param('"a\\r\\nb"', "a\r\nb", id="crlf"),
        pytest.param('"\\\\\\"\\\\"', '\\"\\', id="backslashes-and-quotes"),
        pytest.param('"\\\\u00e9\\u00e9"', "\\u00e9é", id="escaped-backslash-before-u"),
        pytest.param('"tab\\there"', "tab\there", id="escaped-tab"),
        pytest.param('"\\b\\f"', "\b\f", id="b-and-f"),
    ],
)
def test_double_quoted_escapes(line: str, value: str) -> None:
    text = f"message: {line}\n"
    assert read_block_document(text) == pyyaml(text) == {"message": value}


@pytest.mark.parametrize("body", ["a\nb", "a\nb\n", "a\nb\n\n\n", "a\n\nb", "x", ""])
def test_literal_blocks_keep_their_line_breaks(body: str) -> None:
    assert agrees(item_texts(response(200, "OK", {}, body))) is not None or body == ""


@pytest.mark.parametrize(
    "text",
    [
        '  response:\n    status:\n      message: "two\n        lines"\n',  # folded quotes
        '  response:\n    status:\n      message: "a\\\n        b"\n',  # an escaped break
        '  response:\n    status:\n      message: "a" # comment\n',
        '  response:\n    status:\n      message: "a\tb"\n',  # a literal tab
        '  response:\n    status:\n      message: "a\\x41"\n',  # an escape JSON lacks
        '  response:\n    status:\n      message: "a\\/"\n',  # one libyaml never writes
        '  response:\n    status:\n      message: "\\ud83d\\ude00"\n',  # surrogates
        '  response:\n    status:\n      message: "a\\uDC00"\n',  # a lone low surrogate
        '  response:\n    status:\n      message: "a\\"\n',  # the quote is escaped
        "  response:\n    status: {code: 200}\n",  # a flow mapping
        "  response:\n    status:\n      code: 200 # comment\n",
        "  response:\n    status:\n      code: &a 200\n",  # an anchor
        "  response:\n    body:\n      string: |2-\n          indented\n",  # indicator
        "  response:\n    status:\n      code: 2.5\n",  # a float
        "  response:\n    status:\n      message: two\n        lines\n",  # continuation
        "  response:\n    status:\n      message:\n",  # null
        "  response:\n    status:\n      message: a\x07b\n",  # not printable
        "  response:\n    status:\n      message: a\r\n",  # a foreign line break
        "  response:\n\n    status: {}\n",  # a blank line
    ],
)
def test_steps_aside_for_yaml_it_does_not_write(text: str) -> None:
    assert read_block_document(text) is None


@given(
    model=any_text,
    against=st.one_of(st.none(), any_text),
    ignored=st.lists(st.text(max_size=12), max_size=3),
    extra=st.dictionaries(st.text(max_size=8), st.one_of(st.integers(), any_text), max_size=3),
)
@settings(max_examples=30, deadline=None)
def test_agrees_with_pyyaml_on_any_header(
    model: str, against: str | None, ignored: list[str], extra: dict[str, Any]
) -> None:
    # The cassette's header block (load_cassette reads it this way first).
    header = _header(model, against, ignored, extra)
    fast = read_block_document(header)
    assert fast is None or fast == yaml.safe_load(header)


def test_a_typical_header_takes_the_fast_path() -> None:
    header = _header("gpt-4.1-mini", "127.0.0.1:44397 (harness simulator)", [], {})
    assert read_block_document(header) == yaml.safe_load(header)


def _header(model: str, against: str | None, ignored: list[str], extra: dict[str, Any]) -> str:
    harness_block = {
        "schema_version": 1,
        "provider": "openai",
        "model": model,
        "recorded_at": "2026-12-01T18:24:44+00:00",
        "harness_version": "0.1.0",
        "recorded_against": against,
        "ignore_body_fields": ignored,
        "interaction_count": 1,
        "extra": extra,
    }
    data = {"version": 1, "harness": harness_block, "interactions": [_ITEM]}
    split = split_items(dump_document(CASSETTE, data))
    assert split is not None
    return split[0] + "interactions: []\n"


_ITEM = {
    "harness_match": "POST /v1/x 0123 0000000000000000",
    "request": {"method": "POST", "uri": "http://127.0.0.1/v1/x", "body": "{}"},
    "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": ""}},
}


@given(
    bodies=st.lists(st.text(max_size=80), min_size=1, max_size=4),
    messages=st.lists(any_text, min_size=4, max_size=4),
)
@settings(max_examples=150, deadline=None)
def test_items_split_back_into_the_text_they_came_from(
    bodies: list[str], messages: list[str]
) -> None:
    interactions = [
        {
            "harness_match": f"POST /v1/x {n:04d} 0000000000000000",
            "request": {"method": "POST", "uri": "http://127.0.0.1/v1/x", "body": body},
            "response": response(200, messages[n], {}, f"- harness_match: {body}\n"),
        }
        for n, body in enumerate(bodies)
    ]
    text = stamp_checksums(dump_document(CASSETTE, {"version": 1, "interactions": interactions}))
    split = split_items(text)
    assert split is not None
    header, items = split
    assert [item.match for item in items] == [f"POST /v1/x {n:04d}" for n in range(len(bodies))]
    assert all(item.intact for item in items)
    rebuilt = "".join(
        f"- harness_match: {item.match} {text.split(item.match + ' ', 1)[1][:16]}\n"
        f"{item.request_text}{item.response_text}"
        for item in items
    )
    assert header + "interactions:\n" + rebuilt == text
