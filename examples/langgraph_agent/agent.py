"""A LangGraph ReAct agent: a model node and a ``ToolNode`` with one ``read_file`` tool.

Hand-built (``StateGraph`` + ``ToolNode`` + ``tools_condition``), the shape
``create_react_agent`` builds, so its nodes are named here: ``agent`` and
``tools``. ``approve=True`` asks a human with ``interrupt()`` before each read;
such a graph needs a checkpointer to be resumed (``Command(resume=...)``).
Nothing here knows about harness: the chat model is whatever the caller passes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt

MODEL = "gpt-4.1-mini"
SYSTEM = "Answer from the workspace files; read them first."


def read_file_tool(workspace: Path, *, approve: bool = False) -> BaseTool:
    """The ``read_file`` tool on ``workspace``; with ``approve``, a human must allow each read."""

    @tool
    def read_file(path: str) -> str:
        """Read a text file of the workspace."""
        if approve:
            answer = interrupt({"question": f"Let the agent read {path!r}?", "path": path})
            if answer != "yes":
                return f"error: the reviewer refused to let the agent read {path!r}"
        target = (workspace / path).resolve()
        if not target.is_relative_to(workspace.resolve()) or not target.is_file():
            return f"error: no file {path!r} in the workspace"
        return target.read_text("utf-8")

    return read_file


def build(
    model: BaseChatModel,
    workspace: Path,
    *,
    approve: bool = False,
    checkpointer: BaseCheckpointSaver[Any] | None = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled graph: ``agent`` (the model) <-> ``tools`` until the model answers."""
    tools = [read_file_tool(workspace, approve=approve)]
    bound = model.bind_tools(tools)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke([("system", SYSTEM), *state["messages"]])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=checkpointer, name="release-agent")


def answer(prompt: str, workspace: Path) -> str:
    """The case-file entry point: ``target: examples.langgraph_agent.agent:answer``."""
    from langchain_openai import ChatOpenAI

    result = build(ChatOpenAI(model=MODEL), workspace).invoke({"messages": [("user", prompt)]})
    return str(result["messages"][-1].content)
