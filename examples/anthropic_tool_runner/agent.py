"""An agent on the Anthropic SDK's tool runner: one ``@beta_tool`` that reads workspace files.

``client.beta.messages.tool_runner(...)`` runs the loop itself: it sends the
request, calls each ``@beta_tool`` function the model asked for, sends the
results back and stops when the model answers with text. Nothing here knows
about harness: the client is whatever the caller passes (the test gives the
cassette's, ``llm_cassette.anthropic()``).
"""

from __future__ import annotations

from pathlib import Path

import anthropic
from anthropic import beta_tool
from anthropic.lib.tools import BetaFunctionTool
from anthropic.types.beta import BetaMessageParam as MessageParam

MODEL = "claude-sonnet-4-5"
SYSTEM = "Answer from the workspace files; read them first."


def read_file_tool(workspace: Path, calls: list[str]) -> BetaFunctionTool[str]:
    """The ``read_file`` tool on ``workspace``; each path asked for is appended to ``calls``."""

    @beta_tool
    def read_file(path: str) -> str:
        """Read a text file of the workspace.

        Args:
            path: the file's path, relative to the workspace.
        """
        calls.append(path)
        target = (workspace / path).resolve()
        if not target.is_relative_to(workspace.resolve()) or not target.is_file():
            return f"error: no file {path!r} in the workspace"
        return target.read_text("utf-8")

    return read_file


def run(client: anthropic.Anthropic, prompt: str, workspace: Path, *, stream: bool = False) -> str:
    """Run the tool runner until the model answers; its text answer.

    ``stream=True`` streams each model turn (``stream=True`` on the runner: each
    item is a message stream to read to its end).
    """
    calls: list[str] = []
    tools = [read_file_tool(workspace, calls)]
    messages: list[MessageParam] = [{"role": "user", "content": prompt}]
    if not stream:
        runner = client.beta.messages.tool_runner(
            model=MODEL, max_tokens=1024, system=SYSTEM, tools=tools, messages=messages
        )
        return _text(runner.until_done())
    streaming = client.beta.messages.tool_runner(
        model=MODEL, max_tokens=1024, system=SYSTEM, tools=tools, messages=messages, stream=True
    )
    final = None
    for turn in streaming:  # one message stream per model turn, read to its end
        final = turn.get_final_message()
    return _text(final)


def _text(message: object) -> str:
    content = getattr(message, "content", None) or ()
    return "".join(block.text for block in content if block.type == "text")


def answer(prompt: str, workspace: Path) -> str:
    """The case-file entry point: ``target: examples.anthropic_tool_runner.agent:answer``."""
    return run(anthropic.Anthropic(max_retries=0), prompt, workspace)
