"""``tool_calls()``: each tool call of a recording in framework-neutral terms, on every wire,
whatever ``HARNESS_TRACE_MODE`` the process runs with."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.testing import RecordedToolCall
from harness.testing.cassettes.tool_calls import tool_calls_from_exchanges
from harness.traffic import exchanges_from_cassette

EXAMPLES = Path(__file__).parents[3] / "examples" / "cassettes" / "examples"
# smolagents sends tool results back as user text: its wire shows no result (from_smolagents).
TEXT_PROTOCOL = {"smolagents_agent"}
# Coding-agent CLIs read the file with their shell tool: (tool name, argument holding the command).
SHELL_TOOL = {"codex_cli": ("exec_command", "cmd"), "claude_code": ("Bash", "command")}
RECORDINGS = sorted(p for p in EXAMPLES.glob("*/*/*.yaml") if p.parts[-3] not in TEXT_PROTOCOL)


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_each_recipe_shows_its_one_read_file_call_with_arguments_and_result(
    path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_TRACE_MODE", "metadata")  # no payloads in the process's traces
    (call,) = tool_calls_from_exchanges(exchanges_from_cassette(path))
    assert isinstance(call, RecordedToolCall)
    if path.parts[-3] in SHELL_TOOL:
        name, argument = SHELL_TOOL[path.parts[-3]]
        assert (call.name, call.arguments[argument]) == (name, "cat notes.txt")
    else:
        assert (call.name, call.arguments) == ("read_file", {"path": "notes.txt"})
    assert call.result is not None and "RELEASE-CODE-" in call.result
    assert call.call_id


def test_every_recipe_wire_is_covered() -> None:
    names = " ".join(p.stem for p in RECORDINGS)
    for wire in ("openai", "openai-responses", "anthropic", "gemini", "stream"):
        assert wire in names
