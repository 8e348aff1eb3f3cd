"""Body normalization (property-tested) and the readable miss diff."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.recording import normalize_body
from harness.recording._diff import describe_difference, nearest
from harness.recording._matching import BodyNormalizer, MatchKey

keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=10,
)
bodies = st.dictionaries(keys, json_values, min_size=1, max_size=6)


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {key: _shuffled(item, rng) for key, item in items}
    if isinstance(value, list):
        return [_shuffled(item, rng) for item in value]
    return value


@pytest.mark.deep
@settings(database=None, max_examples=40)
@given(body=bodies, seed=st.integers(0, 2**16))
def test_key_order_never_matters(body: dict[str, Any], seed: int) -> None:
    shuffled = _shuffled(body, random.Random(seed))
    assert normalize_body(json.dumps(body)) == normalize_body(
        json.dumps(shuffled, indent=2).encode()
    )


@pytest.mark.deep
@settings(database=None, max_examples=40)
@given(body=bodies, volatile=json_values, ids=st.lists(st.text(max_size=10), max_size=4))
def test_ignored_fields_never_matter(body: dict[str, Any], volatile: Any, ids: list[str]) -> None:
    body = {k: v for k, v in body.items() if k not in ("metadata", "messages")}
    noisy = {**body, "metadata": volatile, "messages": [{"role": "user", "id": i} for i in ids]}
    clean = {**body, "messages": [{"role": "user"} for _ in ids]}
    fields = ("metadata", "messages.*.id")
    assert normalize_body(json.dumps(noisy), fields) == normalize_body(json.dumps(clean), fields)


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        pytest.param(
            ("stream_options.include_usage",), {"a": 1, "stream_options": {}}, id="nested"
        ),
        pytest.param(("list.1.x",), {"a": 1, "list": [{"x": 1}, {}]}, id="list-index"),
        pytest.param(("missing.path",), None, id="absent-path-is-harmless"),
    ],
)
def test_dotted_paths(fields: tuple[str, ...], expected: Any) -> None:
    body = {"a": 1, "stream_options": {"include_usage": True}, "list": [{"x": 1}, {"x": 2}]}
    if expected is not None:
        body = {k: v for k, v in body.items() if k in expected}
    value = BodyNormalizer(fields).value(json.dumps(body))
    assert value == (expected if expected is not None else body)


def test_non_json_bodies_compare_as_text() -> None:
    assert normalize_body(b"plain text") == '"plain text"'
    assert normalize_body(None) == normalize_body(b"") == "null"


def test_match_key_covers_method_path_and_sorted_query() -> None:
    first = MatchKey.build("post", "https://h/v1/messages?b=2&a=1", "{}")
    second = MatchKey.build("POST", "http://other:1/v1/messages?a=1&b=2", "{}")
    assert first == second
    assert first.target == "/v1/messages?a=1&b=2"


def test_difference_lists_changes_additions_and_removals() -> None:
    old = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0}
    new = {"model": "m2", "messages": [{"role": "user", "content": "hello"}], "top_p": 1}
    assert describe_difference(old, new) == [
        "messages[0].content: 'hi' -> 'hello'",
        "model: 'm' -> 'm2'",
        "temperature: removed (was 0)",
        "top_p: added 1",
    ]


def test_nearest_prefers_the_longest_shared_conversation() -> None:
    base = [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]
    candidates = [
        (0, {"model": "m", "messages": base[:1]}, False),
        (1, {"model": "m", "messages": [*base, {"role": "user", "content": "c"}]}, False),
        (2, {"model": "m", "messages": [*base, {"role": "user", "content": "c"}]}, True),
    ]
    current = {"model": "m", "messages": [*base, {"role": "user", "content": "d"}]}
    assert nearest(current, candidates) == (1, candidates[1][1])
