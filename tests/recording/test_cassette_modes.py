"""Record modes, ordering of repeated requests, and what gets saved."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
import yaml

from harness.recording import RecordMode, UnmatchedRequestError, use_cassette
from harness.simulator import SimulatorServer

from .helpers import openai_client

NUMBERED = {"turns": [f"answer {n}" for n in range(1, 21)]}


@pytest.fixture
def numbered() -> Iterator[SimulatorServer]:
    """A simulator answering "answer 1", "answer 2"... in arrival order."""
    with SimulatorServer(NUMBERED) as server:
        yield server


def ask(client: openai.OpenAI, prompt: str) -> str:
    """One chat completion; returns its text."""
    reply = client.chat.completions.create(
        model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}]
    )
    return reply.choices[0].message.content or ""


def session(sim: SimulatorServer, path: Path, mode: str, prompts: list[str]) -> list[str]:
    """Ask ``prompts`` inside one cassette session."""
    with openai_client(sim.url) as client, use_cassette(path, record_mode=mode):
        return [ask(client, prompt) for prompt in prompts]


def stored_prompts(path: Path) -> list[str]:
    """The user prompts of the cassette's interactions, in file order."""
    data = yaml.safe_load(path.read_text())
    return [
        yaml.safe_load(i["request"]["body"])["messages"][0]["content"] for i in data["interactions"]
    ]


def stored_answers(path: Path) -> list[str]:
    """The answer texts of the cassette's interactions, in file order."""
    data = yaml.safe_load(path.read_text())
    bodies = [yaml.safe_load(i["response"]["body"]["string"]) for i in data["interactions"]]
    return [body["choices"][0]["message"]["content"] for body in bodies]


@pytest.fixture
def cassette(numbered: SimulatorServer, tmp_path: Path) -> Path:
    """A cassette holding A -> "answer 1" and B -> "answer 2"."""
    path = tmp_path / "modes.yaml"
    assert session(numbered, path, "once", ["A", "B"]) == ["answer 1", "answer 2"]
    return path


def test_once_replays_an_existing_cassette_and_refuses_new_requests(
    numbered: SimulatorServer, cassette: Path
) -> None:
    before = cassette.read_text()
    assert session(numbered, cassette, "once", ["A", "B"]) == ["answer 1", "answer 2"]
    with pytest.raises(UnmatchedRequestError, match="'A' -> 'C'"):
        session(numbered, cassette, "once", ["C"])
    assert numbered.hits == 2
    assert cassette.read_text() == before


def test_new_episodes_replays_matches_and_records_the_rest(
    numbered: SimulatorServer, cassette: Path
) -> None:
    assert session(numbered, cassette, "new_episodes", ["A", "C"]) == ["answer 1", "answer 3"]
    assert numbered.hits == 3
    assert stored_prompts(cassette) == ["A", "B", "C"]


def test_all_re_records_what_is_sent_and_keeps_the_rest(
    numbered: SimulatorServer, cassette: Path
) -> None:
    assert session(numbered, cassette, "all", ["A"]) == ["answer 3"]
    assert stored_prompts(cassette) == ["B", "A"]
    assert stored_answers(cassette) == ["answer 2", "answer 3"]


def test_rewrite_starts_the_file_afresh(numbered: SimulatorServer, cassette: Path) -> None:
    assert session(numbered, cassette, RecordMode.REWRITE, ["A"]) == ["answer 3"]
    assert stored_prompts(cassette) == ["A"]


def test_rewrite_keeps_the_old_file_when_nothing_was_recorded(
    numbered: SimulatorServer, cassette: Path
) -> None:
    before = cassette.read_text()
    assert session(numbered, cassette, "rewrite", []) == []
    assert cassette.read_text() == before


def test_repeated_requests_play_in_recorded_order(
    numbered: SimulatorServer, tmp_path: Path
) -> None:
    path = tmp_path / "repeat.yaml"
    assert session(numbered, path, "once", ["same", "same"]) == ["answer 1", "answer 2"]
    assert session(numbered, path, "none", ["same", "same"]) == ["answer 1", "answer 2"]
    with pytest.raises(UnmatchedRequestError, match=r"interaction 0 \(already played\)"):
        session(numbered, path, "none", ["same", "same", "same"])


@pytest.mark.parametrize(
    ("save_errors", "expected"), [(False, 1), (True, 2)], ids=["dropped", "kept"]
)
def test_rate_limited_answers_are_not_saved_by_default(
    tmp_path: Path, save_errors: bool, expected: int
) -> None:
    path = tmp_path / "retry.yaml"
    script = {"turns": [{"error": {"status": 429}}, "finally"]}
    with (
        SimulatorServer(script) as sim,
        openai_client(sim.url, max_retries=1) as client,
        use_cassette(path, record_mode="once", save_error_responses=save_errors),
    ):
        assert ask(client, "hi") == "finally"
    codes = [
        i["response"]["status"]["code"] for i in yaml.safe_load(path.read_text())["interactions"]
    ]
    assert len(codes) == expected and codes[-1] == 200


def test_json_cassettes_round_trip(numbered: SimulatorServer, tmp_path: Path) -> None:
    path = tmp_path / "cassette.json"
    assert session(numbered, path, "once", ["A"]) == ["answer 1"]
    assert path.read_text().startswith('{\n  "version": 1,')
    assert session(numbered, path, "none", ["A"]) == ["answer 1"]
