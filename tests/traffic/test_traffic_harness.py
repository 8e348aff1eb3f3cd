"""The traffic trace of harness's own recorded evals against the trace harness itself wrote.

The committed cassettes under ``cassettes/`` were recorded by harness's runtime;
replaying one through harness gives the trace the runtime writes, and reading
the same file as traffic must give the same run: the same outline, and model
call for model call, tool call for tool call, the same ids, hashes and counts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.app import Application
from harness.testing import assert_trace_shape, trace_from_cassette
from harness.testing.cassettes.recorded import DEFAULT_MODELS, recorded_provider
from harness.testing.rows.workspace import Workspace
from harness.tracing import TraceSpan, TraceTree, outline_text

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "cassettes"
SHAPES = ROOT / "evals" / "shapes"

EDIT = (
    "Make greet() in greeting.py return the greeting stored in greeting.txt, as a plain "
    "string literal. Read both files first, then edit greeting.py; change only the "
    "return line."
)
SUBAGENT = (
    "Use the explore tool to find the release marker in README.md, the architecture "
    "marker in notes/architecture.txt and the shard markers in notes/inventory.txt, "
    "then tell me every marker exactly."
)
# (eval, fixture, tools, prompt, session, max_steps), as the eval files run them
RUNS = {
    "test_edit_flow": ("edit", ("read", "edit"), EDIT, "eval-edit", 6),
    "test_subagent_flow": ("subagent", ("explore",), SUBAGENT, "eval-subagent", 4),
}
LLM_KEYS = ("model", "input_tokens", "output_tokens", "cached_input_tokens", "stop_reason")
TOOL_KEYS = (
    "tool_call_id",
    "tool_name",
    "tool_call_index",
    "argument_hash",
    "argument_keys",
    "argument_chars",
    "observation_hash",
    "observation_chars",
)


def _cassette(provider: str, test: str, stream: bool) -> Path:
    name = test + ("-stream" if stream else "")
    return CASSETTES / provider / DEFAULT_MODELS[provider] / "evals" / test / f"{name}.yaml"


def _calls(tree: TraceTree) -> list[TraceSpan]:
    return [s for s in tree.walk() if s.kind in ("llm.call", "tool.call")]


# Each eval on both providers and both wire forms, without running all eight pairs.
PAIRS = [
    ("test_edit_flow", "openai", False),
    ("test_edit_flow", "anthropic", True),
    ("test_subagent_flow", "openai", True),
    ("test_subagent_flow", "anthropic", False),
]


@pytest.mark.parametrize(
    ("test", "provider", "stream"),
    [p if p[0] == "test_edit_flow" else pytest.param(*p, marks=pytest.mark.deep) for p in PAIRS],
    ids=[f"{t}-{p}-{'sse' if s else 'json'}" for t, p, s in PAIRS],
)
def test_traffic_trace_equals_the_trace_harness_wrote(
    test: str,
    provider: str,
    stream: bool,
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
) -> None:
    fixture, tools, prompt, session, max_steps = RUNS[test]
    cassette = _cassette(provider, test, stream)
    workspace.copy_fixture(fixture)
    model = DEFAULT_MODELS[provider]
    with recorded_provider(provider, model=model, cassette=cassette, stream=stream) as recorded:
        app = make_harness_app(provider=recorded.provider, enabled_tools=tools)
        result = app.run(prompt, session=session, max_steps=max_steps)
    assert result.trace_path is not None
    own = TraceTree.load(result.trace_path)
    traffic = trace_from_cassette(cassette)

    assert outline_text(traffic.root) == outline_text(own.root)
    pairs = list(zip(_calls(traffic), _calls(own), strict=True))
    for ours, theirs in pairs:
        keys = LLM_KEYS if ours.kind == "llm.call" else TOOL_KEYS
        got = {k: ours.attributes.get(k) for k in keys}
        assert got == {k: theirs.attributes.get(k) for k in keys}, ours.label
    for key in ("prompt_hash", "answer_hash", "steps", "tool_calls", "input_tokens"):
        assert traffic.root.attributes[key] == own.root.attributes[key], key


def _shape_cases() -> list[Any]:
    cases = []
    for path in sorted(CASSETTES.glob("*/*/evals/*/*.yaml")):
        provider, model = path.relative_to(CASSETTES).parts[:2]
        shape = SHAPES / provider / model / (path.stem.removesuffix("-stream") + ".txt")
        if shape.exists():
            cases.append(pytest.param(path, shape, id=path.relative_to(CASSETTES).as_posix()))
    return cases


@pytest.mark.parametrize(("cassette", "shape"), _shape_cases())
def test_every_recorded_eval_has_its_golden_shape_as_traffic(cassette: Path, shape: Path) -> None:
    expected = shape.read_text("utf-8")
    if cassette.parent.name == "test_max_steps":
        # The run stops after its last tool call ran: no request ever carried that
        # result, so the traffic cannot show it. Everything before it is the same.
        expected = expected.rstrip("\n").rsplit("\n", 1)[0]
    if cassette.relative_to(CASSETTES).parts[0] not in ("anthropic", "gemini"):
        # Only Messages (``is_error``) and Gemini (a functionResponse of ``{"error": ...}``)
        # flag a tool result as an error on the wire; OpenAI's tool messages and
        # function_call_outputs carry no such flag.
        expected = expected.replace(" !error", "")
    assert_trace_shape(trace_from_cassette(cassette), expected)


@pytest.mark.deep
def test_every_committed_cassette_reads_as_traffic() -> None:
    files = sorted(CASSETTES.rglob("*.yaml"))
    assert len(files) > 100
    for path in files:
        tree = trace_from_cassette(path)
        provider = path.relative_to(CASSETTES).parts[0]
        calls = tree.find_all("llm.call")
        assert calls, path
        assert {c.attributes["provider"] for c in calls} == {provider}, path
        assert all(c.status == "ok" for c in calls), path
