"""``--harness-mutants``: every recorded eval runs once per mutant of its cassette.

A mutant run cannot be told from its control by the eval. Every run of an eval
is a copy of the same item: the same name and node id (``PYTEST_CURRENT_TEST``
too), parameters, markers, fixtures and environment; its provider is a
``PositionalProvider`` over the control's or the mutant's responses alike. Which
run serves which mutant lives only in the plugin's stash, and the copies of one
eval run in a shuffled order, so even the number pytest gives a copy's
``tmp_path`` says nothing about which copy is the control. Only the reports,
made after each phase, carry the mutant in their node id
(``test_x[openai-drop_call.2]``), so the terminal and the collector tell them
apart; a mutant that must fail is judged there, as a strict xfail would be.

Under pytest-xdist the workers collect the same copies in the same order: the
cassettes are the same for all, and the shuffle is seeded with the run's id.
Each copy builds its own ``PositionalProvider`` from the cassette, and its
outcome rides to the controller in ``user_properties``, like eval rows do.

An eval qualifies when it is marked ``eval`` and reaches the ``provider``
fixture (directly or through ``harness_app`` / ``make_harness_app``). Every
eval keeps its ``original`` control item; one that cannot be mutated (scripted
provider, no cassette, no provider fixture) keeps only that item, which skips
and is reported ``not mutated``.
"""

from __future__ import annotations

import os
import random
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.testing.naming import is_streaming, test_name
from harness.testing.options import HarnessOptions
from harness.testing.rows.runlog import RunLog

if TYPE_CHECKING:
    from harness.evals.mutants import PositionalProvider
    from harness.evals.provenance import Source

__all__ = [
    "PHASES_KEY",
    "RUN_KEY",
    "SKIP_KEY",
    "STATE_KEY",
    "MutantState",
    "base_nodeid",
    "cassette_for",
    "expand_items",
    "judge_report",
    "mutant_id",
    "name_report",
    "qualifies",
    "report_nodeid",
    "serve_mutant",
]

_PROVIDER_FIXTURES = frozenset({"provider", "harness_app", "make_harness_app"})
STATE_KEY = pytest.StashKey["MutantState"]()
SKIP_KEY = pytest.StashKey[str]()
PHASES_KEY = pytest.StashKey[dict[str, tuple[str, str]]]()
RUN_KEY = pytest.StashKey[str]()  # the mutant id a copy serves (CONTROL for the control)
_NODEID_PROPERTY = "harness_mutant_nodeid"
_SEED_KEY = pytest.StashKey[str]()


@dataclass(slots=True)
class MutantState:
    """What the ``provider`` fixture built for one mutant item."""

    mutant: str
    operator: str
    order: int
    description: str
    provider: PositionalProvider
    source: Source
    model: str


def qualifies(fixturenames: list[str] | tuple[str, ...]) -> bool:
    """Whether a test reaches the ``provider`` fixture, so mutants can be served to it."""
    return bool(_PROVIDER_FIXTURES & set(fixturenames))


def mutant_id(item: pytest.Item) -> str | None:
    """The mutant this copy serves (``original`` for the control), None outside mutant runs."""
    return item.stash.get(RUN_KEY, None)


def base_nodeid(item: pytest.Item) -> str:
    """The eval's node id, the same for every copy."""
    return item.nodeid


def report_nodeid(item: pytest.Item) -> str:
    """The node id a copy's reports carry: the eval's, with the mutant id as a parameter."""
    nodeid, mid = item.nodeid, mutant_id(item)
    if mid is None:
        return nodeid
    if nodeid.endswith("]"):
        return f"{nodeid[:-1]}-{mid}]"
    return f"{nodeid}[{mid}]"


def _relative_file(path: Path, options: HarnessOptions) -> Path:
    try:
        return path.relative_to(options.rootdir)
    except ValueError:
        return Path(path.name)


def cassette_for(item: pytest.Item, options: HarnessOptions) -> tuple[str, str, Path] | None:
    """``(provider, model, cassette)`` the ``provider`` fixture would use, or None (scripted)."""
    from harness.testing.cassettes.recorded import DEFAULT_MODELS, RECORDED_PROVIDERS, cassette_path

    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    name = str(params.get("provider_name") or options.provider or "scripted")
    if name not in RECORDED_PROVIDERS:
        return None
    model = options.model or DEFAULT_MODELS.get(name, name)
    test_file = _relative_file(Path(str(item.path)), options).as_posix()
    stem = test_name(item) + ("-stream" if is_streaming(item) else "")
    return name, model, cassette_path(options.cassette_dir, name, model, test_file, stem)


def _applicable(item: pytest.Item, options: HarnessOptions) -> tuple[list[str], str]:
    """The mutant ids this item's cassette has, in order, or none and why."""
    from harness.core.errors import HarnessError
    from harness.evals.mutants import cassette_mutants
    from harness.testing.rows import http_mutants  # served at the HTTP layer

    if http_mutants.uses_llm_cassette(item):  # llm_cassette, or llm_proxy's process
        ids, why = http_mutants.applicable(item, options)
        return sorted(ids), why
    if not qualifies(getattr(item, "fixturenames", ())):
        return [], (
            "the eval uses neither the provider fixture nor llm_cassette (or llm_proxy), so no "
            "mutant can reach it"
        )
    found = cassette_for(item, options)
    if found is None:
        return [], "scripted provider: no cassette to derive mutants from"
    provider, _, path = found
    if not path.is_file():
        return [], f"no cassette at {path}; record it first"
    try:
        return [m.id for m in cassette_mutants(path, provider)], ""
    except HarnessError as exc:
        return [], str(exc)


