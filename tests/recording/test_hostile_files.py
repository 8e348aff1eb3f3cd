"""Malformed and hostile cassette files fail with a CassetteError naming file and interaction.

Each malformed file is loaded through ``use_cassette`` and a replayed SDK call
(the path a test takes), and through ``harness cassettes check``'s scan.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import openai
import pytest
import yaml

from harness.core import CassetteError
from harness.recording import scan_cassette_file, use_cassette
from harness.recording._bounds import MAX_EXPANDED_NODES

from .helpers import OPENAI_KEY

BODY = json.dumps({"model": "m", "messages": []})
GOOD: dict[str, Any] = {
    "request": {
        "method": "POST",
        "uri": "https://api.openai.com/v1/chat/completions",
        "body": BODY,
        "headers": {"Content-Type": ["application/json"]},
    },
    "response": {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Type": ["application/json"]},
        "body": {"string": json.dumps({"id": "c1", "object": "x", "created": 1, "choices": []})},
    },
}


def _with(part: str, field: str, value: Any) -> dict[str, Any]:
    item = copy.deepcopy(GOOD)
    if value is _DELETE:
        del item[part][field]
    else:
        item[part][field] = value
    return item


_DELETE = object()
MALFORMED = [
    pytest.param(
        _with("response", "status", {"code": "abc"}), "status code 'abc'", id="status-abc"
    ),
    pytest.param(_with("response", "status", {"code": {"x": 1}}), "status code", id="status-map"),
    pytest.param(_with("response", "status", 200), "no status mapping", id="status-int"),
    pytest.param(_with("response", "status", {"code": True}), "status code True", id="status-bool"),
    pytest.param(
        _with("response", "status", {"code": 200, "message": ["OK"]}), "message", id="message-list"
    ),
    pytest.param(_with("request", "uri", ["https://a", "https://b"]), "uri is list", id="uri-list"),
    pytest.param(_with("request", "method", 7), "method is int", id="method-int"),
    pytest.param(_with("request", "uri", _DELETE), "uri is missing", id="uri-missing"),
    pytest.param(_with("request", "body", _DELETE), "no 'body' key", id="request-body-missing"),
    pytest.param(_with("request", "body", 42), "request body is a int", id="request-body-number"),
    pytest.param(_with("request", "headers", ["a"]), "headers are a list", id="headers-list"),
    pytest.param(_with("response", "headers", "x"), "headers are a str", id="resp-headers-str"),
    pytest.param(
        _with("response", "headers", {"a": [{"b": 1}]}), "not text", id="header-value-map"
    ),
    pytest.param(_with("response", "body", 5), "no body mapping", id="body-number"),
    pytest.param(_with("response", "body", {"string": 5}), "not text", id="body-string-number"),
    pytest.param(_with("response", "body", {}), "no body mapping", id="body-no-string"),
    pytest.param({"request": GOOD["request"], "response": None}, "no response", id="no-response"),
    pytest.param({"response": GOOD["response"]}, "no request", id="no-request"),
    pytest.param(["not", "a", "mapping"], "not a mapping", id="item-list"),
    pytest.param(
        {
            "request": GOOD["request"],
            "response": {"status_code": "x", "content": "", "headers": {}},
        },
        "status_code 'x'",
        id="older-layout-bad-code",
    ),
]


def _write(path: Path, interactions: Any) -> Path:
    path.write_text(yaml.safe_dump({"version": 1, "interactions": interactions}), "utf-8")
    return path


def _replay(path: Path) -> None:
    client = openai.OpenAI(api_key=OPENAI_KEY, max_retries=0)
    with use_cassette(path):
        client.post("/chat/completions", body=json.loads(BODY), cast_to=dict)  # type: ignore[type-var]


@pytest.mark.parametrize(("item", "message"), MALFORMED)
def test_a_malformed_interaction_is_a_cassette_error(
    tmp_path: Path, item: Any, message: str
) -> None:
    path = _write(tmp_path / "bad.yaml", [GOOD, item])
    with pytest.raises(CassetteError, match="interaction 1") as caught:
        _replay(path)
        _replay(path)  # the second call reaches the bad interaction if the first did not
    assert str(path) in str(caught.value)
    assert message in str(caught.value)
    findings = scan_cassette_file(path)
    assert [(f.interaction, f.kind) for f in findings] == [(1, "malformed")]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        pytest.param({"version": 1, "interactions": {"a": 1}}, "no 'interactions' list", id="dict"),
        pytest.param({"version": 1}, "no 'interactions' list", id="missing"),
        pytest.param({"version": 2, "interactions": []}, "format version 2", id="version"),
        pytest.param(["a"], "no 'interactions' list", id="top-level-list"),
    ],
)
def test_a_malformed_file_is_a_cassette_error(tmp_path: Path, document: Any, message: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(document), "utf-8")
    with pytest.raises(CassetteError, match=message):
        _replay(path)


BOMB = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(
            f"{name}: &{name} [{','.join([f'*{prev}'] * 9)}]"
            for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        "version: 1",
        "interactions: [*i]",
    ]
)


def test_an_alias_bomb_is_refused_by_construction(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB, "utf-8")
    assert len(BOMB) < 700  # 9 levels of 9 aliases: 9**9 nodes if walked
    with pytest.raises(CassetteError, match=f"over {MAX_EXPANDED_NODES:,} nodes"):
        _replay(path)
    [finding] = scan_cassette_file(path)
    assert finding.kind == "unreadable" and "alias bomb" in finding.excerpt


def test_a_few_aliases_are_fine(tmp_path: Path) -> None:
    # A YAML dumper writes &id001/*id001 for a repeated object: that must still load.
    headers = {"Content-Type": ["application/json"]}
    item = copy.deepcopy(GOOD)
    item["request"]["headers"] = item["response"]["headers"] = headers  # shared: an alias
    path = tmp_path / "aliased.yaml"
    path.write_text(yaml.dump({"version": 1, "interactions": [item]}), "utf-8")
    assert "*id001" in path.read_text()
    _replay(path)


def test_the_older_httpx_layout_replays_as_vcrpy_reads_it(tmp_path: Path) -> None:
    older = {
        "request": GOOD["request"],
        "response": {
            "status_code": 200,
            "headers": {"content-type": ["application/json"]},
            "content": GOOD["response"]["body"]["string"],
        },
    }
    path = _write(tmp_path / "older.yaml", [older])
    client = openai.OpenAI(api_key=OPENAI_KEY, max_retries=0)
    with use_cassette(path) as cassette:
        result = client.post("/chat/completions", body=json.loads(BODY), cast_to=dict)  # type: ignore[type-var]
    assert result["id"] == "c1" and cassette.report.played == 1
