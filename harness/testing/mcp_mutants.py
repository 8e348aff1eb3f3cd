"""Serving a tool-result mutant: the test's MCP cassette replayed with one result changed.

The model side of a tool-result mutant is the control's (the recorded answers,
in order); the change is in the MCP cassette, so it is made there: a copy of the
cassette with that ``tools/call`` result replaced is written under the test's
temporary folder, and every replay path (the stdio stand-in, the HTTP stand-in,
``make_harness_app``'s replayed servers) reads the copy instead. Nothing else of
the replay (matching, misses, call counts) can tell it from the recording.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.testing.mutant_mode import mutant_id
from harness.testing.options import HarnessOptions

__all__ = ["served_mcp_cassette"]


def served_mcp_cassette(
    request: pytest.FixtureRequest, options: HarnessOptions, path: Path
) -> Path:
    """``path``, or the mutated copy of it that this copy of the eval serves.

    Raises:
        ConfigurationError: the mutant names a tool result the cassette does not hold.
    """
    mid = mutant_id(request.node)
    if not options.mutants or mid is None:
        return path
    from harness.evals.tool_result_mutants import is_tool_result_operator, mutated_cassette

    if not is_tool_result_operator(mid.rpartition(".")[0]):
        return path
    from harness.core.errors import ConfigurationError
    from harness.mcp.cassette import load_cassette, save_cassette

    mutated = mutated_cassette(load_cassette(path), mid)
    if mutated is None:
        raise ConfigurationError(f"MCP cassette {path} has no mutant {mid}; was it re-recorded?")
    folder: Path = request.getfixturevalue("tmp_path_factory").mktemp("mcp-mutant")
    copy = folder / path.name
    save_cassette(mutated, copy)
    return copy
