"""Mutants: the operators, the positional provider, and reading a cassette's responses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import ProviderError
from harness.core.messages import LLMRequest, LLMResponse, Message, Role, ToolCall, Usage
from harness.evals import (
    MutantExhaustedError,
    PositionalProvider,
    cassette_mutants,
    derive_mutants,
)
from harness.evals.mutations import REFUSAL, Recorded
from harness.evals.recorded_responses import read_recorded_responses
from harness.recording import use_cassette
from harness.simulator import SimulatorServer
from harness.wires.anthropic.provider import AnthropicProvider
from harness.wires.openai.provider import OpenAIProvider

REQUEST = LLMRequest(messages=(Message(role=Role.USER, content="go"),))
SENTINEL = "SENTINEL-README-ORBIT-4417"


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=f"call_{name}_{len(arguments)}", name=name, arguments=arguments)


EDIT_FLOW: tuple[Recorded, ...] = (
    LLMResponse(tool_calls=(_call("read", path="greeting.py"),)),
    LLMResponse(tool_calls=(_call("edit", path="greeting.py", old_text="a", new_text="b2"),)),
    LLMResponse(text=f"Done: {SENTINEL}."),
)


def test_every_operator_applies_to_a_recorded_flow_with_readable_ids() -> None:
    parallel = LLMResponse(tool_calls=(_call("read", path="a.txt"), _call("read", path="b/c.txt")))
    recorded = (*EDIT_FLOW[:2], parallel, EDIT_FLOW[2])
    mutants = {m.id: m for m in derive_mutants(recorded)}
    assert sorted({m.operator for m in mutants.values()}) == [
        "alter_marker",
        "corrupt_arg",
        "corrupt_content",
        "drop_call",
        "drop_marker",
        "refuse",
        "repeat_call",
        "stop_early",
        "swap_calls",
        "swap_turns",
    ]
    read_dropped = mutants["drop_call.1"].responses
    assert read_dropped == recorded[1:]  # the read's response is gone, nothing else moved
    swapped = mutants["swap_calls.1"].responses[2]
    assert isinstance(swapped, LLMResponse)
    assert [c.arguments["path"] for c in swapped.tool_calls] == ["b/c.txt", "a.txt"]
    corrupted = mutants["corrupt_arg.4"].responses[2]
    assert isinstance(corrupted, LLMResponse)
    assert corrupted.tool_calls[1].arguments == {"path": "b/mutant-c.txt"}
    content = mutants["corrupt_content.1"].responses[1]
    assert isinstance(content, LLMResponse) and content.tool_calls[0].arguments["new_text"] == "c3"
    final = mutants["drop_marker.1"].responses[-1]
    assert isinstance(final, LLMResponse) and final.text == "Done: ."
    altered = mutants["alter_marker.1"].responses[-1]
    assert isinstance(altered, LLMResponse) and altered.text == "Done: SENTINEL-README-ORBIT-5528."
    refused = mutants["refuse.1"].responses[-1]
    assert isinstance(refused, LLMResponse) and refused.text == REFUSAL
    assert mutants["stop_early.1"].responses == (recorded[-1],)
    repeated = mutants["repeat_call.1"].responses[0]
    assert isinstance(repeated, LLMResponse)
    assert [c.name for c in repeated.tool_calls] == ["read", "read"]
    assert len({c.id for c in repeated.tool_calls}) == 2
    assert all("-" not in mutant_id for mutant_id in mutants)  # node ids split on "-"


def test_identical_calls_are_not_swapped_and_a_text_only_run_has_few_mutants() -> None:
    twin = _call("read", path="a.txt")
    assert not [
        m for m in derive_mutants((LLMResponse(tool_calls=(twin, twin)),)) if "swap" in m.id
    ]
    only_text = derive_mutants((LLMResponse(text="hello"),))
    assert [m.id for m in only_text] == ["refuse.1"]


_names = st.sampled_from(["read", "edit", "write", "bash", "explore"])
_args = st.dictionaries(
    st.sampled_from(["path", "content", "command", "limit", "flag"]),
    st.one_of(st.text(max_size=12), st.integers(-5, 5), st.booleans()),
    max_size=3,
)
_calls = st.lists(st.builds(ToolCall, name=_names, arguments=_args), min_size=1, max_size=3)
_responses = st.one_of(
    st.builds(LLMResponse, tool_calls=_calls.map(tuple)),
    st.builds(LLMResponse, text=st.text(min_size=1, max_size=40)),
    st.just(ProviderError("recorded 500", status_code=500)),
)


@pytest.mark.deep
@given(st.lists(_responses, max_size=6).map(tuple))
def test_mutants_are_deterministic_distinct_and_never_the_original(
    recorded: tuple[Recorded, ...],
) -> None:
    mutants = derive_mutants(recorded)
    again = derive_mutants(recorded)
    assert [(m.id, m.responses) for m in mutants] == [(m.id, m.responses) for m in again]
    assert len({m.id for m in mutants}) == len(mutants)
    for mutant in mutants:
        assert mutant.responses != recorded, mutant.id
        assert mutant.operator == mutant.id.partition(".")[0]
        assert "-" not in mutant.id and mutant.description
        # A recorded provider error stays where the model sent nothing else to change.
        errors = [r for r in recorded if isinstance(r, ProviderError)]
        assert all(e in mutant.responses for e in errors) or mutant.operator == "stop_early"


def test_the_positional_provider_serves_in_order_whatever_is_asked() -> None:
    error = ProviderError("recorded overload", status_code=529, provider="anthropic")
    served = PositionalProvider("anthropic", "m", (EDIT_FLOW[0], error, EDIT_FLOW[2]))
    other = LLMRequest(messages=(Message(role=Role.USER, content="something else"),))
    assert served.complete(other) == EDIT_FLOW[0]
    with pytest.raises(ProviderError, match="recorded overload") as raised:
        served.complete(REQUEST)
    assert raised.value.status_code == 529 and not served.exhausted
    assert served.complete(REQUEST) == EDIT_FLOW[2]
    with pytest.raises(
        MutantExhaustedError, match="asked for model response 4, the mutant holds 3"
    ):
        served.complete(REQUEST)
    assert (served.served, served.available, served.exhausted) == (3, 3, True)


SCRIPT: dict[str, Any] = {
    "version": 1,
    "turns": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        f"The marker is {SENTINEL}.",
    ],
}


def _provider(name: str, url: str, stream: bool) -> OpenAIProvider | AnthropicProvider:
    if name == "openai":
        return OpenAIProvider("gpt-4.1-mini", api_key="sk-sim", base_url=f"{url}/v1", stream=stream)
    return AnthropicProvider("claude-sonnet-4-6", api_key="sk-sim", base_url=url, stream=stream)


@pytest.mark.parametrize("gzip", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_recorded_responses_parse_exactly_as_the_provider_returned_them(
    tmp_path: Path, name: str, stream: bool, gzip: bool
) -> None:
    server = SimulatorServer(SCRIPT, gzip=gzip)
    server.start()
    cassette = tmp_path / "flow.yaml"
    try:
        with use_cassette(cassette, record_mode="once"):
            provider = _provider(name, server.url, stream)
            live = [provider.complete(REQUEST), provider.complete(REQUEST)]
            provider.close()
    finally:
        server.stop()
    decoded = read_recorded_responses(cassette, name)
    assert decoded == tuple(live)
    assert isinstance(decoded[0], LLMResponse) and decoded[0].tool_calls[0].name == "read"
    assert decoded[0].usage != Usage()
    mutants = cassette_mutants(cassette, name)
    assert mutants[0].id == "original" and mutants[0].responses == decoded
    assert {"drop_call.1", "alter_marker.1", "refuse.1", "stop_early.1"} <= {m.id for m in mutants}


def test_merging_shard_reports_keeps_their_mutants(tmp_path: Path) -> None:
    from harness.core.errors import ConfigurationError
    from harness.evals import EvalReport, MutantOutcome, MutantResult, merge_reports

    def shard(name: str, *mutants: str) -> Path:
        results = tuple(
            MutantResult(
                eval_nodeid="evals/test_x.py::test_x[openai]",
                scenario="x",
                provider="openai",
                model="m",
                mutant=mutant,
                operator=mutant.partition(".")[0],
                outcome=MutantOutcome.KILLED,
            )
            for mutant in mutants
        )
        path = tmp_path / name
        EvalReport(mutants=results).write(path)
        return path

    merged = merge_reports(
        [shard("a.json", "original", "drop_call.1"), shard("b.json", "refuse.1")]
    )
    assert sorted(m.mutant for m in merged.mutants) == ["drop_call.1", "original", "refuse.1"]
    with pytest.raises(ConfigurationError, match=r"mutant refuse\.1 of evals/test_x\.py"):
        merge_reports([shard("c.json", "refuse.1"), shard("d.json", "refuse.1")])


def test_the_kill_table_lists_survivors_errors_and_exhaustion_only_kills() -> None:
    from harness.evals import EvalReport, MutantOutcome, MutantResult, render_mutants

    def result(nodeid: str, mutant: str, outcome: MutantOutcome, message: str = "") -> MutantResult:
        return MutantResult(
            eval_nodeid=nodeid,
            scenario=nodeid.rpartition("::")[2],
            provider="openai",
            model="m",
            source="simulator",
            mutant=mutant,
            operator=mutant.partition(".")[0],
            description=f"{mutant} described",
            outcome=outcome,
            message=message,
        )

    report = EvalReport(
        mutants=(
            result("t::short", "original", MutantOutcome.PASS),
            result("t::short", "drop_call.1", MutantOutcome.EXHAUSTED),
            result("t::short", "refuse.1", MutantOutcome.SURVIVED),
            result("t::short", "alter_marker.1", MutantOutcome.ERROR, "KeyError: 'x'\nmore"),
            result("t::weak", "original", MutantOutcome.PASS),
            result("t::weak", "refuse.1", MutantOutcome.SURVIVED),
        )
    )
    lines = render_mutants(report).splitlines()
    assert lines[0].split()[:4] == ["scenario", "provider/model", "source", "mutants"]
    assert lines[2].split() == [
        "short",
        "openai/m",
        "simulator",
        "3",
        "1",
        "1",
        "1",
        "1",
        "33%",
        "WEAK",  # below --min-kill-rate's default 0.5
    ]
    assert lines[3].startswith("  note: all 1 kill(s) came from running out of responses")
    assert lines[4] == "  survived: refuse.1 (refuse.1 described)"
    assert lines[5] == "  error: alter_marker.1 (alter_marker.1 described): KeyError: 'x'"
    assert lines[6].split()[-3:] == ["0%", "CANNOT", "FAIL"]
    assert lines[8].startswith(
        "2 eval(s), 4 mutant(s): 1 killed (1 exhausted), 2 survived, 1 error(s)"
    )
