"""How a test is named in cassette paths, golden shapes and eval rows."""

from __future__ import annotations

import pytest

__all__ = ["scenario_name", "test_name"]

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
