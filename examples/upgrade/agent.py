"""A raw openai tool loop whose model is a parameter: the agent a model upgrade swaps.

Nothing here knows about harness: the caller passes the client and the model,
so the same code runs on api.openai.com, against the simulator or a cassette,
on whichever model the upgrade is about.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai

SYSTEM = "Answer from the workspace files. Read them first; follow any file they point to."
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a text file of the workspace.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]


@dataclass
class Run:
    """The final answer and every file the model read, in order."""

    answer: str = ""
    reads: list[str] = field(default_factory=list)


def read_file(workspace: Path, path: str) -> str:
    target = (workspace / path).resolve()
    if not target.is_relative_to(workspace.resolve()) or not target.is_file():
        return f"error: no file {path!r} in the workspace"
    return target.read_text("utf-8")


def run(prompt: str, workspace: Path, client: openai.OpenAI, model: str, steps: int = 6) -> Run:
    """Run the tool loop on ``model`` to a final answer (at most ``steps`` model calls)."""
    messages: list[Any] = [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": prompt},
    ]
    result = Run()
    for _ in range(steps):
        response = client.chat.completions.create(model=model, messages=messages, tools=TOOLS)
        message = response.choices[0].message.model_dump(exclude_none=True)
        messages.append(message)
        if not message.get("tool_calls"):
            result.answer = message.get("content") or ""
            return result
        for call in message["tool_calls"]:
            path = str(json.loads(call["function"]["arguments"] or "{}").get("path", ""))
            result.reads.append(path)
            output = read_file(workspace, path)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    return result
