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
from hypothesis import given, settings
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


@pytest.mark.parametrize("body", ["a\nb", "a\nb\n", "a\nb\n\n\n", "a\n\nb", "x", ""])
def test_literal_blocks_keep_their_line_breaks(body: str) -> None:
    assert agrees(item_texts(response(200, "OK", {}, body))) is not None or body == ""


@pytest.mark.parametrize(
    "text",
    [
        '  response:\n    status:\n      code: 200\n      message: "OK"\n',  # double quotes
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
