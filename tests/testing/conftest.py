"""Shared setup of the plugin's pytester tests: the modules inner runs import, kept
loaded, and the simulator each module's inner runs record against."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import httpx
import httpx2
import openai
import pytest
import requests

import harness.app
import harness.evals.recorded_responses
import harness.recording
import harness.simulator.render
import harness.subagent
import harness.testing.assertions.request_checks
import harness.testing.assertions.trace_assertions
import harness.testing.assertions.trajectory
import harness.testing.cases_suite
import harness.testing.cassettes.live_guard
import harness.testing.rows.http_mutants
import harness.testing.rows.traffic_rows
import harness.tools.builtin
import harness.wires.anthropic.provider
import harness.wires.openai.provider
from harness.simulator import SimulatorServer

# pytester's in-process runs drop the modules a run imported once it ends: imported
# here, before any run, these stay loaded, so no inner run (nor its setup) pays for
# them again. The union of what the inner runs of this folder import.
PRELOADED = (
    anthropic,
    openai,
    httpx,
    httpx2,
    requests,
    harness.app,
    harness.evals.recorded_responses,
    harness.recording,
    harness.simulator.render,
    harness.subagent,
    harness.testing.cases_suite,
    harness.testing.rows.http_mutants,
    harness.testing.cassettes.live_guard,
    harness.testing.assertions.request_checks,
    harness.testing.assertions.trace_assertions,
    harness.testing.rows.traffic_rows,
    harness.testing.assertions.trajectory,
    harness.tools.builtin,
    harness.wires.anthropic.provider,
    harness.wires.openai.provider,
)


@pytest.fixture(scope="module")
def sim(request: pytest.FixtureRequest) -> Iterator[SimulatorServer]:
    """A simulator serving the test module's ``SIM_SCRIPT``, one per module."""
    with SimulatorServer(request.module.SIM_SCRIPT) as server:
        yield server
