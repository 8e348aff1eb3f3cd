"""Framework traces as harness trees: pydantic-ai's OpenTelemetry spans and the Agents SDK's.

Real agents run: pydantic-ai ``Agent`` objects on its ``FunctionModel`` and, over
HTTP, against the simulator on 127.0.0.1 with instrumentation on and an
in-memory span exporter; Agents SDK agents against the simulator with
``AgentsTraceProcessor`` installed as the only processor (nothing goes to
OpenAI's trace ingest). Where the run went over HTTP, its cassette's traffic
trace must tell the same story as the framework's own spans.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from anthropic import AsyncAnthropic
from openai import AsyncOpenAI
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import Status, StatusCode

from harness.core import ConfigurationError
from harness.recording import use_cassette
from harness.simulator import SimulatorServer
from harness.testing import assert_trace_shape, trace_from_cassette
from harness.testing.adapters import from_otel_spans
from harness.tracing import TraceTree, TraceUsageError, outline_text, validate_trace_document
from harness.view import build_trace_page

# One worker imports the heavy SDK for all of this module (see the root conftest).
pytestmark = pytest.mark.xdist_group("agent-frameworks")

# The frameworks are a test extra: without them this module skips, saying so.
_EXTRA = (
    "needs the agent frameworks: pip install openai-agents 'pydantic-ai-slim[openai,anthropic]'"
)
if not all(importlib.util.find_spec(name) for name in ("agents", "pydantic_ai")):
    pytest.skip(_EXTRA, allow_module_level=True)


class _Lazy:
    """A module imported on first use: collection on every worker stays cheap,
    and only the worker that runs these tests pays the frameworks' import."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("_"):  # pytest's collection probes __wrapped__, __test__, ...
            raise AttributeError(attr)
        return getattr(importlib.import_module(self._name), attr)


def AgentsTraceProcessor() -> Any:
    from harness.testing.adapters import AgentsTraceProcessor as processor

    return processor()


sdk = _Lazy("agents")
sdk_tracing = _Lazy("agents.tracing")
pai = _Lazy("pydantic_ai")
pai_messages = _Lazy("pydantic_ai.messages")
pai_function = _Lazy("pydantic_ai.models.function")
pai_instrumented = _Lazy("pydantic_ai.models.instrumented")


def Agent(*args: Any, **kwargs: Any) -> Any:
    return pai.Agent(*args, **kwargs)


def SdkAgent(*args: Any, **kwargs: Any) -> Any:
    return sdk.Agent(*args, **kwargs)


def ToolCallPart(*args: Any, **kwargs: Any) -> Any:
    return pai_messages.ToolCallPart(*args, **kwargs)


def TextPart(*args: Any, **kwargs: Any) -> Any:
    return pai_messages.TextPart(*args, **kwargs)


SENTINEL = "SENTINEL-ADAPTER-5150"
ONE_TOOL = """
agent.run
  agent.step
    llm.call
    tool.call read_file
  agent.step
    llm.call
"""
SCRIPT = {
    "version": 1,
    "turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        f"The marker is {SENTINEL}.",
    ],
}
KEY = "sk-test-simulator0000"


def read_file(path: str) -> str:
    """Read a file of the workspace."""
    return f"{path}: {SENTINEL}"


@pytest.fixture
def tracer_provider() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


@pytest.fixture
def spans(
    tracer_provider: tuple[TracerProvider, InMemorySpanExporter],
) -> tuple[Any, InMemorySpanExporter]:
    provider, exporter = tracer_provider
    return pai_instrumented.InstrumentationSettings(tracer_provider=provider), exporter


def _valid(tree: TraceTree) -> TraceTree:
    validate_trace_document(json.loads(tree.to_json()))
    assert tree.trace_id in build_trace_page([tree])
    return tree


def _scripted(*answers: list[Any]) -> Any:
    """A FunctionModel that answers with ``answers`` in turn (tool calls or text)."""
    queue = list(answers)

    def answer(messages: list[Any], info: Any) -> Any:
        return pai_messages.ModelResponse(parts=queue.pop(0))

    return pai_function.FunctionModel(answer)


