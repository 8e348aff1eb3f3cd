"""The upgrade example's evals: one raw-SDK agent, recorded on two models.

``@pytest.mark.llm_cassette(model=...)`` names the model the suite runs on
today; ``--harness-model`` runs it on another. The test hands
``llm_cassette.model`` to the agent, and the model is part of the cassette's
path (``examples/cassettes/<model>/examples/upgrade/test_upgrade/...``), so
recording the new model writes files beside the old ones instead of over them.
The release codes exist only in the workspace files: an answer holding one
means the agent read the file that has it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.upgrade.agent import run
from harness.testing import LLMCassette

DIRECT = "RELEASE-CODE-3MX7"
POINTED = "RELEASE-CODE-8K2P"
MODEL = "gpt-4.1-mini"  # the model in production; the upgrade candidate comes by flag


@pytest.mark.eval("upgrade-direct")
@pytest.mark.llm_cassette(model=MODEL)
def test_reads_the_code_from_the_notes(llm_cassette: LLMCassette, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {DIRECT}.\n")
    result = run("What is the release code?", tmp_path, llm_cassette.openai(), _model(llm_cassette))
    assert result.reads == ["notes.txt"]
    assert DIRECT in result.answer


@pytest.mark.eval("upgrade-pointer")
@pytest.mark.llm_cassette(model=MODEL)
def test_follows_the_notes_to_the_code(llm_cassette: LLMCassette, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("The release code moved: see vault/code.txt\n")
    (tmp_path / "vault").mkdir()
    (tmp_path / "vault" / "code.txt").write_text(f"{POINTED}\n")
    result = run("What is the release code?", tmp_path, llm_cassette.openai(), _model(llm_cassette))
    assert result.reads == ["notes.txt", "vault/code.txt"]
    assert POINTED in result.answer


def _model(llm_cassette: LLMCassette) -> str:
    """The model this run is about: ``--harness-model``, else the marker's."""
    return llm_cassette.model or MODEL
