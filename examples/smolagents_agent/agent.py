"""A smolagents ``ToolCallingAgent`` with one ``read_file`` tool, on an OpenAI-compatible API."""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI
from smolagents import OpenAIServerModel, Tool, ToolCallingAgent

MODEL = "gpt-4.1-mini"


class ReadFile(Tool):
    name = "read_file"
    description = "Read a text file of the workspace."
    inputs = {"path": {"type": "string", "description": "the file, relative to the workspace"}}
    output_type = "string"

    def __init__(self, workspace: Path) -> None:
        super().__init__()
        self.workspace = workspace

    def forward(self, path: str) -> str:
        target = (self.workspace / path).resolve()
        if not target.is_relative_to(self.workspace.resolve()) or not target.is_file():
            return f"error: no file {path!r} in the workspace"
        return target.read_text("utf-8")


def build(workspace: Path, client: OpenAI | None = None) -> ToolCallingAgent:
    """The agent on ``client`` (default: an ``OpenAI()`` from the environment).

    smolagents builds its own client from ``api_base`` / ``api_key``; handing it
    one (the test's ``llm_cassette.openai()``) keeps the test's cassette in the loop.
    """
    model = OpenAIServerModel(MODEL, client_kwargs={"max_retries": 0})
    if client is not None:
        model.client = client
    return ToolCallingAgent(
        tools=[ReadFile(workspace)], model=model, max_steps=4, verbosity_level=0
    )


def answer(prompt: str, workspace: Path) -> str:
    """The case-file entry point: ``target: examples.smolagents_agent.agent:answer``."""
    return str(build(workspace).run(prompt))
