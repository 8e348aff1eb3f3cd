"""Fixtures for the simulator's tests: a running simulator."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.simulator import SimulatorServer
from tests.recording.helpers import AGENT_SCRIPT


@pytest.fixture
def sim() -> Iterator[SimulatorServer]:
    """A running simulator that plays a two-turn agent (tool call, then text)."""
    with SimulatorServer(AGENT_SCRIPT) as server:
        yield server
