"""Shared setup of the plugin's pytester tests: the modules inner runs import, kept
loaded, and the simulator each module's inner runs record against."""

from __future__ import annotations

import importlib
from collections.abc import Iterator

import pytest

from harness.simulator import SimulatorServer

# pytester's in-process runs drop the modules a run imported once it ends: imported
# before this folder's first test, these stay loaded, so no inner run (nor its setup)
# pays for them again. The union of what the inner runs of this folder import.
# Imported by the fixture, not at this module's import: an xdist worker collects
# every folder, and one that runs none of these tests need not load the SDKs.
PRELOADED = (
    "anthropic",
    "openai",
    "httpx",
    "httpx2",
    "requests",
    "harness.app",
    "harness.evals.recorded_responses",
    "harness.recording",
    "harness.simulator.render",
    "harness.subagent",
    "harness.testing.cases_suite",
    "harness.testing.rows.http_mutants",
    "harness.testing.cassettes.live_guard",
    "harness.testing.assertions.request_checks",
    "harness.testing.assertions.trace_assertions",
    "harness.testing.rows.traffic_rows",
    "harness.testing.assertions.trajectory",
    "harness.tools.builtin",
    "harness.wires.anthropic.provider",
    "harness.wires.openai.provider",
)


@pytest.fixture(scope="session", autouse=True)
def _preloaded() -> None:
    for name in PRELOADED:
        importlib.import_module(name)


@pytest.fixture(scope="module")
def sim(request: pytest.FixtureRequest) -> Iterator[SimulatorServer]:
    """A simulator serving the test module's ``SIM_SCRIPT``, one per module."""
    with SimulatorServer(request.module.SIM_SCRIPT) as server:
        yield server
