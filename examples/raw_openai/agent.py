"""A raw openai tool loop: the model may call ``read_file`` until it answers.

Nothing here knows about harness: the client is whatever the caller passes,
so the same code runs against api.openai.com, the simulator or a cassette.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai

MODEL = "gpt-4.1-mini"
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
    """The final answer and every tool call the model made, in order."""

    answer: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)


def read_file(workspace: Path, path: str) -> str:
    target = (workspace / path).resolve()
    if not target.is_relative_to(workspace.resolve()) or not target.is_file():
        return f"error: no file {path!r} in the workspace"
    return target.read_text("utf-8")


def _streamed(client: openai.OpenAI, messages: list[Any]) -> dict[str, Any]:
    """One streamed completion assembled into an assistant message."""
    text: list[str] = []
    calls: dict[int, dict[str, Any]] = {}
    stream = client.chat.completions.create(
        model=MODEL,
        messages=messages,
        tools=TOOLS,
        stream=True,
        stream_options={"include_usage": True},  # the last chunk then carries the usage
    )
    for chunk in stream:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        text.append(delta.content or "")
        for part in delta.tool_calls or []:
            call = calls.setdefault(
                part.index,
                {"id": "", "type": "function", "function": {"name": "", "arguments": ""}},
            )
            call["id"] = part.id or call["id"]
            if part.function is not None:
                call["function"]["name"] += part.function.name or ""
                call["function"]["arguments"] += part.function.arguments or ""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = [calls[i] for i in sorted(calls)]
    return message


def _plain(client: openai.OpenAI, messages: list[Any]) -> dict[str, Any]:
    response = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
    return response.choices[0].message.model_dump(exclude_none=True)


def run(
    prompt: str, workspace: Path, client: openai.OpenAI, *, stream: bool = False, steps: int = 6
) -> Run:
    """Run the tool loop to a final answer (at most ``steps`` model calls)."""
    messages: list[Any] = [
        {"role": "system", "content": "Answer from the workspace files; read them first."},
        {"role": "user", "content": prompt},
    ]
    result = Run()
    for _ in range(steps):
        message = _streamed(client, messages) if stream else _plain(client, messages)
        messages.append(message)
        if not message.get("tool_calls"):
            result.answer = message.get("content") or ""
            return result
        for call in message["tool_calls"]:
            arguments = json.loads(call["function"]["arguments"] or "{}")
            result.calls.append((call["function"]["name"], arguments))
            output = read_file(workspace, str(arguments.get("path", "")))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": output})
    return result


def answer(prompt: str, workspace: Path) -> str:
    """The case-file entry point: ``target: examples.raw_openai.agent:answer``."""
    return run(prompt, workspace, openai.OpenAI()).answer
