"""Reply rules with ``fill``: the simulated model repeats what its tools returned, only that."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.core import ConfigurationError
from harness.simulator import SimulatorServer, load_script
from tests.recording.helpers import openai_client

CALL = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
WRITE_THE_SENTINEL = {
    "fill": r"SENTINEL-[A-Z0-9-]+",
    "when": {"has_tool_results": True},
    "reply": {
        "tool_calls": [
            {
                "name": "write",
                "arguments": {
                    "path": "out.txt",
                    "content": "{match}\n",
                    "lines": ["f'{x}' {match}"],
                },
            }
        ]
    },
}


def _ask(script: dict[str, Any], prompt: str, *results: str) -> Any:
    messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
    for number, result in enumerate(results, start=1):
        call = CALL | {"id": f"call_{number}"}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{number}", "content": result})
    with SimulatorServer(script) as sim, openai_client(sim.url) as client:
        return client.chat.completions.create(model="gpt-4o", messages=messages).choices[0]


def test_fill_copies_the_latest_tool_result_value_into_tool_arguments() -> None:
    choice = _ask(
        {"rules": [WRITE_THE_SENTINEL]},
        "copy the marker",
        "old: SENTINEL-OLD-1",
        "nothing here",
        "new: SENTINEL-NEW-2 and SENTINEL-NEW-3",
    )
    (call,) = choice.message.tool_calls
    assert call.function.name == "write"
    assert json.loads(call.function.arguments) == {
        "path": "out.txt",
        "content": "SENTINEL-NEW-2\n",
        "lines": ["f'{x}' SENTINEL-NEW-2"],
    }


def test_fill_never_takes_a_value_from_the_prompt() -> None:
    script = {"rules": [WRITE_THE_SENTINEL], "turns": ["no marker in any tool result"]}
    choice = _ask(script, "the marker is SENTINEL-PROMPT-9", "a file without one")
    assert choice.message.tool_calls is None
    assert choice.message.content == "no marker in any tool result"


def test_fill_uses_the_first_group_in_text_replies() -> None:
    rule = {"fill": r"next: (\S+)", "reply": "going on to {match}"}
    choice = _ask({"rules": [rule]}, "follow the chain", "next: b.txt", "next: c.txt")
    assert choice.message.content == "going on to c.txt"


def test_a_bad_fill_pattern_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="fill"):
        load_script({"rules": [{"fill": "(unclosed", "reply": "x"}]})