def _finished(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return list(exporter.get_finished_spans())


# -- pydantic-ai through OpenTelemetry -------------------------------------------------


@pytest.mark.deep
def test_a_pydantic_ai_run_is_a_harness_shaped_trace(spans: Any) -> None:
    settings, exporter = spans
    model = _scripted(
        [ToolCallPart("read_file", {"path": "notes.txt"}, tool_call_id="call-1")], [TextPart("ok")]
    )
    agent = Agent(model, name="reader", tools=[read_file])
    agent.instrument = settings
    assert asyncio.run(agent.run("read notes.txt")).output == "ok"
    tree = _valid(from_otel_spans(_finished(exporter)))
    assert_trace_shape(tree, ONE_TOOL)
    assert tree.root.attributes["agent_name"] == "reader"
    tool = tree.one("tool.call", "read_file")
    assert tool.attributes["tool_call_id"] == "call-1"
    assert tool.attributes["tool_call_index"] == 0
    assert tool.attributes["observation_chars"] == len(read_file("notes.txt"))
    first = tree.find_all("llm.call")[0]
    assert first.attributes["tool_calls"][0]["argument_hash"] == tool.attributes["argument_hash"]
    assert first.attributes["input_tokens"] > 0
    assert tree.root.attributes["tool_calls"] == 1
    assert SENTINEL not in tree.to_json()  # metadata mode: no text
    replay = from_otel_spans(_finished(exporter), mode="replay")
    assert SENTINEL in replay.one("tool.call").attributes["payload"]["observation"]


def test_a_tool_asking_for_a_retry_is_an_error_span(spans: Any) -> None:
    settings, exporter = spans
    calls = {"n": 0}

    def flaky(path: str) -> str:
        """Read a file, failing once."""
        calls["n"] += 1
        if calls["n"] == 1:
            raise pai.ModelRetry("try again")
        return SENTINEL

    ask = [ToolCallPart("flaky", {"path": "a"}, tool_call_id="c1")]
    again = [ToolCallPart("flaky", {"path": "a"}, tool_call_id="c2")]
    agent = Agent(_scripted(ask, again, [TextPart("done")]), tools=[flaky])
    agent.instrument = settings
    asyncio.run(agent.run("go"))
    tree = _valid(from_otel_spans(_finished(exporter)))
    failed, passed = tree.find_all("tool.call", "flaky")
    assert failed.status == "error" and failed.attributes["is_error"] is True
    assert passed.status == "ok" and passed.attributes["tool_call_id"] == "c2"


def test_an_agent_called_from_a_tool_is_a_subagent_run(spans: Any) -> None:
    settings, exporter = spans
    inner = Agent(_scripted([TextPart(SENTINEL)]), name="researcher")
    inner.instrument = settings

    async def research(topic: str) -> str:
        """Ask the researcher."""
        return (await inner.run(topic)).output

    outer = Agent(
        _scripted([ToolCallPart("research", {"topic": "x"})], [TextPart("done")]),
        name="lead",
        tools=[research],
    )
    outer.instrument = settings
    asyncio.run(outer.run("go"))
    tree = _valid(from_otel_spans(_finished(exporter)))
    assert_trace_shape(
        tree,
        "agent.run\n  agent.step\n    llm.call\n    tool.call research\n"
        "      subagent.run\n        llm.call\n  agent.step\n    llm.call",
    )
    assert tree.one("subagent.run").attributes["agent_name"] == "researcher"
    assert tree.root.attributes["llm_calls"] == 3 and tree.root.attributes["steps"] == 2


def test_openinference_spans_map_by_their_span_kind(
    tracer_provider: tuple[TracerProvider, InMemorySpanExporter],
) -> None:
    provider, exporter = tracer_provider
    tracer = provider.get_tracer("openinference-like")
    prefix = "llm.output_messages.0.message.tool_calls.0.tool_call."
    asked = {
        "openinference.span.kind": "LLM",
        "llm.model_name": "gpt-4o",
        "llm.provider": "openai",
        "llm.token_count.prompt": 12,
        "llm.token_count.completion": 3,
        "llm.token_count.prompt_details.cache_read": 4,
        prefix + "id": "call_1",
        prefix + "function.name": "lookup",
        prefix + "function.arguments": '{"q": "x"}',
    }
    tool = {"openinference.span.kind": "TOOL", "tool.name": "lookup", "input.value": '{"q": "x"}'}
    with tracer.start_as_current_span("agent", attributes={"openinference.span.kind": "AGENT"}):
        with tracer.start_as_current_span("ChatCompletion", attributes=asked):
            pass
        with tracer.start_as_current_span("lookup", attributes=tool) as span:
            span.record_exception(LookupError("no such key"))
            span.set_status(Status(StatusCode.ERROR))
        with tracer.start_as_current_span("chain", attributes={"openinference.span.kind": "CHAIN"}):
            answer = {"openinference.span.kind": "LLM", "llm.model_name": "gpt-4o"}
            with tracer.start_as_current_span("ChatCompletion", attributes=answer):
                pass
    tree = _valid(from_otel_spans(_finished(exporter)))
    steps = """\
agent.run
  agent.step
    llm.call
    tool.call lookup !error
  agent.step
    llm.call"""
    assert_trace_shape(tree, steps)
    first = tree.find_all("llm.call")[0].attributes
    assert (first["input_tokens"], first["output_tokens"], first["cached_input_tokens"]) == (
        12,
        3,
        4,
    )
    assert first["provider"] == "openai" and first["tool_calls"][0]["id"] == "call_1"
    failed = tree.one("tool.call", status="error")
    assert failed.attributes["tool_call_id"] == "call_1"  # matched by name and arguments
    assert failed.attributes["error_type"] == "LookupError"
    assert "no such key" not in tree.to_json()  # the message only in replay mode
    replay = from_otel_spans(_finished(exporter), mode="replay")
    assert replay.one("tool.call").attributes["payload"]["error_message"] == "no such key"


def test_a_bad_payload_limit_is_a_clear_error(
    tracer_provider: tuple[TracerProvider, InMemorySpanExporter], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_TRACE_MAX_PAYLOAD_CHARS", "lots")
    with pytest.raises(ConfigurationError, match="HARNESS_TRACE_MAX_PAYLOAD_CHARS"):
        from_otel_spans([])
    with pytest.raises(ConfigurationError, match="trace mode 'verbose' is not valid"):
        from_otel_spans([], mode="verbose")  # type: ignore[arg-type]


def _pydantic_ai_model(provider: str, client: Any) -> Any:
    if provider == "openai":
        from pydantic_ai.models.openai import OpenAIChatModel
        from pydantic_ai.providers.openai import OpenAIProvider

        return OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(openai_client=client))
    from pydantic_ai.models.anthropic import AnthropicModel
    from pydantic_ai.providers.anthropic import AnthropicProvider

    return AnthropicModel("claude-sonnet-4-6", provider=AnthropicProvider(anthropic_client=client))


def _client(provider: str, url: str) -> Any:
    if provider == "openai":
        return AsyncOpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0)
    return AsyncAnthropic(base_url=url, api_key=KEY, max_retries=0)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_pydantic_ai_spans_and_its_traffic_tell_the_same_run(
    spans: Any, tmp_path: Path, provider: str
) -> None:
    settings, exporter = spans
    cassette = tmp_path / "cassette.yaml"

    async def run(url: str) -> str:
        async with _client(provider, url) as client:
            agent = Agent(_pydantic_ai_model(provider, client), name="reader", tools=[read_file])
            agent.instrument = settings
            return (await agent.run("What is the marker in notes.txt?")).output

    with SimulatorServer(SCRIPT) as sim, use_cassette(cassette, record_mode="once"):
        assert SENTINEL in asyncio.run(run(sim.url))
    framework = _valid(from_otel_spans(_finished(exporter)))
    traffic = trace_from_cassette(cassette)
    assert_trace_shape(framework, ONE_TOOL)
    assert outline_text(traffic.root) == outline_text(framework.root)
    keys = ("tool_call_id", "argument_hash", "observation_hash", "observation_chars")
    ours, theirs = traffic.one("tool.call"), framework.one("tool.call")
    assert {k: ours.attributes[k] for k in keys} == {k: theirs.attributes[k] for k in keys}
    for a, b in zip(traffic.find_all("llm.call"), framework.find_all("llm.call"), strict=True):
        assert (a.attributes["input_tokens"], a.attributes["output_tokens"]) == (
            b.attributes["input_tokens"],
            b.attributes["output_tokens"],
        )
        assert [c["id"] for c in a.attributes["tool_calls"]] == [
            c["id"] for c in b.attributes["tool_calls"]
        ]


