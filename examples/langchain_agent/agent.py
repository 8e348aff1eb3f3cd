"""A LangChain 1.x agent: ``create_agent`` on ``ChatAnthropic`` with one ``read_file`` tool.

``create_agent`` builds a LangGraph graph (a ``model`` node and a ``tools``
node) and runs it until the model answers with text. ``ask`` drives it the
way a chat UI does, with ``astream``: the model's tokens as they arrive
(``stream_mode="messages"``, which makes ``ChatAnthropic`` stream its requests)
and each node's update (``"updates"``), the last of which holds the answer.
Nothing here knows about harness: the chat model is whatever the caller passes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, tool

MODEL = "claude-sonnet-4-5"
SYSTEM = "Answer from the workspace files; read them first."


def read_file_tool(workspace: Path) -> BaseTool:
    """The ``read_file`` tool on ``workspace``."""

    @tool
    def read_file(path: str) -> str:
        """Read a text file of the workspace."""
        target = (workspace / path).resolve()
        if not target.is_relative_to(workspace.resolve()) or not target.is_file():
            return f"error: no file {path!r} in the workspace"
        return target.read_text("utf-8")

    return read_file


def build(model: BaseChatModel, workspace: Path) -> Any:
    """The agent graph: ``model`` <-> ``tools`` until the model answers."""
    return create_agent(model, [read_file_tool(workspace)], system_prompt=SYSTEM, name="release")


async def ask(agent: Any, prompt: str) -> tuple[str, str, list[BaseMessage]]:
    """Stream one run: (the streamed answer tokens, the final answer, the new messages)."""
    tokens: list[str] = []
    messages: list[BaseMessage] = []
    request = {"messages": [{"role": "user", "content": prompt}]}
    async for mode, chunk in agent.astream(request, stream_mode=["messages", "updates"]):
        if mode == "messages":
            message, metadata = chunk
            if metadata.get("langgraph_node") == "model" and isinstance(message.content, str):
                tokens.append(message.content)
            elif metadata.get("langgraph_node") == "model":
                tokens.extend(b.get("text", "") for b in message.content if isinstance(b, dict))
        else:
            for update in chunk.values():
                messages.extend((update or {}).get("messages", ()))
    final = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    return "".join(tokens), final.text if final is not None else "", messages


def answer(prompt: str, workspace: Path) -> str:
    """The case-file entry point: ``target: examples.langchain_agent.agent:answer``."""
    import asyncio

    from langchain_anthropic import ChatAnthropic

    model = ChatAnthropic(model_name=MODEL, max_retries=0, timeout=None, stop=None)
    return asyncio.run(ask(build(model, workspace), prompt))[1]
