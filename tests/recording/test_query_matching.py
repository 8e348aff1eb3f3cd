"""The query string is part of the match key and of the miss diff; some can be ignored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest

from harness.recording import UnmatchedRequestError, use_cassette
from harness.recording._matching import BodyNormalizer

from .helpers import OPENAI_KEY
from .wire import ANSWER, WireServer, wire_server

MESSAGES: Any = [{"role": "user", "content": "hello"}]


def _client(server: WireServer, query: dict[str, str] | None = None) -> openai.OpenAI:
    return openai.OpenAI(
        api_key=OPENAI_KEY,
        base_url=server.base() + "/v1",
        max_retries=0,
        default_query=query,
        http_client=httpx2.Client(),
    )


def _ask(client: openai.OpenAI) -> str:
    result = client.chat.completions.create(model="gpt-enc", messages=MESSAGES)
    return result.choices[0].message.content or ""


@pytest.fixture
def beta_cassette(tmp_path: Path) -> tuple[Path, WireServer]:
    """A cassette recorded by a client that sent ``?beta=true`` (server stopped after)."""
    path = tmp_path / "beta.yaml"
    with (
        wire_server() as server,
        _client(server, {"beta": "true"}) as client,
        use_cassette(path, record_mode="once"),
    ):
        _ask(client)
    return path, server


def test_a_dropped_query_parameter_misses_and_the_diff_shows_it(
    beta_cassette: tuple[Path, WireServer],
) -> None:
    path, server = beta_cassette
    with (
        pytest.raises(UnmatchedRequestError) as caught,
        _client(server) as client,
        use_cassette(path),
    ):
        _ask(client)
    message = str(caught.value)
    assert "query: ?beta=true -> (none)" in message
    assert "already played" not in message
    assert "Nearest recorded request: interaction 0;" in message


@pytest.mark.deep
def test_ignore_query_params_replays_it(beta_cassette: tuple[Path, WireServer]) -> None:
    path, server = beta_cassette
    for query in (None, {"beta": "false"}, {"BETA": "1"}):
        with (
            _client(server, query) as client,
            use_cassette(path, ignore_query_params=("beta", "api-version")) as cassette,
        ):
            assert _ask(client) == ANSWER
        assert cassette.report.played == 1


def test_already_played_is_said_only_when_it_was(beta_cassette: tuple[Path, WireServer]) -> None:
    path, server = beta_cassette
    with (
        pytest.raises(UnmatchedRequestError) as caught,
        _client(server, {"beta": "true"}) as client,
        use_cassette(path),
    ):
        _ask(client)
        _ask(client)  # sent once more than recorded
    message = str(caught.value)
    assert "interaction 0 (already played)" in message
    assert "the recording was already played" in message


@pytest.mark.parametrize(
    ("recorded", "sent", "ignored", "same"),
    [
        pytest.param("/v1/x?a=1&b=2", "/v1/x?b=2&a=1", (), True, id="order"),
        pytest.param("/v1/x?a=1", "/v1/x?a=2", (), False, id="value"),
        pytest.param("/v1/x?a=1", "/v1/x", (), False, id="dropped"),
        pytest.param("/v1/x?beta=true", "/v1/x", ("beta",), True, id="ignored"),
        pytest.param("/v1/x?Beta=true", "/v1/x", ("beta",), True, id="ignored-any-case"),
        pytest.param("/v1/x?key=REDACTED", "/v1/x?key=live-secret", (), True, id="credential"),
    ],
)
def test_query_in_the_key(recorded: str, sent: str, ignored: tuple[str, ...], same: bool) -> None:
    normalizer = BodyNormalizer(ignore_query_params=ignored)
    old = normalizer.key("POST", "https://h" + recorded, b"{}")
    new = normalizer.key("POST", "https://h" + sent, b"{}")
    assert (old.digest == new.digest) is same


def test_ignored_parameters_are_saved_with_the_match_lines(tmp_path: Path) -> None:
    path = tmp_path / "ignored.yaml"
    with wire_server() as server:
        with (
            _client(server, {"beta": "true"}) as client,
            use_cassette(path, record_mode="once", ignore_query_params=("beta",)),
        ):
            _ask(client)
        server.stop()
        assert "ignore_query_params:\n  - beta\n" in path.read_text(encoding="utf-8")
        # The stored digests were made without ?beta, so a client without it matches them.
        with _client(server) as client, use_cassette(path, ignore_query_params=("beta",)):
            assert _ask(client) == ANSWER