# -- the OpenAI Agents SDK -----------------------------------------------------------


@pytest.fixture
def processor() -> Iterator[Any]:
    """The only trace processor for the test (no export to OpenAI), removed after it."""
    collected = AgentsTraceProcessor()
    sdk_tracing.set_trace_processors([collected])
    yield collected
    sdk_tracing.set_trace_processors([])


def _sdk_run(url: str, build: Callable[[Any], Any], *prompts: str) -> list[Any]:
    """Run the agent ``build`` makes on the simulator, once per prompt, in one event loop."""

    async def run() -> list[Any]:
        async with AsyncOpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0) as client:
            model = sdk.OpenAIChatCompletionsModel(model="gpt-4.1-mini", openai_client=client)
            agent = build(model)
            return [(await sdk.Runner.run(agent, prompt)).final_output for prompt in prompts]

    return asyncio.run(run())


def test_an_agents_sdk_run_and_its_traffic_tell_the_same_run(
    processor: Any, tmp_path: Path
) -> None:
    cassette = tmp_path / "cassette.yaml"
    with SimulatorServer(SCRIPT) as sim, use_cassette(cassette, record_mode="once"):
        (answer,) = _sdk_run(
            sim.url,
            lambda model: SdkAgent(
                name="reader",
                instructions="Answer from the files.",
                tools=[sdk.function_tool(read_file)],
                model=model,
            ),
            "What is the marker in notes.txt?",
        )
    assert SENTINEL in answer
    framework = _valid(processor.tree())
    assert_trace_shape(framework, ONE_TOOL)
    assert framework.root.attributes["workflow_name"] == "Agent workflow"
    assert {s.attributes["agent_name"] for s in framework.find_all("agent.step")} == {"reader"}
    traffic = trace_from_cassette(cassette)
    assert outline_text(traffic.root) == outline_text(framework.root)
    keys = ("tool_call_id", "argument_hash", "observation_hash")
    ours, theirs = traffic.one("tool.call"), framework.one("tool.call")
    assert {k: ours.attributes[k] for k in keys} == {k: theirs.attributes[k] for k in keys}
    tokens = [c.attributes["input_tokens"] for c in framework.find_all("llm.call")]
    assert tokens == [c.attributes["input_tokens"] for c in traffic.find_all("llm.call")]


