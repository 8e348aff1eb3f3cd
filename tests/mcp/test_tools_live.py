"""``--harness-tools live``: the real tools against a replayed model, a named divergence.

Recorded once against the simulator (an MCP tool over stdio and the builtin
``read``), then replayed with the tools live: unchanged, the tests pass; with the
server's answer or the workspace file changed, each fails with a report that
opens with the tool, its arguments and the recorded against the live result.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.messages import LLMRequest, Message, ToolCall
from harness.simulator import SimulatorServer
from harness.testing.cassettes.tool_calls import RecordedToolCall
from harness.testing.plugin.tools_live import first_divergence
from tests.mcp.servers import new_tag, processes_with, stdio_config

pytest.importorskip("mcp")

SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {"when": {"has_tool_results": True}, "reply": "done"},
        {
            "when": {"last_user_contains": "echo"},
            "reply": {"tool_calls": [{"name": "t__echo", "arguments": {"text": "hi"}}]},
        },
        {
            "when": {"last_user_contains": "file"},
            "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        },
    ],
}

TEST = """
import pytest

SERVERS = {servers}


@pytest.mark.parametrize("provider_name", ["openai"])
def test_echo(make_harness_app):
    app = make_harness_app(mcp_servers=SERVERS)
    assert app.run("echo hi", session="s").text == "done"


@pytest.mark.parametrize("provider_name", ["openai"])
def test_swallowed(make_harness_app):
    app = make_harness_app(mcp_servers=SERVERS)
    app.run("echo hi", session="s")  # a changed tool ends it in a miss; it asserts nothing


@pytest.mark.parametrize("provider_name", ["openai"])
def test_file(harness_app, workspace):
    workspace.write("a.txt", {content!r})
    assert harness_app.run("what does the file say?", session="s").text == "done"
