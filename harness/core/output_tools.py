"""Output tools: the tool calls that carry an agent's answer, not an action.

Some frameworks ask the model for a structured answer by offering it a tool
whose call *is* the answer: the call ends the run and nothing is executed.
Counted as a tool call, it makes an eval row disagree with the trace and makes
``harness eval compare`` report a change when only the output mode changed (the
answer moved from text to an output tool). So the traffic trace, the rows and
trajectory matching recognise them here, by name, and report them as the answer.

The registry, per framework (a name matches a pattern in full):

- **pydantic-ai** (``ToolOutput``, the default for a structured ``output_type``):
  ``final_result``; with several output types ``final_result_<Type>``, and
  ``final_result_2``... when two would share a name
  (``pydantic_ai._output.DEFAULT_OUTPUT_TOOL_NAME``). A ``ToolOutput(name=...)``
  of your own naming is recognised by what pydantic-ai itself says of it:
  its OpenTelemetry model spans list the output tools (``kind: "output"`` in
  ``model_request_parameters``), and on the wire an output tool whose type has
  no description of its own carries pydantic-ai's default description,
  ``The final response which ends this conversation`` (``<Type>: ...`` with
  several output types). A named output tool whose type has a docstring is
  told apart by nothing on the wire: only the spans know it.
- **smolagents** (``ToolCallingAgent``): ``final_answer``, the tool whose
  arguments are the answer (``smolagents.default_tools.FinalAnswerTool``).
- **OpenAI Agents SDK**: no output tool. An ``output_type`` goes out as a JSON
  schema response format named ``final_output`` (Chat Completions
  ``response_format``, Responses ``text.format``): the answer is the message
  text, which every reader already takes as the answer. Listed so that the
  table says where each framework stands.

An output tool is thus known by its name (``is_output_tool``) or by its
definition in the request that offered it (``declared_output_tools``): a reader
that sees the request passes the names it declares to ``is_output_tool``.

This module is data and three lookups, so that every room (the traffic trace,
the row summaries, the toolkit) asks the same question the same way.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from dataclasses import dataclass

__all__ = [
    "OUTPUT_TOOLS",
    "OutputTools",
    "declared_output_tools",
    "is_output_tool",
    "may_declare_output_tools",
    "output_tool_framework",
]


@dataclass(frozen=True, slots=True)
class OutputTools:
    """How one framework names the tools whose call is the answer.

    Attributes:
        framework: the framework, as its users call it.
        pattern: a regular expression a tool name matches in full; None when the
            framework has no output tool (its structured answer is message text).
        how: where the name comes from, for the docs and failure messages.
        marker: the description the framework gives its output tools whatever
            their name (``<Type>: `` may come before it); None when it marks
            them nowhere.
    """

    framework: str
    pattern: str | None
    how: str
    marker: str | None = None


OUTPUT_TOOLS: tuple[OutputTools, ...] = (
    OutputTools(
        "pydantic-ai",
        r"final_result(_\w+)?",
        "ToolOutput: final_result, final_result_<Type> with several output types",
        # pydantic_ai._output.DEFAULT_OUTPUT_TOOL_DESCRIPTION, given to every output tool
        # whose type describes itself nowhere; ``<Type>: `` before it with several types.
        "The final response which ends this conversation",
    ),
    OutputTools("smolagents", r"final_answer", "ToolCallingAgent's FinalAnswerTool"),
    OutputTools(
        "openai-agents",
        None,
        "output_type is a JSON-schema response format (final_output): the answer is text",
    ),
)

_MATCHERS = tuple(
    (entry.framework, re.compile(entry.pattern)) for entry in OUTPUT_TOOLS if entry.pattern
)
_MARKED = tuple(
    re.compile(r"([^:\n]+: )?" + re.escape(entry.marker)) for entry in OUTPUT_TOOLS if entry.marker
)


def output_tool_framework(name: str) -> str | None:
    """The framework whose output tool ``name`` is, else None (an ordinary tool)."""
    for framework, pattern in _MATCHERS:
        if pattern.fullmatch(name):
            return framework
    return None


def declared_output_tools(tools: Iterable[tuple[str, str | None]]) -> frozenset[str]:
    """The names among a request's ``(name, description)`` tool definitions whose
    description marks them as a framework's output tools, whatever their name."""
    return frozenset(
        name
        for name, description in tools
        if description and any(marked.fullmatch(description.strip()) for marked in _MARKED)
    )


def may_declare_output_tools(body: bytes | str) -> bool:
    """Whether a request body holds a framework's output-tool marker at all: a cheap
    test, so that readers parse tool definitions only of the bodies that may declare."""
    text = body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")
    return any(entry.marker.encode() in text for entry in OUTPUT_TOOLS if entry.marker)


def is_output_tool(name: str, declared: Collection[str] = ()) -> bool:
    """Whether a call of the tool ``name`` is an answer (see the registry above).

    Args:
        name: the tool's name.
        declared: the output tools the request that offered it declared
            (``declared_output_tools``, or a framework's own list).
    """
    return name in declared or output_tool_framework(name) is not None
