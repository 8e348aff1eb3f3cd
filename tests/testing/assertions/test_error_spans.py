"""A tool that raised cannot pass a shape test: error spans must be marked ``!error``."""

from __future__ import annotations

import pytest

from harness.core import TraceAssertionError
from harness.testing.assertions.trace_assertions import assert_trace_shape, parse_outline
from harness.tracing import Tracer, TraceTree

# The README's old contract, ``run(tool_input) -> str``, read as "tool_input is the
# arguments": this tool crashes with TypeError on every call.
CRASHING = """
import pytest

from harness.providers import tool_call
from harness.testing import assert_trace_shape

OUTLINE = '''
agent.run
  agent.step
    llm.call
    tool.call lookup{mark}
  agent.step
    llm.call
'''


class Lookup:
    name = "lookup"
    description = "Look a key up."
    parameters = {{"type": "object", "properties": {{"key": {{"type": "string"}}}}}}

    def run(self, tool_input):
        return tool_input["key"].upper()


@pytest.fixture
def run(make_harness_app, scripted_provider, trace):
    scripted_provider.add(tool_call("lookup", key="a"), "done")
    app = make_harness_app(tools=[Lookup()], enabled_tools=("lookup",))
    return app.run("look a up")


def test_it_stops_final(run):
    assert run.stop_reason == "final"


def test_exact_shape(run, trace):
    assert_trace_shape(trace, OUTLINE)


def test_subset_shape(run, trace):
    assert_trace_shape(trace, "agent.run\\n  llm.call", match="subset")


def test_gap_shape(run, trace):
    assert_trace_shape(trace, "agent.run\\n  ...", match="exact")


def test_one_span_is_ok(run, trace):
    assert trace.one(kind="tool.call", name="lookup").ok
"""


@pytest.mark.deep
def test_a_crashing_tool_fails_every_shape_test_that_does_not_mark_it(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_crash=CRASHING.format(mark=""))
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(passed=1, failed=4)
    out = result.stdout.str()
    assert "expected 'tool.call lookup', got 'tool.call lookup !error'" in out
    assert "the trace has 1 error span(s) and the outline marks 0" in out
    assert "status='error', error_type='TypeError'" in out


def test_a_marked_error_span_passes_the_exact_shape(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_crash=CRASHING.format(mark=" !error"))
    result = pytester.runpytest("-p", "no:randomly", "-k", "exact")
    result.assert_outcomes(passed=1, deselected=4)


@pytest.fixture
def tree() -> TraceTree:
    tracer = Tracer()
    root = tracer.begin_trace("agent.run")
    with tracer.span("tool.call", "read"):
        pass
    failed = tracer.begin_span("tool.call", "write")
    tracer.end_span(failed, status="error")
    done = tracer.end_trace(root)
    assert done is not None
    return done


def test_a_mark_on_a_span_that_worked_fails(tree: TraceTree) -> None:
    with pytest.raises(TraceAssertionError, match=r"expected 'tool\.call read !error'"):
        assert_trace_shape(tree, "agent.run\n  tool.call read !error\n  tool.call write !error")
    assert_trace_shape(tree, "agent.run\n  tool.call read\n  tool.call write !error")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("agent.run\n  tool.call read !eror", "has '!eror'; the only mark is '!error'"),
        ("agent.run\n  tool.call !error read", "has '!error'; the only mark is '!error'"),
        ("agent.run\n  ... !error", "marks '...' !error"),
    ],
)
def test_a_misplaced_or_unknown_mark_is_an_outline_error(text: str, message: str) -> None:
    with pytest.raises(TraceAssertionError, match=message):
        parse_outline(text)


def test_a_marked_line_round_trips(tree: TraceTree) -> None:
    outline = parse_outline("agent.run\n  tool.call write [n=1] !error")
    (child,) = outline.children
    assert child.error and child.attributes == (("n", "1"),)
    assert outline.to_text() == "agent.run\n  tool.call write [n=1] !error"
    assert tree.one("tool.call", "write").ok is False
    assert tree.one("tool.call", "read").ok is True
