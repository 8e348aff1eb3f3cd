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
  of your own naming is not recognised.
- **smolagents** (``ToolCallingAgent``): ``final_answer``, the tool whose
  arguments are the answer (``smolagents.default_tools.FinalAnswerTool``).
- **OpenAI Agents SDK**: no output tool. An ``output_type`` goes out as a JSON
  schema response format named ``final_output`` (Chat Completions
  ``response_format``, Responses ``text.format``): the answer is the message
  text, which every reader already takes as the answer. Listed so that the
  table says where each framework stands.

This module is data and two lookups, so that every room (the traffic trace, the
row summaries, the toolkit) asks the same question the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["OUTPUT_TOOLS", "OutputTools", "is_output_tool", "output_tool_framework"]


@dataclass(frozen=True, slots=True)
class OutputTools:
    """How one framework names the tools whose call is the answer.

    Attributes:
        framework: the framework, as its users call it.
        pattern: a regular expression a tool name matches in full; None when the
            framework has no output tool (its structured answer is message text).
        how: where the name comes from, for the docs and failure messages.
    """

    framework: str
    pattern: str | None
    how: str


OUTPUT_TOOLS: tuple[OutputTools, ...] = (
    OutputTools(
        "pydantic-ai",
        r"final_result(_\w+)?",
        "ToolOutput: final_result, final_result_<Type> with several output types",
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


def output_tool_framework(name: str) -> str | None:
    """The framework whose output tool ``name`` is, else None (an ordinary tool)."""
    for framework, pattern in _MATCHERS:
        if pattern.fullmatch(name):
            return framework
    return None


def is_output_tool(name: str) -> bool:
    """Whether a call of the tool ``name`` is an answer (see the registry above)."""
    return output_tool_framework(name) is not None