"""


def _write(pytester: pytest.Pytester, tag: str, content: str) -> None:
    # The server's marker comes from the environment, so a test can change its answer.
    config = stdio_config(tag, approval="never", env={"TEST_MARKER": "${LIVE_TEST_MARKER}"})
    servers = json.dumps(config)
    pytester.makepyfile(test_tools_live_agent=TEST.format(servers=servers, content=content))


@pytest.fixture
def recorded(
    pytester: pytest.Pytester, sim_server: Any, monkeypatch: pytest.MonkeyPatch
) -> tuple[pytest.Pytester, str]:
    tag = new_tag()
    monkeypatch.setenv("LIVE_TEST_MARKER", "recorded")
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    _write(pytester, tag, "alpha")
    pytester.runpytest("--record-mode", "once", "--harness-base-url", server.url).assert_outcomes(
        passed=3
    )
    server.stop()
    return pytester, tag


@pytest.mark.deep
def test_unchanged_tools_replay_live_and_pass(recorded: tuple[pytest.Pytester, str]) -> None:
    pytester, tag = recorded
    result = pytester.runpytest("--harness-tools", "live")
    result.assert_outcomes(passed=3)
    assert processes_with(tag) == [], "the live server is stopped with the app"


@pytest.mark.deep
def test_a_changed_mcp_server_fails_with_the_named_divergence(
    recorded: tuple[pytest.Pytester, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester, _ = recorded
    monkeypatch.setenv("LIVE_TEST_MARKER", "changed")
    replayed = pytester.runpytest("-k", "test_echo")
    replayed.assert_outcomes(passed=1)  # replay mode: the cassette answers, not the server
    result = pytester.runpytest("-k", "test_echo", "--harness-tools", "live")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    first = out.index("ToolDivergence: MCP server 't', tool 'echo' answered differently")
    assert '  arguments: {"text": "hi"}' in out
    assert "  recorded:  'recorded: hi'" in out
    assert "  live:      'changed: hi'" in out
    assert "    -recorded: hi" in out and "    +changed: hi" in out
    # The miss the changed result caused comes after, as its consequence; once.
    assert out.index("what followed from it") > first
    assert "1 failed" in out and "error" not in out.rpartition("short test summary")[2]


@pytest.mark.deep
def test_a_test_that_swallows_the_miss_still_fails_once_on_the_divergence(
    recorded: tuple[pytest.Pytester, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester, _ = recorded
    monkeypatch.setenv("LIVE_TEST_MARKER", "changed")
    result = pytester.runpytest("-k", "test_swallowed", "--harness-tools", "live")
    result.assert_outcomes(failed=1)  # no second report (a teardown error) for the miss
    out = result.stdout.str()
    assert "ToolDivergence: MCP server 't', tool 'echo'" in out


@pytest.mark.deep
def test_a_changed_workspace_file_fails_with_the_named_divergence(
    recorded: tuple[pytest.Pytester, str],
) -> None:
    pytester, tag = recorded
    _write(pytester, tag, "beta")
    result = pytester.runpytest("-k", "test_file", "--harness-tools", "live")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "ToolDivergence: builtin tool 'read' answered differently" in out
    assert '  arguments: {"path": "a.txt"}' in out
    assert "alpha" in out and "beta" in out


@pytest.mark.parametrize(
    ("other", "says"),
    [
        (("--record-mode", "once"), "--harness-tools live replays the model"),
        (("--harness-mutants",), "a mutant's answers are not the recording"),
    ],
)
def test_live_tools_with_a_recording_or_mutants_is_a_usage_error(
    pytester: pytest.Pytester, other: tuple[str, ...], says: str
) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest("--harness-tools", "live", *other)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert says in result.stderr.str()


def _request(*messages: Message) -> LLMRequest:
    return LLMRequest(messages=messages)


def test_the_first_result_unlike_its_recorded_call_of_the_same_id_is_named() -> None:
    call = ToolCall(id="call_1", name="t__echo", arguments={"text": "hi"})
    other = ToolCall(id="call_2", name="read", arguments={"path": "a"})
    recorded = [
        RecordedToolCall("t__echo", {"text": "hi"}, "same", "call_1"),
        RecordedToolCall("read", {"path": "a"}, "old", "call_2"),
        RecordedToolCall("read", {"path": "a"}, None, "call_3"),  # never answered
    ]
    first = _request(Message.user("go"))
    second = _request(
        Message.user("go"),
        Message.assistant(tool_calls=(call, other)),
        Message.tool("call_1", "same"),
        Message.tool("call_2", "new"),
    )
    found = first_divergence(recorded, [first, second], {"t__echo": ("t", "echo")})
    assert found is not None
    assert (found.tool, found.server, found.server_tool) == ("read", None, "read")
    assert (found.recorded, found.live) == ("old", "new")
    assert first_divergence(recorded[:1], [second]) is None, "nothing recorded: no divergence"


@given(st.lists(st.text(max_size=20), min_size=1, max_size=6), st.data())
def test_only_a_changed_result_diverges_and_the_first_change_is_named(
    results: list[str], data: st.DataObject
) -> None:
    calls = tuple(
        ToolCall(id=f"call_{i}", name="read", arguments={"n": i}) for i in range(len(results))
    )
    recorded = [RecordedToolCall("read", {"n": i}, r, f"call_{i}") for i, r in enumerate(results)]

    def sent(answers: list[str]) -> list[LLMRequest]:
        tools = [Message.tool(f"call_{i}", a) for i, a in enumerate(answers)]
        return [_request(Message.user("go"), Message.assistant(tool_calls=calls), *tools)]

    assert first_divergence(recorded, sent(results)) is None
    changed = sorted(data.draw(st.sets(st.integers(0, len(results) - 1), min_size=1)))
    live = [r + "!" if i in changed else r for i, r in enumerate(results)]
    found = first_divergence(recorded, sent(live))
    assert found is not None
    assert found.arguments == {"n": changed[0]}
    assert (found.recorded, found.live) == (results[changed[0]], results[changed[0]] + "!")