def test_handoffs_guardrails_and_agents_as_tools_keep_their_own_spans(
    processor: Any,
) -> None:
    script = {
        "version": 1,
        "turns": [
            {"tool_calls": [{"name": "transfer_to_writer", "arguments": {}}]},
            {"tool_calls": [{"name": "ask_reader", "arguments": {"input": "read notes"}}]},
            SENTINEL,
            "done",
        ],
    }

    @sdk.input_guardrail
    def polite(context: Any, agent: Any, prompt: Any) -> Any:
        return sdk.GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)

    def build(model: Any) -> Any:
        reader = SdkAgent(name="reader", instructions="Read.", model=model)
        ask = reader.as_tool(tool_name="ask_reader", tool_description="Ask the reader.")
        writer = SdkAgent(name="writer", instructions="Write.", model=model, tools=[ask])
        return SdkAgent(
            name="triage", instructions="Triage.", model=model, handoffs=[writer],
            input_guardrails=[polite],
        )  # fmt: skip

    with SimulatorServer(script) as sim:
        _sdk_run(sim.url, build, "go")
    tree = _valid(processor.tree())
    assert_trace_shape(
        tree,
        """
        agent.run
          agent.step [agent_name=triage]
            guardrail polite [triggered=false]
            llm.call
            handoff writer
          agent.step [agent_name=writer]
            llm.call
            tool.call ask_reader
              subagent.run [agent_name=reader]
                llm.call
          agent.step [agent_name=writer]
            llm.call
        """,
    )
    handoff = tree.one("handoff")
    assert handoff.attributes == {"from_agent": "triage", "to_agent": "writer"}
    assert tree.one("tool.call").attributes["tool_call_index"] == 0


def test_the_processor_keeps_each_run_apart(processor: Any) -> None:
    with pytest.raises(TraceUsageError, match="no trace was collected"):
        processor.tree()
    script = {"version": 1, "turns": ["one", "two"]}
    with SimulatorServer(script) as sim:
        answers = _sdk_run(
            sim.url,
            lambda model: SdkAgent(name="plain", instructions="Answer.", model=model),
            "first",
            "second",
        )
    assert answers == ["one", "two"]
    trees = processor.trees()
    assert [outline_text(t.root) for t in trees] == ["agent.run\n  agent.step\n    llm.call"] * 2
    assert len({t.trace_id for t in trees}) == 2
    with pytest.raises(TraceUsageError, match="2 traces were collected"):
        processor.tree()
    processor.clear()
    assert processor.trees() == []


@pytest.mark.deep
def test_importing_the_toolkit_imports_no_framework() -> None:
    heavy = ("agents", "opentelemetry", "pydantic_ai", "openai", "anthropic", "vcr")
    code = (
        "import json, sys\n"
        "import harness.testing, harness.testing.adapters\n"
        "from harness.testing import trace_from_cassette\n"
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert json.loads(done.stdout) == []
