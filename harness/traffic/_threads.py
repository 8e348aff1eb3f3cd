"""Where each model call of a recording sat in the run: conversations, steps, tool calls.

The HTTP exchange knows no spans, so the structure is read from what each
request repeats and answers:

- A request belongs to the conversation whose pending tool calls it answers,
  else to the one whose response it names (``previous_response_id``), else to
  the one that opened with the same context (system text and first message:
  every request of a conversation repeats them), else it starts a new one.
- Each model call is one step. The tool calls its response asks for are
  pending until a later request of the same conversation carries their
  results; each answered call becomes a tool call of that step, in the order
  the model asked. A conversation that goes on without answering some pending
  calls dropped them (they stay counted on the model call, with no tool call).
- A new conversation that starts while another waits for tool results, with
  other instructions or tools than that one (another agent), is that tool's
  sub-agent (as harness's ``explore`` runs a ``subagent.run`` inside its
  ``tool.call``, or an Agents SDK agent used as a tool): its steps nest under
  the first waiting call that has none yet (else the last waiting one). An
  output tool (``harness.core.output_tools``: pydantic-ai's ``final_result``,
  smolagents' ``final_answer``) never waits for one: its call ended its agent's
  run. Any other new conversation is another run of the same test (the same
  agent with a new prompt), and its steps follow at the top level.
- A result whose call no recorded response asked for (a history the test
  wrote by hand, a cassette that starts mid-run) is a tool call of its own,
  just before the step of the request that carried it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from harness.core.output_tools import is_output_tool
from harness.traffic.wire import ModelRequest, ModelResponse, ToolAsk, ToolResult

__all__ = ["UNKNOWN_TOOL", "Call", "Run", "Step", "Tool", "place_calls"]

UNKNOWN_TOOL = "unknown_tool"  # a result whose call no message of the recording names


@dataclass(frozen=True)
class Call:
    """One model exchange of the recording, read: its position among all exchanges."""

    index: int
    request: ModelRequest
    response: ModelResponse


@dataclass
class Tool:
    """A tool call: what was asked, the result sent back (if any), sub-agent runs in it."""

    ask: ToolAsk
    position: int
    result: ToolResult | None = None
    answered_by: int | None = None
    runs: list[Run] = field(default_factory=list)
    asked: bool = True


@dataclass
class Step:
    """One model call and the tool calls that answer its asks."""

    call: Call
    conversation: int
    tools: list[Tool] = field(default_factory=list)


@dataclass
class Run:
    """A conversation's container: the top level, or a sub-agent inside a tool call."""

    conversation: int
    items: list[Step | Tool] = field(default_factory=list)
    prompt: str | None = None


@dataclass
class _Thread:
    number: int
    key: str
    run: Run
    pending: dict[str, Tool] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    last_step: Step | None = None


class _Placer:
    def __init__(self) -> None:
        self.top = Run(conversation=0)
        self.threads: list[_Thread] = []
        self.by_key: dict[str, _Thread] = {}
        self.by_response: dict[str, _Thread] = {}

    def place(self, call: Call) -> None:
        request = call.request
        thread = self._thread_of(request)
        answered = self._take_results(thread, call)
        for dropped in [k for k in thread.pending if k not in answered]:
            del thread.pending[dropped]
        step = Step(call, thread.number)
        thread.run.items.append(step)
        for position, ask in enumerate(call.response.asks):
            tool = Tool(ask, position)
            step.tools.append(tool)
            for key in ask.ids:
                thread.pending[key] = tool
        thread.last_step = step
        if call.response.response_id:
            self.by_response[call.response.response_id] = thread

    def _thread_of(self, request: ModelRequest) -> _Thread:
        for result in request.results:
            for thread in reversed(self.threads):
                if result.call_id in thread.pending:
                    return thread
        previous = request.previous_response_id
        if previous and previous in self.by_response:
            return self.by_response[previous]
        known = self.by_key.get(request.thread)
        if known is not None:
            return known
        return self._open(request)

    def _open(self, request: ModelRequest) -> _Thread:
        number = len(self.threads)
        waiting = self._waiting_tool(request.agent)
        if waiting is None:  # another run of the test: its steps follow at the top level
            run = self.top
            if run.prompt is None:
                run.prompt = request.prompt
        else:
            run = Run(conversation=number, prompt=request.prompt)
            waiting.runs.append(run)
        thread = _Thread(number, request.thread, run)
        self.threads.append(thread)
        self.by_key[request.thread] = thread
        return thread

    def _waiting_tool(self, agent: str) -> Tool | None:
        for thread in reversed(self.threads):
            step = thread.last_step
            if step is None or step.call.request.agent == agent:
                continue
            waiting = [
                tool
                for tool in step.tools
                if tool.ask.call_id in thread.pending
                and not is_output_tool(tool.ask.name, step.call.request.output_tools)
            ]
            if waiting:
                return next((tool for tool in waiting if not tool.runs), waiting[-1])
        return None

    def _take_results(self, thread: _Thread, call: Call) -> set[str]:
        answered: set[str] = set()
        history = call.request.history
        orphans = 0
        for result in call.request.results:
            call_id = result.call_id
            tool = thread.pending.get(call_id)
            if tool is not None:
                for key in tool.ask.ids:
                    thread.pending.pop(key, None)
                    answered.add(key)
                tool.result, tool.answered_by = result, call.index
            elif call_id not in thread.seen:
                ask = history.get(call_id) or ToolAsk(call_id, result.name or UNKNOWN_TOOL, "")
                thread.run.items.append(Tool(ask, orphans, result, call.index, asked=False))
                orphans += 1
            thread.seen.add(call_id)
        return answered


def place_calls(calls: list[Call]) -> Run:
    """The top-level run of ``calls`` (in recorded order), nested as described above."""
    placer = _Placer()
    for call in calls:
        placer.place(call)
    return placer.top
