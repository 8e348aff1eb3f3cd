"""MCP servers' tools in harness's runtime, over real servers started by the tests.

A scripted provider calls the tools; the servers are the small MCPServer of
``server_app.py`` over stdio and over streamable HTTP on 127.0.0.1.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.core.errors import ConfigurationError
from harness.providers._scripted import ScriptedProvider, tool_call
from tests.mcp.servers import new_tag, processes_with, start_http_server, stdio_config

pytest.importorskip("mcp")


def _app(tmp_path: Path, provider: ScriptedProvider, servers: Any, **settings: Any) -> Application:
    options: dict[str, Any] = {
        "workdir": tmp_path,
        "state_dir": tmp_path / ".state",
        "trace_mode": "replay",
        **settings,
    }
    return build_application(Settings(**options), provider=provider, mcp_servers=servers)


def _tool_spans(trace_path: Path | None) -> list[dict[str, Any]]:
    assert trace_path is not None
    found: list[dict[str, Any]] = []

    def walk(span: dict[str, Any]) -> None:
        if span["kind"] == "tool.call":
            found.append(span)
        for child in span.get("children", []):
            walk(child)

    walk(json.loads(trace_path.read_text())["root"])
    return found


def _observations(provider: ScriptedProvider) -> list[str]:
    last = provider.requests[-1]
    return [str(m.content) for m in last.messages if m.role.value == "tool"]


def test_stdio_tools_are_listed_called_traced_and_the_server_stops_with_the_app(
    tmp_path: Path,
) -> None:
    tag = new_tag()
    provider = ScriptedProvider(
        [tool_call("t__add", a=2, b=3), tool_call("t__fail"), tool_call("t__echo", text="hi"), "ok"]
    )
    config = stdio_config(tag, approval="never", env={"TEST_MARKER": "marked"})
    with _app(tmp_path, provider, config) as app:
        assert processes_with(tag), "the server runs while the application does"
        definitions = {d.name for d in provider_definitions(app)}
        assert {"t__add", "t__echo", "t__fail"} <= definitions
        result = app.run("use the tools")
    assert result.text == "ok"
    assert _observations(provider) == [
        "5",
        "Error: MCP tool 't.fail' failed: Error executing tool fail: the widget is broken",
        "marked: hi",
    ]
    spans = _tool_spans(result.trace_path)
    assert [s["name"] for s in spans] == ["t.add", "t.fail", "t.echo"]
    first = spans[0]["attributes"]
    assert first["gen_ai.tool.name"] == "add"
    assert first["mcp.method.name"] == "tools/call"
    assert first["network.transport"] == "pipe"
    assert first["mcp.protocol.version"]
    assert spans[1]["status"] == "error"
    assert spans[1]["attributes"]["error.type"] == "tool_error"
    assert processes_with(tag) == [], "no server process outlives the application"


def provider_definitions(app: Application) -> Any:
    return app.registry.definitions()


@pytest.mark.deep
def test_streamable_http_tools_carry_the_session_id(tmp_path: Path) -> None:
    tag = new_tag()
    process, url = start_http_server(tag)
    try:
        provider = ScriptedProvider([tool_call("t__add", a=1, b=1), "ok"])
        servers = {"mcpServers": {"t": {"url": url, "approval": "never"}}}
        with _app(tmp_path, provider, servers) as app:
            result = app.run("add")
        assert _observations(provider) == ["2"]
        attributes = _tool_spans(result.trace_path)[0]["attributes"]
        assert attributes["network.transport"] == "tcp"
        assert attributes["mcp.session.id"]
    finally:
        process.kill()
        process.wait()


@pytest.mark.deep
def test_the_denylist_and_approval_apply_to_mcp_tools(tmp_path: Path) -> None:
    tag = new_tag()
    provider = ScriptedProvider([tool_call("t__echo", text="x"), "denied, fine"])
    config = stdio_config(tag)  # approval: "always" by default
    with _app(tmp_path, provider, config, tool_denylist=("t__echo",)) as app:
        app.run("echo")
        assert "denied by policy" in _observations(provider)[0]
        provider.add(tool_call("t__secret"))
        paused = app.run("the secret", session="other")
        assert paused.approval_id is not None, "an MCP tool needs approval unless told not to"
        provider.add(tool_call("t__add", a=1, b=2))
        paused = app.run("add", session="third")
        assert paused.approval_id is not None, "a readOnlyHint is not trusted by default"


@pytest.mark.deep
def test_a_trusted_read_only_hint_runs_without_approval(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [tool_call("t__add", a=1, b=2), tool_call("t__echo", text="z"), "approved and done"]
    )
    config = stdio_config(new_tag(), trustReadOnlyHints=True)
    with _app(tmp_path, provider, config) as app:
        paused = app.run("add then echo")
        assert _observations(provider) == ["3"]
        assert paused.approval_id is not None  # echo has no hint: it waits
        resumed = app.resume_approval(paused.approval_id, "approve")
    assert resumed.text == "approved and done"
    assert _observations(provider) == ["3", "echo: z"]


@pytest.mark.deep
def test_a_server_that_fails_to_start_is_one_line_and_leaves_the_app_usable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    servers = {
        "mcpServers": {
            "gone": {"command": str(tmp_path / "no-such-server")},
            "dies": {"command": sys.executable, "args": ["-c", "import sys; sys.exit('no key')"]},
        }
    }
    provider = ScriptedProvider([tool_call("gone__x"), "fine"])
    with caplog.at_level(logging.WARNING, "harness.mcp"), _app(tmp_path, provider, servers) as app:
        problems = app.mcp.problems if app.mcp else []
        result = app.run("try")
    assert len(problems) == 2
    assert all("\n" not in line for line in problems)
    assert "MCP server 'gone' (stdio: " in problems[0] and "failed to start" in problems[0]
    assert "not found" in problems[0]
    assert "'dies'" in problems[1] and "it said: no key" in problems[1]
    assert [r.getMessage() for r in caplog.records] == problems
    assert result.text == "fine"
    assert "unknown tool 'gone__x'" in _observations(provider)[0]


@pytest.mark.deep
def test_a_crash_mid_call_and_a_hang_are_error_observations(tmp_path: Path) -> None:
    tag = new_tag()
    provider = ScriptedProvider(
        [
            tool_call("t__hang"),
            tool_call("t__add", a=1, b=1),
            tool_call("t__crash"),
            tool_call("t__add", a=2, b=2),
            "done",
        ]
    )
    config = stdio_config(tag, approval="never", timeout=2)
    with _app(tmp_path, provider, config) as app:
        result = app.run("break it")
    hang, after_hang, crash, after_crash = _observations(provider)
    assert hang == (
        "Error: MCP server 't' did not answer 'hang' within 2 s (its 'timeout' in mcp_servers)"
    )
    assert after_hang == "2", "a timed-out call leaves the server usable"
    assert crash.startswith("Error: MCP server 't' (stdio: ")
    assert "the connection closed during 'crash'" in crash
    assert after_crash == crash, "the server stays gone, with the same line"
    assert result.text == "done"
    assert processes_with(tag) == []


def test_bad_configs_are_one_line_errors(tmp_path: Path) -> None:
    cases = {
        "both": {"mcpServers": {"x": {"command": "a", "url": "http://127.0.0.1:1/mcp"}}},
        "typo": {"mcpServers": {"x": {"comand": "a"}}},
        "name": {"mcpServers": {"a__b": {"command": "a"}}},
        "url": {"mcpServers": {"x": {"url": "127.0.0.1:8000/mcp"}}},
    }
    messages = {}
    for key, config in cases.items():
        with pytest.raises(ConfigurationError) as caught:
            _app(tmp_path, ScriptedProvider(), config)
        messages[key] = str(caught.value)
    assert all("\n" not in m and "MCP server" in m for m in messages.values())
    assert "either 'command'" in messages["both"]
    assert "comand is not a key harness knows" in messages["typo"]
    assert "no '__'" in messages["name"]
    assert "url" in messages["url"]
    missing = tmp_path / "absent.json"
    with pytest.raises(ConfigurationError, match=r"HARNESS_MCP_SERVERS.*cannot be read"):
        _app(tmp_path, ScriptedProvider(), None, mcp_servers=missing)


@pytest.mark.deep
def test_the_otel_mirror_exports_mcp_attributes_under_their_convention_names(
    tmp_path: Path,
) -> None:
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from harness.tracing import FileTraceRecorder, MultiTraceRecorder, Tracer
    from harness.tracing.otel import OTelTraceRecorder

    memory = InMemorySpanExporter()
    otel = TracerProvider(shutdown_on_exit=False)
    otel.add_span_processor(SimpleSpanProcessor(memory))
    recorder = MultiTraceRecorder(FileTraceRecorder(tmp_path / ".state"), OTelTraceRecorder(otel))
    settings = Settings(workdir=tmp_path, state_dir=tmp_path / ".state")
    provider = ScriptedProvider([tool_call("t__add", a=4, b=4), "ok"])
    config = stdio_config(new_tag(), approval="never")
    with build_application(
        settings, provider=provider, mcp_servers=config, tracer=Tracer(recorder)
    ) as app:
        app.run("add")
    (span,) = [s for s in memory.get_finished_spans() if s.name.startswith("execute_tool")]
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.tool.name"] == "add"
    assert attributes["gen_ai.operation.name"] == "execute_tool"
    assert attributes["mcp.method.name"] == "tools/call"
    assert attributes["network.transport"] == "pipe"
    assert attributes["harness.span.name"] == "t.add"
