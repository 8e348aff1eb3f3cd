"""How a test is named in cassette paths, golden shapes and eval rows."""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["epoch_cassette", "epoch_of", "scenario_name", "test_name"]

# Parameters that pick where a run goes rather than what it does: the provider
# has its own cassette folder, epochs repeat the same scenario and a mutant
# (``--harness-mutants``) replays perturbed answers of the same cassette.
_ROUTING_PARAMS = frozenset({"provider_name", "harness_epoch", "harness_mutant"})


def _scenario_params(node: pytest.Item) -> list[str]:
    callspec = getattr(node, "callspec", None)
    if callspec is None:
        return []
    return [str(v) for k, v in callspec.params.items() if k not in _ROUTING_PARAMS]


def test_name(node: pytest.Item) -> str:
    """The test's name without routing parameters, e.g. ``test_approval_flow-approve``."""
    base = str(getattr(node, "originalname", node.name))
    return "-".join([base, *_scenario_params(node)])


def scenario_name(node: pytest.Item) -> str:
    """The eval row's scenario: ``@pytest.mark.eval("name")`` plus scenario parameters."""
    marker = node.get_closest_marker("eval")
    if marker is None or not marker.args:
        return test_name(node)
    extra = _scenario_params(node)
    label = str(marker.args[0])
    return f"{label}[{'-'.join(extra)}]" if extra else label


def epoch_of(node: pytest.Item) -> int | None:
    """Which ``--harness-epochs`` repetition ``node`` is (from 0), or None when not repeated."""
    callspec = getattr(node, "callspec", None)
    value = None if callspec is None else callspec.params.get("harness_epoch")
    return None if value is None else int(value)


def epoch_cassette(path: Path, epoch: int | None) -> Path:
    """Epoch k >= 1's own recording next to the single one: ``<test>[epoch-k].yaml``.

    Epoch 0 is the single recording itself, so a suite recorded once replays
    unchanged with ``--epochs N`` (every epoch then serves that one recording).
    """
    if not epoch:
        return path
    return path.with_name(f"{path.stem}[epoch-{epoch}]{path.suffix}")
