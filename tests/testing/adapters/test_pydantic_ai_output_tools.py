"""pydantic-ai's output tools through the real framework: the answer, never a tool call.

pydantic-ai asks for a structured answer with an output tool (``final_result``,
or a ``ToolOutput(name=...)`` of the user's naming). Its OpenTelemetry spans
(``from_otel_spans``) and its traffic (the traffic trace, the row's tool count,
``tool_calls()``) must all count the tool the agent ran and not the answer.
Real agents run: on pydantic-ai's ``FunctionModel`` with instrumentation on,
and over HTTP against the simulator on 127.0.0.1 under a cassette.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from harness.recording import read_cassette, use_cassette
from harness.simulator import SimulatorServer
from harness.testing import trace_from_cassette
from harness.testing.adapters import from_otel_spans
from harness.testing.cassettes.tool_calls import tool_calls_from_exchanges
from harness.testing.rows.traffic_rows import summarize_traffic
from harness.traffic import exchanges_from_cassette

pytestmark = pytest.mark.xdist_group("agent-frameworks")  # one worker pays the import

if not all(importlib.util.find_spec(name) for name in ("pydantic_ai", "opentelemetry.sdk")):
    pytest.skip("needs pydantic-ai-slim[openai] and opentelemetry-sdk", allow_module_level=True)

SENTINEL = "RC-OUTPUT-7Q4Z"
KEY = "sk-test-simulator0000"


class Code(BaseModel):
    code: str


class Documented(BaseModel):
    """The release code found in the notes."""

    code: str


def read_file(path: str) -> str:
    """Read a file of the workspace."""
    return f"{path}: the code is {SENTINEL}"


@pytest.fixture
def instrumented() -> Iterator[tuple[Any, Any]]:
    """pydantic-ai's instrumentation settings and the exporter that keeps its spans."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    from pydantic_ai.models.instrumented import InstrumentationSettings

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield InstrumentationSettings(tracer_provider=provider), exporter
    provider.shutdown()


def _output(kind: type[BaseModel], name: str | None) -> Any:
    from pydantic_ai import ToolOutput

    return kind if name is None else ToolOutput(kind, name=name)


def _function_model() -> Any:
    """A model that reads notes.txt, then answers through the output tool it was offered."""
    from pydantic_ai.messages import ModelResponse, ToolCallPart
    from pydantic_ai.models.function import FunctionModel

    def answer(messages: list[Any], info: Any) -> Any:
        if len(messages) == 1:
            return ModelResponse(parts=[ToolCallPart("read_file", {"path": "notes.txt"}, "c1")])
        (output,) = info.output_tools
        return ModelResponse(parts=[ToolCallPart(output.name, {"code": SENTINEL}, "c2")])

    return FunctionModel(answer)


@pytest.mark.parametrize(
    ("kind", "name"),
    [(Code, None), (Code, "release_code"), (Documented, "release_code")],
    ids=["final_result", "named", "named-documented"],
)
def test_the_otel_adapter_reports_the_output_tool_as_the_answer(
    instrumented: tuple[Any, Any], kind: type[BaseModel], name: str | None
) -> None:
    from pydantic_ai import Agent

    settings, exporter = instrumented
    agent = Agent(
        _function_model(), name="reader", tools=[read_file], output_type=_output(kind, name)
    )
    agent.instrument = settings
    assert asyncio.run(agent.run("What is the release code?")).output.code == SENTINEL
    tree = from_otel_spans(exporter.get_finished_spans(), mode="replay")
    first, last = tree.find_all("llm.call")
    assert (first.attributes["tool_call_count"], last.attributes["tool_call_count"]) == (1, 0)
    assert last.attributes["output_tool"] == (name or "final_result")
    assert last.attributes["tool_calls"][0]["output"] is True
    assert last.attributes["payload"]["output"] == {"code": SENTINEL}
    assert [span.name for span in tree.find_all("tool.call")] == ["read_file"]
    assert tree.root.attributes["tool_calls"] == 1


def _recorded(tmp_path: Path, kind: type[BaseModel], name: str | None) -> Path:
    """A cassette of the agent asking the simulator: read_file, then the output tool."""
    from openai import AsyncOpenAI
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    script = {
        "version": 1,
        "turns": [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
            {"tool_calls": [{"name": name or "final_result", "arguments": {"code": SENTINEL}}]},
        ],
    }
    cassette = tmp_path / "cassette.yaml"

    async def run(url: str) -> Any:
        async with AsyncOpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0) as client:
            model = OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(openai_client=client))
            agent = Agent(model, tools=[read_file], output_type=_output(kind, name))
            return (await agent.run("What is the release code?")).output

    with SimulatorServer(script) as sim, use_cassette(cassette, record_mode="once"):
        assert asyncio.run(run(sim.url)).code == SENTINEL
    return cassette


class _Request:
    def __init__(self, request: dict[str, Any]) -> None:
        self.method, self.uri, self.body = request["method"], request["uri"], request["body"]


@pytest.mark.parametrize("name", [None, "release_code"], ids=["final_result", "named"])
def test_the_traffic_reports_a_named_output_tool_as_the_answer(
    tmp_path: Path, name: str | None
) -> None:
    cassette = _recorded(tmp_path, Code, name)
    tree = trace_from_cassette(cassette, mode="replay")
    last = tree.find_all("llm.call")[-1]
    assert last.attributes["output_tool"] == (name or "final_result")
    assert last.attributes["tool_call_count"] == 0
    assert tree.root.attributes["tool_calls"] == 1
    assert SENTINEL in tree.root.attributes["payload"]["answer"]
    exchanges = exchanges_from_cassette(cassette)
    assert [call.name for call in tool_calls_from_exchanges(exchanges)] == ["read_file"]
    interactions = read_cassette(cassette).interactions
    assert summarize_traffic([(_Request(q), r) for q, r in interactions]).tool_calls == 1


def test_a_named_output_tool_with_a_docstring_is_not_told_apart_on_the_wire(
    tmp_path: Path,
) -> None:
    # Its description is the type's docstring: nothing in the request marks it, so the
    # traffic counts it as a tool call (documented); pydantic-ai's spans know it (above).
    tree = trace_from_cassette(_recorded(tmp_path, Documented, "release_code"))
    assert "output_tool" not in tree.find_all("llm.call")[-1].attributes
