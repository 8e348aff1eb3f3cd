"""The cassette file: fast split loading, hand edits, and exact YAML round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.recording import UnmatchedRequestError
from harness.recording._format import dump_document, parse_document
from harness.recording._storage import load_cassette
from harness.simulator import SimulatorServer

from .test_cassette_modes import NUMBERED, session


@pytest.fixture
def numbered_cassette(tmp_path: Path) -> tuple[Path, SimulatorServer]:
    """A cassette of A, B, C -> "answer 1", "answer 2", "answer 3" (simulator stopped)."""
    path = tmp_path / "three.yaml"
    with SimulatorServer(NUMBERED) as sim:
        assert session(sim, path, "once", ["A", "B", "C"]) == ["answer 1", "answer 2", "answer 3"]
    return path, sim


def test_written_cassettes_load_without_parsing_the_interactions(
    numbered_cassette: tuple[Path, SimulatorServer],
) -> None:
    path, _ = numbered_cassette
    text = path.read_text()
    assert text.count("\n- harness_match: POST /v1/chat/completions ") == 3
    assert yaml.safe_load(text)["harness"]["interaction_count"] == 3
    loaded = load_cassette(path)
    assert loaded is not None and len(loaded.entries) == 3
    assert all(loaded.entries.intact(i) for i in range(3))


def test_a_hand_edited_request_matches_what_the_file_now_says(
    numbered_cassette: tuple[Path, SimulatorServer],
) -> None:
    path, sim = numbered_cassette
    path.write_text(path.read_text().replace('"content": "B"', '"content": "B2"'))
    assert not load_cassette(path).entries.intact(1)  # type: ignore[union-attr]
    assert session(sim, path, "none", ["A", "B2", "C"]) == ["answer 1", "answer 2", "answer 3"]
    with pytest.raises(UnmatchedRequestError, match="'B2' -> 'B'"):
        session(sim, path, "none", ["A", "B"])


def test_a_hand_edited_answer_is_replayed_as_edited(
    numbered_cassette: tuple[Path, SimulatorServer],
) -> None:
    path, sim = numbered_cassette
    path.write_text(path.read_text().replace('"content": "answer 2"', '"content": "edited"'))
    assert session(sim, path, "none", ["A", "B"]) == ["answer 1", "edited"]


def test_new_episodes_keeps_the_fast_layout(
    numbered_cassette: tuple[Path, SimulatorServer],
) -> None:
    path, _ = numbered_cassette
    with SimulatorServer(NUMBERED) as sim:
        assert session(sim, path, "new_episodes", ["A", "D"]) == ["answer 1", "answer 1"]
    loaded = load_cassette(path)
    assert loaded is not None and loaded.metadata is not None
    assert loaded.metadata.interaction_count == 4
    assert all(loaded.entries.intact(i) for i in range(4))


@settings(database=None, max_examples=60)
@given(text=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=60))
def test_any_string_survives_a_yaml_round_trip(text: str) -> None:
    path = Path("x.yaml")
    document = {"version": 1, "interactions": [{"body": text}, {"body": text + "\n" + text}]}
    assert parse_document(path, dump_document(path, document)) == document
