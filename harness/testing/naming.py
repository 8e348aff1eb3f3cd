"""How a test is named in cassette paths, golden shapes and eval rows."""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = [
    "STREAM_PARAM",
    "epoch_cassette",
    "epoch_of",
    "is_streaming",
    "legacy_epoch_cassette",
    "scenario_name",
    "test_file",
    "test_name",
]

# Parameters that pick where a run goes rather than what it does: the provider
# has its own cassette folder, epochs repeat the same scenario and a mutant
# (``--harness-mutants``) replays perturbed answers of the same cassette. A
# streaming run (``--harness-stream``) keeps the test's name and golden shape;
# only its cassette and its eval row say "stream".
_ROUTING_PARAMS = frozenset({"provider_name", "harness_epoch", "harness_mutant", "harness_stream"})
STREAM_PARAM = "harness_stream"


def _routing_id(name: str, value: object) -> str:
    """The id harness's own parametrization (or the provider's) gives a routing parameter."""
    if name == "harness_epoch":
        return f"epoch{value}"
    if name == STREAM_PARAM:
        return "stream" if value else "plain"
    return str(value)


def _scenario_params(node: pytest.Item) -> list[str]:
    """The test's parametrize ids (``ids=`` when given, pytest's own else; pytest-repeat's
    ``2-3`` too), without those of the routing parameters.

    Ids, not values: a value may print differently every run (an object's
    ``repr`` with its address), an id is what the test author named it.
    """
    callspec = getattr(node, "callspec", None)
    if callspec is None:
        return []
    ids = getattr(callspec, "_idlist", None)
    if ids is None:  # a pytest without the id list: the values, as before
        return [str(v) for k, v in callspec.params.items() if k not in _ROUTING_PARAMS]
    routing = [_routing_id(k, v) for k, v in callspec.params.items() if k in _ROUTING_PARAMS]
    kept = []
    for part in ids:
        if part in routing:
            routing.remove(part)  # each routing id once: a scenario id may equal one
        else:
            kept.append(str(part))
    return kept


def is_streaming(node: pytest.Item) -> bool:
    """Whether this run is the streaming variant (``--harness-stream on|both``)."""
    callspec = getattr(node, "callspec", None)
    return bool(callspec is not None and callspec.params.get(STREAM_PARAM))


def test_name(node: pytest.Item) -> str:
    """The test's name with its parametrize ids but no routing parameter, e.g.
    ``test_approval_flow-approve``."""
    base = str(getattr(node, "originalname", node.name))
    return "-".join([base, *_scenario_params(node)])


def scenario_name(node: pytest.Item) -> str:
    """The eval row's scenario: ``@pytest.mark.eval("name")`` plus scenario parameters."""
    marker = node.get_closest_marker("eval")
    if marker is None or not marker.args:
        return test_name(node) + ("-stream" if is_streaming(node) else "")
    extra = _scenario_params(node) + (["stream"] if is_streaming(node) else [])
    label = str(marker.args[0])
    return f"{label}[{'-'.join(extra)}]" if extra else label


def epoch_of(node: pytest.Item) -> int | None:
    """Which ``--harness-epochs`` repetition ``node`` is (from 1), or None when not repeated."""
    callspec = getattr(node, "callspec", None)
    value = None if callspec is None else callspec.params.get("harness_epoch")
    return None if value is None else int(value)


def epoch_cassette(path: Path, epoch: int | None) -> Path:
    """Epoch k >= 2's own recording next to the single one: ``<test>[epoch2].yaml``.

    Epochs count from 1, as the test ids (``test_x[epoch2]``), the table and the
    report page do. Epoch 1 is the single recording itself, so a suite recorded
    once replays unchanged with ``--epochs N`` (every epoch then serves it).
    """
    if epoch is None or epoch <= 1:
        return path
    return path.with_name(f"{path.stem}[epoch{epoch}]{path.suffix}")


def legacy_epoch_cassette(path: Path, epoch: int | None) -> Path | None:
    """Where harness before 1-based epochs recorded epoch ``epoch``: ``<test>[epoch-(k-1)]``.

    Those files counted from 0, so epoch 2 was ``[epoch-1]``; replay still reads them.
    """
    if epoch is None or epoch <= 1:
        return None
    return path.with_name(f"{path.stem}[epoch-{epoch - 1}]{path.suffix}")


# The case runner ships in the package; wherever it is installed, its cassettes
# live under one name: ``cassettes/.../harness_cases/<test>-<case>.yaml``.
_PACKAGED_RUNNER = Path(__file__).with_name("cases_suite.py")
_PACKAGED_NAME = "harness_cases.py"


def test_file(path: Path, rootdir: Path) -> str:
    """The test file's path in cassette names: relative to the rootdir, posix style."""
    if path == _PACKAGED_RUNNER:
        return _PACKAGED_NAME
    try:
        return path.relative_to(rootdir).as_posix()
    except ValueError:
        return path.name
