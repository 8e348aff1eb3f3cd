"""Tool traffic in a cassette: its bytes replayed exactly, the header from model calls
only, offline hosts failing as a dead network, and misses naming the host."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import requests
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.errors import CassetteError
from harness.recording import (
    TrafficKind,
    UnmatchedRequestError,
    is_model_call,
    traffic_kind,
    use_cassette,
)
from harness.recording._bodyform import FORM_KEY, INDENTED, exact_form, render_form
from harness.simulator import SimulatorServer

from .helpers import openai_client, openai_conversation
from .toolserver import forecast_body, tool_server

TOOL_HOST = "api.weather.example"


def _forecast(client: httpx.Client, city: str = "Paris") -> httpx.Response:
    return client.get(f"http://{TOOL_HOST}/forecast", params={"city": city})


@pytest.mark.parametrize(
    ("method", "uri", "kind"),
    [
        ("POST", "https://api.openai.com/v1/chat/completions", TrafficKind.MODEL),
        ("POST", "http://127.0.0.1:11434/v1/chat/completions", TrafficKind.MODEL),
        ("POST", "https://x.openai.azure.com/openai/deployments/d/chat/completions", "model"),
        ("POST", "https://api.anthropic.com/v1/messages", TrafficKind.MODEL),
        ("POST", "https://g.googleapis.com/v1beta/models/m:generateContent", TrafficKind.MODEL),
        ("POST", "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse", "model"),
        ("POST", "http://127.0.0.1:9/chat/converse", TrafficKind.TOOL),
        ("GET", "https://api.openai.com/v1/chat/completions", TrafficKind.TOOL),
        ("GET", "http://api.weather.example/forecast?city=Paris", TrafficKind.TOOL),
        ("POST", "http://api.weather.example/forecast", TrafficKind.TOOL),
    ],
    ids=lambda value: str(value)[:40],
)
def test_traffic_kind_comes_from_the_wire_registry(method: str, uri: str, kind: str) -> None:
    assert traffic_kind(method, uri) == kind
    assert is_model_call(method, uri) is (kind == "model")


@pytest.mark.parametrize(
    ("city", "form"),
    [pytest.param("Paris", "compact", marks=pytest.mark.deep), ("Odd", None)],
    ids=["compact-stored-indented", "own-spelling-stored-verbatim"],
)
def test_a_json_tool_body_replays_byte_for_byte(tmp_path: Path, city: str, form: str) -> None:
    cassette = tmp_path / "tool.yaml"
    with (
        tool_server() as server,
        httpx.Client(proxy=server.url) as client,
        use_cassette(cassette, record_mode="once"),
    ):
        recorded = _forecast(client, city).content
    assert recorded == forecast_body(city)
    stored = yaml.safe_load(cassette.read_text("utf-8"))["interactions"][0]["response"]["body"]
    assert stored.get(FORM_KEY) == form
    if form is None:
        assert stored["string"] == recorded.decode()  # no rendering gives it back: as sent
    else:
        assert stored["string"] == INDENTED(json.loads(recorded))  # indented, for reading
    with use_cassette(cassette), httpx.Client() as client:
        assert _forecast(client, city).content == recorded
    with use_cassette(cassette), requests.Session() as session:
        replayed = session.get(f"http://{TOOL_HOST}/forecast", params={"city": city})
        assert replayed.content == recorded
    with (
        tool_server() as server,
        httpx.Client(proxy=server.url) as client,
        use_cassette(cassette, record_mode="new_episodes"),
    ):
        _forecast(client, city)
        _forecast(client, "Lyon")  # recorded: the file is saved again, the first item too
    again = yaml.safe_load(cassette.read_text("utf-8"))["interactions"]
    assert len(again) == 2 and again[0]["response"]["body"] == stored


def test_an_old_cassette_without_a_form_replays_its_indented_text(tmp_path: Path) -> None:
    cassette = tmp_path / "tool.yaml"
    with (
        tool_server() as server,
        httpx.Client(proxy=server.url) as client,
        use_cassette(cassette, record_mode="once"),
    ):
        _forecast(client)
    data = yaml.safe_load(cassette.read_text("utf-8"))
    del data["harness"]  # a plain vcrpy file, as older harness wrote it: no form
    del data["interactions"][0]["response"]["body"][FORM_KEY]
    del data["interactions"][0]["harness_match"]
    cassette.write_text(yaml.safe_dump(data), "utf-8")
    with use_cassette(cassette), httpx.Client() as client:
        body = _forecast(client).content
    assert json.loads(body) == json.loads(forecast_body("Paris"))
    assert body.decode() == INDENTED(json.loads(body))


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
_RENDERINGS = [
    {"separators": (",", ":"), "ensure_ascii": False},
    {"separators": (",", ":")},
    {},
    {"ensure_ascii": False},
    {"indent": 2},
    {"indent": 2, "ensure_ascii": False},
]


@pytest.mark.deep
@settings(max_examples=60, deadline=None)
@given(value=_JSON, rendering=st.sampled_from(_RENDERINGS), newline=st.booleans())
def test_every_known_rendering_is_given_back_exactly(
    value: Any, rendering: dict[str, Any], newline: bool
) -> None:
    text = json.dumps(value, **rendering) + ("\n" if newline else "")
    form = exact_form(text, value)
    if form is None:
        assert INDENTED(value) == text  # stored as it is: nothing to name
    else:
        assert render_form(INDENTED(value), form) == text


@pytest.mark.deep
def test_the_header_names_the_model_hosts_only(tmp_path: Path, sim: SimulatorServer) -> None:
    cassette = tmp_path / "agent.yaml"
    with (
        tool_server() as server,
        httpx.Client(proxy=server.url) as tools,
        use_cassette(cassette, record_mode="once"),
        openai_client(sim.url) as model,
    ):
        openai_conversation(model)
        _forecast(tools)
    header = yaml.safe_load(cassette.read_text("utf-8"))["harness"]
    host = sim.url.removeprefix("http://")
    assert header["recorded_against"] == f"{host} (harness simulator)"
    assert header["provider"] == "openai"
    with use_cassette(cassette), httpx.Client() as tools:  # the tool's exchange still replays
        assert _forecast(tools).content == forecast_body("Paris")


@pytest.mark.parametrize("mode", ["none", "once"])
def test_an_offline_host_fails_as_a_dead_network_does(tmp_path: Path, mode: str) -> None:
    cassette = tmp_path / "offline.yaml"
    cassette.write_text("version: 1\ninteractions: []\n", "utf-8")
    url = "https://prices.example.com/model_prices.json"
    with use_cassette(cassette, record_mode=mode, offline_hosts=["prices.example.com"]):
        with pytest.raises(httpx.ConnectError), httpx.Client() as client:
            client.get(url)
        with pytest.raises(requests.ConnectionError):
            requests.get(url, timeout=5)
    import socket

    assert socket.getaddrinfo.__module__ == "socket"  # unpatched again


def test_an_ignored_host_that_is_not_offline_still_meets_the_guard(tmp_path: Path) -> None:
    cassette = tmp_path / "ignored.yaml"
    cassette.write_text("version: 1\ninteractions: []\n", "utf-8")
    with (
        use_cassette(cassette, ignore_hosts=["prices.example.com"]),
        pytest.raises(CassetteError),
        httpx.Client() as client,
    ):
        client.get("https://prices.example.com/x")


def test_a_miss_names_the_host_and_the_kind(tmp_path: Path) -> None:
    cassette = tmp_path / "tool.yaml"
    with (
        tool_server() as server,
        httpx.Client(proxy=server.url) as client,
        use_cassette(cassette, record_mode="once"),
    ):
        _forecast(client)
    with (
        pytest.raises(UnmatchedRequestError) as caught,
        use_cassette(cassette),
        httpx.Client() as client,
    ):
        client.get(f"http://{TOOL_HOST}/alerts")
    message = str(caught.value)
    assert f"to host {TOOL_HOST} (tool traffic)" in message
    assert f"(this one went to {TOOL_HOST})" in message
    assert caught.value.host == TOOL_HOST
