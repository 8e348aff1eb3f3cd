"""The recorded providers are the registry's runtime wires, each with its committed row."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.errors import ConfigurationError
from harness.core.wires import runtime_wires
from harness.testing.cases_suite import PROVIDERS
from harness.testing.cassettes.recorded import DEFAULT_MODELS, RECORDED_PROVIDERS, recorded_provider

ROOT = Path(__file__).resolve().parents[3]


def test_every_runtime_wire_is_recorded_with_a_default_model() -> None:
    names = tuple(w.name for w in runtime_wires())
    assert RECORDED_PROVIDERS == PROVIDERS == names
    assert set(DEFAULT_MODELS) == set(names), "a runtime wire needs a default model here"


def _committed(provider: str) -> set[Path]:
    folder = ROOT / "cassettes" / provider / DEFAULT_MODELS[provider]
    return {p.relative_to(folder) for p in folder.rglob("*.yaml")}


@pytest.mark.parametrize("provider", RECORDED_PROVIDERS)
def test_every_recorded_provider_has_every_committed_eval_cassette(provider: str) -> None:
    # The evals and cases parametrize every recorded provider: each needs the same files.
    expected = _committed("openai")
    assert expected and _committed(provider) == expected


def test_a_provider_without_a_runtime_wire_cannot_be_recorded(tmp_path: Path) -> None:
    refused = pytest.raises(ConfigurationError, match=r"'bedrock' cannot be recorded; use one of ")
    with refused, recorded_provider("bedrock", model=None, cassette=tmp_path / "c.yaml"):
        pass
