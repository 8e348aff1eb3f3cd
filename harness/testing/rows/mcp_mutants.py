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

from harness.testing.options import HarnessOptions
from harness.testing.rows.mutant_mode import mutant_id

__all__ = ["served_mcp_cassette"]


def served_mcp_cassette(
    request: pytest.FixtureRequest, options: HarnessOptions, first: Path, index: int = 1
) -> Path:
    """The test's ``index``-th MCP cassette (from 1; ``first`` is the first), or the
    mutated copy of it that this copy of the eval serves. A mutant's results are
    numbered across all of the test's cassettes, so it changes one of them only.

    Raises:
        ConfigurationError: the mutant names a tool result the cassette does not hold.
    """
    from harness.mcp import mcp_cassettes_from, numbered_mcp_cassette

    path = numbered_mcp_cassette(first, index)
    mid = mutant_id(request.node)
    if not options.mutants or mid is None or not path.is_file():
        return path
    from harness.evals.tool_result_mutants import is_tool_result_operator, mutated_cassette

    if not is_tool_result_operator(mid.rpartition(".")[0]):
        return path
    from harness.core.errors import ConfigurationError
    from harness.mcp import load_cassette, save_cassette

    cassettes = [load_cassette(each) for each in mcp_cassettes_from(first)]
    if index > len(cassettes):
        return path  # a cassette after a gap in the numbering: no mutant was derived from it
    mutated = mutated_cassette(cassettes, mid, index)
    if mutated is None:
        raise ConfigurationError(f"MCP cassette {path} has no mutant {mid}; was it re-recorded?")
    if mutated is cassettes[index - 1]:
        return path  # the mutant changes another of the test's cassettes
    folder: Path = request.getfixturevalue("tmp_path_factory").mktemp("mcp-mutant")
    copy = folder / path.name
    save_cassette(mutated, copy)
    return copy
