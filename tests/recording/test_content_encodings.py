"""Every content encoding httpx can decode is recorded readable and replays everywhere.

A loopback server answers with gzip, deflate, brotli and zstd bodies (plain and
event streams). Each recorded cassette holds the decoded text without a
``Content-Encoding`` header, and replays through harness, plain vcrpy (default
``match_on``) and pytest-recording, with the server stopped.
"""

from __future__ import annotations

import gzip
import importlib.util
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
import vcr
import yaml

from harness.core import CassetteError
from harness.recording import scan_cassette_file, use_cassette
from harness.recording._encoding import decode_response

from .helpers import OPENAI_KEY, openai_client
from .wire import ANSWER, ENCODERS, WireServer, wire_server

ENCODINGS = [
    pytest.param(name, id=name, marks=pytest.mark.skipif(name not in ENCODERS, reason=f"no {name}"))
    for name in ("gzip", "deflate", "br", "zstd")
]
MESSAGES = [{"role": "user", "content": "Decode this"}]


@pytest.fixture
def server() -> Iterator[WireServer]:
    with wire_server() as running:
        yield running


def ask(client: openai.OpenAI, stream: bool) -> str:
    """One chat completion through the SDK; the streamed text is joined."""
    if not stream:
        result = client.chat.completions.create(model="gpt-enc", messages=MESSAGES)  # type: ignore[arg-type]
        return result.choices[0].message.content or ""
    chunks = client.chat.completions.create(model="gpt-enc", messages=MESSAGES, stream=True)  # type: ignore[arg-type]
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)


def record(server: WireServer, encoding: str, path: Path, stream: bool) -> str:
    with openai_client(server.base(encoding)) as client, use_cassette(path, record_mode="once"):
        return ask(client, stream)


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("encoding", ENCODINGS)
def test_recorded_decoded_and_replayed_by_harness_and_plain_vcrpy(
    server: WireServer, tmp_path: Path, encoding: str, stream: bool
) -> None:
    cassette = tmp_path / "enc.yaml"
    assert record(server, encoding, cassette, stream) == ANSWER
    assert server.requests[0][1]["Accept-Encoding"].count(encoding) == 1  # it was offered
    text = cassette.read_text(encoding="utf-8")
    assert "SENTINEL-ENC" in text
    assert "content-encoding" not in text.lower() and "!!binary" not in text
    assert scan_cassette_file(cassette) == []
    server.stop()

    with openai_client(server.base(encoding)) as client, use_cassette(cassette):
        assert ask(client, stream) == ANSWER
    with (
        openai_client(server.base(encoding)) as client,
        vcr.use_cassette(str(cassette), record_mode="none"),
    ):
        assert ask(client, stream) == ANSWER


PYTEST_RECORDING_TEST = """
import openai, pytest

@pytest.mark.vcr
@pytest.mark.parametrize("name", {names!r})
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_replay(name, stream):
    client = openai.OpenAI(api_key="{key}", base_url=BASES[name] + "/v1", max_retries=0)
    messages = [{{"role": "user", "content": "Decode this"}}]
    if not stream:
        result = client.chat.completions.create(model="gpt-enc", messages=messages)
        assert result.choices[0].message.content == "{answer}"
        return
    chunks = client.chat.completions.create(model="gpt-enc", messages=messages, stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "{answer}"

BASES = {bases!r}
"""


@pytest.mark.deep
@pytest.mark.skipif(
    importlib.util.find_spec("pytest_recording") is None, reason="needs pytest-recording"
)
def test_pytest_recording_replays_them(
    server: WireServer, tmp_path: Path, pytester: pytest.Pytester
) -> None:
    names = [name for name in ("gzip", "deflate", "br", "zstd") if name in ENCODERS]
    folder = pytester.path / "cassettes" / "test_wire"
    folder.mkdir(parents=True)
    for name in names:
        for stream, label in ((False, "plain"), (True, "stream")):
            recorded = tmp_path / f"{name}-{label}.yaml"
            record(server, name, recorded, stream=stream)
            shutil.copy(recorded, folder / f"test_replay[{label}-{name}].yaml")
    server.stop()
    bases = {name: server.base(name) for name in names}
    source = PYTEST_RECORDING_TEST.format(names=names, key=OPENAI_KEY, answer=ANSWER, bases=bases)
    pytester.makepyfile(test_wire=source)
    result = pytester.runpytest("--record-mode=none", "-p", "no:harness")
    result.assert_outcomes(passed=2 * len(names))


def _write(path: Path, response: dict[str, Any]) -> Path:
    request = {"method": "POST", "uri": "https://api.openai.com/v1/chat/completions"}
    request |= {"body": "{}", "headers": {}}
    document = {"version": 1, "interactions": [{"request": request, "response": response}]}
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def _response(body: Any, headers: dict[str, list[str]]) -> dict[str, Any]:
    return {"status": {"code": 200, "message": "OK"}, "headers": headers, "body": {"string": body}}


@pytest.mark.parametrize(
    ("body", "headers", "kind"),
    [
        pytest.param(
            gzip.compress(b'{"a": 1}'), {}, "encoded body without Content-Encoding", id="gzip-bare"
        ),
        pytest.param(
            b"\x28\xb5\x2f\xfd\x00\x00", {}, "encoded body without Content-Encoding", id="zstd-bare"
        ),
        pytest.param(
            b"xx", {"Content-Encoding": ["compress"]}, "cannot decode", id="unknown-coding"
        ),
        pytest.param(
            b"not gzip", {"Content-Encoding": ["gzip"]}, "does not decode", id="corrupt-gzip"
        ),
        pytest.param(
            '{"a": 1}', {"Content-Encoding": ["gzip"]}, "text body under", id="text-under-gzip"
        ),
    ],
)
def test_check_flags_bodies_that_cannot_replay(
    tmp_path: Path, body: Any, headers: dict[str, list[str]], kind: str
) -> None:
    findings = scan_cassette_file(_write(tmp_path / "bad.yaml", _response(body, headers)))
    assert [f.interaction for f in findings] == [0]
    assert kind in findings[0].kind


def test_an_undecodable_body_keeps_its_encoding_header() -> None:
    response = _response(b"\x00\x01", {"Content-Encoding": ["compress"]})
    assert decode_response(response) == response
    decoded = decode_response(_response(gzip.compress(b"hi"), {"Content-Encoding": ["gzip"]}))
    assert decoded["body"]["string"] == b"hi" and decoded["headers"] == {}


def test_a_gzip_body_in_a_foreign_cassette_replays(tmp_path: Path) -> None:
    body = b'{"id": "c1", "object": "chat.completion", "created": 1, "model": "m", "choices": []}'
    path = _write(
        tmp_path / "foreign.yaml",
        _response(
            gzip.compress(body),
            {"Content-Encoding": ["gzip"], "Content-Type": ["application/json"]},
        ),
    )
    client = openai.OpenAI(api_key=OPENAI_KEY, max_retries=0)
    with use_cassette(path):
        result = client.post("/chat/completions", body={}, cast_to=dict)  # type: ignore[type-var]
    assert result["id"] == "c1"
    with pytest.raises(CassetteError, match="interaction 0"):
        _write(path, _response(12, {}))
        with use_cassette(path):
            client.post("/chat/completions", body={}, cast_to=dict)  # type: ignore[type-var]