def _seed(config: pytest.Config) -> str:
    """One value per run, the same on every xdist worker (they must collect alike)."""
    if _SEED_KEY not in config.stash:
        workerinput = getattr(config, "workerinput", None)
        shared = workerinput.get("testrunuid") if isinstance(workerinput, dict) else None
        config.stash[_SEED_KEY] = str(shared or secrets.token_hex(16))
    return config.stash[_SEED_KEY]


def _copy(item: pytest.Function) -> pytest.Function:
    """Another run of ``item``: the same name, node id, parameters and markers."""
    callspec = getattr(item, "callspec", None)
    return pytest.Function.from_parent(
        item.parent,
        name=item.name,
        callspec=callspec,
        callobj=item.obj,
        fixtureinfo=item._fixtureinfo,
        keywords={k: v for k, v in item.keywords.items() if k != item.name},
        originalname=item.originalname,
    )


def expand_items(items: list[pytest.Item], config: pytest.Config, options: HarnessOptions) -> None:
    """Give every eval one copy per mutant of its cassette beside its control, shuffled.

    An eval no mutant can reach keeps only its control, which skips and is
    reported ``not mutated``.
    """
    # The mutant tables cost about 0.2 s to import: paid only by a --mutants run,
    # not by every process that loads the plugin.
    from harness.evals.mutant_results import CONTROL

    rng = random.Random(_seed(config))
    expanded: list[pytest.Item] = []
    for item in items:
        if item.get_closest_marker("eval") is None or not isinstance(item, pytest.Function):
            expanded.append(item)
            continue
        ids, why = _applicable(item, options)
        item.stash[RUN_KEY] = CONTROL
        if why:
            item.stash[SKIP_KEY] = why
        group: list[pytest.Item] = [item]
        for mid in ids:
            copy = _copy(item)
            copy.stash[RUN_KEY] = mid
            group.append(copy)
        rng.shuffle(group)
        expanded.extend(group)
    items[:] = expanded


def name_report(report: pytest.TestReport) -> None:
    """Give a copy's report the node id that names its mutant, before anyone reads it.

    On an xdist worker the report travels with the eval's node id; the controller
    renames it.
    """
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    for name, value in report.user_properties:
        if name == _NODEID_PROPERTY:
            report.nodeid = str(value)
            return


def judge_report(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Name the copy in its report; a mutant's call must fail, as a strict xfail.

    Killed (an assertion failed) reads ``xfailed``, a survivor ``XPASS(strict)``;
    any other exception stays a failure (an eval error).
    """
    from harness.evals.mutant_results import CONTROL
    from harness.evals.mutants import MutantExhaustedError
    from harness.evals.request_mutants import is_request_operator

    mid = mutant_id(item)
    if mid is None:
        return
    # Renamed where the report is logged (``name_report``): xdist's worker checks
    # that a report it sends carries its item's own node id.
    report.user_properties.append((_NODEID_PROPERTY, report_nodeid(item)))
    if mid == CONTROL or report.when != "call":
        return
    reason = f"mutant {mid}: the eval should fail"
    if report.passed and is_request_operator(mid.partition(".")[0]):
        # A request (configuration) mutant only a check on what was sent can kill:
        # it is scored apart, so its survivor reads XPASS and fails no session.
        report.wasxfail = reason
        return
    if report.passed:
        report.outcome = "failed"
        report.longrepr = f"[XPASS(strict)] {reason}"
        return
    excinfo = call.excinfo
    expected = (AssertionError, pytest.fail.Exception, MutantExhaustedError)
    if report.failed and excinfo is not None and isinstance(excinfo.value, expected):
        report.outcome = "skipped"
        report.wasxfail = reason


@contextmanager
def serve_mutant(
    item: pytest.Item, options: HarnessOptions, run_log: RunLog
) -> Iterator[PositionalProvider]:
    """Yield the ``PositionalProvider`` for this item's mutant, with the network blocked."""
    from harness.core.errors import ConfigurationError
    from harness.evals.mutants import cassette_mutants, recorded_source, serving
    from harness.recording import block_network

    found = cassette_for(item, options)
    mid = mutant_id(item)
    if found is None or mid is None:
        raise ConfigurationError(f"{item.nodeid} has no cassette to serve mutant {mid} from")
    provider, model, path = found
    mutants = cassette_mutants(path, provider)
    chosen = next(((i, m) for i, m in enumerate(mutants) if m.id == mid), None)
    if chosen is None:
        raise ConfigurationError(f"cassette {path} has no mutant {mid}; was it re-recorded?")
    order, mutant = chosen
    served = serving(mutant, provider, model, path)  # a request mutant changes what is sent
    source = recorded_source(path)
    item.stash[STATE_KEY] = MutantState(
        mid, mutant.operator, order, mutant.description, served, source, model
    )
    run_log.provider, run_log.model, run_log.source = provider, model, source
    run_log.cassette_path = path  # where the MCP cassette beside it is found
    with block_network():
        yield served
