"""Replay failures say what is wrong and how to fix it."""

from __future__ import annotations

from pathlib import Path

import anthropic
import pytest

from harness.core import CassetteError, ProviderError
from harness.recording import UnmatchedRequestError, unwrap_cassette_error, use_cassette
from harness.simulator import SimulatorServer

from .helpers import (
    anthropic_client,
    anthropic_conversation,
    openai_client,
    openai_conversation,
)


@pytest.fixture
def recorded(sim: SimulatorServer, tmp_path: Path) -> tuple[Path, str]:
    """A cassette of the two-turn OpenAI conversation, and the (stopped) simulator URL."""
    cassette = tmp_path / "agent.yaml"
    with openai_client(sim.url) as client, use_cassette(cassette, record_mode="once"):
        openai_conversation(client)
    url = sim.url
    sim.stop()
    return cassette, url


def test_prompt_drift_shows_old_and_new_value(recorded: tuple[Path, str]) -> None:
    cassette, url = recorded
    hint = "pytest tests/x.py --record-mode=rewrite"
    with (
        pytest.raises(UnmatchedRequestError) as caught,
        openai_client(url) as client,
        use_cassette(cassette, rerecord_hint=hint),
    ):
        openai_conversation(client, prompt="Read notes.md")
    message = str(caught.value)
    assert "POST /v1/chat/completions" in message
    assert "messages[0].content: 'Read notes.txt' -> 'Read notes.md'" in message
    assert "Nearest recorded request: interaction 0" in message
    assert "pytest tests/x.py --record-mode=rewrite" in message
    assert caught.value.cassette_path == str(cassette)


def test_anthropic_miss_is_neither_wrapped_nor_retried(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    cassette = tmp_path / "anthropic.yaml"
    with anthropic_client(sim.url) as client, use_cassette(cassette, record_mode="once"):
        anthropic_conversation(client)
    with (
        pytest.raises(UnmatchedRequestError, match=r"'Read notes\.txt' -> 'Read a\.txt'") as caught,
        anthropic_client(sim.url, max_retries=3) as client,
        use_cassette(cassette),
    ):
        anthropic_conversation(client, prompt="Read a.txt")
    assert isinstance(caught.value, anthropic.AnthropicError)  # what lets it through the SDK
    assert sim.hits == 2


def test_ignored_fields_do_not_count(recorded: tuple[Path, str]) -> None:
    cassette, url = recorded
    with openai_client(url) as client, use_cassette(cassette, ignore_body_fields=["metadata"]):
        first = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "Read notes.txt"}],
            metadata={"run": "2"},
        )
    assert first.choices[0].finish_reason == "tool_calls"


def test_swallowed_miss_still_fails_the_block(recorded: tuple[Path, str]) -> None:
    cassette, url = recorded
    with pytest.raises(UnmatchedRequestError), openai_client(url) as client, use_cassette(cassette):
        try:
            openai_conversation(client, prompt="drifted")
        except Exception as exc:
            raise ProviderError("the model call failed") from exc


def test_unwrap_finds_the_cassette_error_behind_wrappers() -> None:
    inner = CassetteError("not in cassette")
    try:
        try:
            raise inner
        except CassetteError as exc:
            raise ProviderError("wrapped") from exc
    except ProviderError as outer:
        assert unwrap_cassette_error(outer) is inner
    assert unwrap_cassette_error(ValueError("x")) is None
    assert unwrap_cassette_error(None) is None


def test_missing_cassette_says_how_to_record(tmp_path: Path) -> None:
    with (
        pytest.raises(CassetteError, match=r"does not exist.*record mode 'once'"),
        use_cassette(tmp_path / "nope.yaml"),
    ):
        pass


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param(
            "interactions: [\n  - {request: ", "corrupt and cannot be parsed", id="bad-yaml"
        ),
        pytest.param("just: a config\n", "no 'interactions' list", id="no-interactions"),
        pytest.param("version: 2\ninteractions: []\n", "format version 2", id="wrong-version"),
        pytest.param(
            "version: 1\ninteractions: [{request: {}}]\n", "interaction 0", id="bad-entry"
        ),
        pytest.param(
            "version: 1\nharness: {schema_version: 9}\ninteractions: []\n",
            "harness:",
            id="bad-meta",
        ),
    ],
)
def test_unreadable_cassettes_fail_clearly(tmp_path: Path, content: str, expected: str) -> None:
    cassette = tmp_path / "broken.yaml"
    cassette.write_text(content)
    with (
        pytest.raises(CassetteError, match=expected),
        use_cassette(cassette, record_mode="new_episodes"),
    ):
        pass
    assert cassette.read_text() == content


def test_unplayed_interactions_are_reported(recorded: tuple[Path, str]) -> None:
    cassette, url = recorded
    with openai_client(url) as client, use_cassette(cassette) as replay:
        client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "Read notes.txt"}],
            metadata={"run": "1"},
        )
    report = replay.report
    assert (report.played, report.recorded) == (1, 0)
    assert report.unplayed == ("#1 POST /v1/chat/completions",)
    assert not report.all_played


def test_unplayed_interactions_can_fail_the_block(recorded: tuple[Path, str]) -> None:
    cassette, url = recorded
    with (
        pytest.raises(CassetteError, match=r"1 interaction\(s\).*never played: #1 POST"),
        openai_client(url) as client,
        use_cassette(cassette, allow_unplayed=False),
    ):
        client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "Read notes.txt"}],
            metadata={"run": "1"},
        )


def test_unknown_record_mode_is_a_configuration_error(tmp_path: Path) -> None:
    from harness.core import ConfigurationError

    with pytest.raises(ConfigurationError, match="new_episodes"):
        use_cassette(tmp_path / "x.yaml", record_mode="sometimes")
