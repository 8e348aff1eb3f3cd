"""The OpenTelemetry mirror: real SDK, in-memory and loopback OTLP/HTTP exporters."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk", reason="the otel extra is not installed")

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from harness.core import ConfigurationError
from harness.tracing import FileTraceRecorder, MultiTraceRecorder, Tracer, TraceSpan, TraceTree
from harness.tracing.otel import OTelTraceRecorder, _epoch_ns, build_otel_recorder
from tests.loopback import serving
from tests.tracing.conftest import build_run
from tests.tracing.scripted_run import SECRET, SESSION, make_app, run_and_resume


def _mirrored_run(
    tmp_path: Path, mode: str, exporter: SpanExporter
) -> tuple[list[TraceTree], OTelTraceRecorder]:
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    mirror = OTelTraceRecorder(provider)
    recorder = MultiTraceRecorder(FileTraceRecorder(tmp_path / "state"), mirror)
    app = make_app(tmp_path, tracer=Tracer(recorder, mode=mode))  # type: ignore[arg-type]
    try:
        first, second = run_and_resume(app)
    finally:
        app.close()
    assert first is not None and second is not None, "the JSON trace must still be written"
    return [TraceTree.load(first), TraceTree.load(second)], mirror


@pytest.fixture
def exported(tmp_path: Path) -> tuple[list[TraceTree], list[ReadableSpan]]:
    memory = InMemorySpanExporter()
    trees, _ = _mirrored_run(tmp_path, "metadata", memory)
    return trees, list(memory.get_finished_spans())


def _by_harness_id(spans: Sequence[ReadableSpan]) -> dict[str, ReadableSpan]:
    return {str(span.attributes["harness.span_id"]): span for span in spans if span.attributes}


def test_every_span_is_mirrored_with_its_parent_and_times(
    exported: tuple[list[TraceTree], list[ReadableSpan]],
) -> None:
    trees, spans = exported
    assert len(spans) == sum(len(list(tree.walk())) for tree in trees)
    mirrored = _by_harness_id(spans)
    for tree in trees:
        trace_ids = set()
        for span in tree.walk():
            otel = mirrored[span.span_id]
            assert otel.context is not None
            trace_ids.add(otel.context.trace_id)
            if span.parent_id is None:
                assert otel.parent is None
            else:
                assert otel.parent is not None
                assert otel.parent.span_id == mirrored[span.parent_id].context.span_id  # type: ignore[union-attr]
            assert otel.start_time == _epoch_ns(span.started_at)
            assert otel.end_time is not None and otel.start_time is not None
            assert otel.end_time - otel.start_time == int((span.duration_ms or 0) * 1e6)
        assert len(trace_ids) == 1, "one harness trace is one OTel trace"


def _attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def _one(spans: list[ReadableSpan], tree: TraceTree, harness_span: TraceSpan) -> dict[str, Any]:
    return _attributes(_by_harness_id(spans)[harness_span.span_id])


def test_gen_ai_names_and_attributes(
    exported: tuple[list[TraceTree], list[ReadableSpan]],
) -> None:
    (paused, resumed), spans = exported
    mirrored = _by_harness_id(spans)
    run = mirrored[paused.root.span_id]
    assert run.name == "invoke_agent harness"
    assert _attributes(run)["gen_ai.operation.name"] == "invoke_agent"
    assert _attributes(run)["gen_ai.conversation.id"] == SESSION

    subagent = mirrored[paused.one("subagent.run").span_id]
    assert subagent.name == "invoke_agent explorer"
    explore = mirrored[paused.one("tool.call", "explore").span_id]
    assert subagent.parent is not None and explore.context is not None
    assert subagent.parent.span_id == explore.context.span_id

    chat = paused.find_all("llm.call", within="subagent.run")[0]
    chat_attributes = _one(spans, paused, chat)
    assert mirrored[chat.span_id].name == "chat scripted"
    assert chat_attributes["gen_ai.operation.name"] == "chat"
    assert chat_attributes["gen_ai.provider.name"] == "scripted"
    assert chat_attributes["gen_ai.request.model"] == "scripted"
    assert chat_attributes["gen_ai.response.model"] == "scripted"
    assert chat_attributes["gen_ai.usage.input_tokens"] == chat.attributes["input_tokens"]
    assert chat_attributes["gen_ai.usage.output_tokens"] == chat.attributes["output_tokens"] == 3

    reads = paused.find_all("tool.call", "read")
    assert len(reads) == 2
    for read in reads:
        attributes = _one(spans, paused, read)
        assert mirrored[read.span_id].name == "execute_tool read"
        assert attributes["gen_ai.operation.name"] == "execute_tool"
        assert attributes["gen_ai.tool.name"] == "read"
        assert attributes["gen_ai.tool.call.id"] == read.attributes["tool_call_id"]

    pause = mirrored[paused.one("approval.pause").span_id]
    assert pause.name == "approval.pause"
    assert (
        _attributes(pause)["harness.approval_id"]
        == paused.one("approval.pause").attributes["approval_id"]
    )
    resume = mirrored[resumed.one("approval.resume").span_id]
    assert resume.name == "approval.resume"
    assert _attributes(resume)["harness.decision"] == "approve"


def test_metadata_mode_sends_no_content(
    exported: tuple[list[TraceTree], list[ReadableSpan]],
) -> None:
    _, spans = exported
    text = json.dumps([_attributes(span) for span in spans], default=str)
    for leak in ("gen_ai.input.messages", "gen_ai.tool.call.arguments", "payload", "version 7"):
        assert leak not in text
    assert SECRET not in text


def test_replay_mode_sends_redacted_content(tmp_path: Path) -> None:
    memory = InMemorySpanExporter()
    (paused, _), _ = _mirrored_run(tmp_path, "replay", memory)
    spans = list(memory.get_finished_spans())
    text = json.dumps([_attributes(span) for span in spans], default=str)
    assert SECRET not in text
    write = _by_harness_id(spans)[paused.one("tool.call", "write").span_id]
    assert "deploy-key.txt" in str(_attributes(write)["gen_ai.tool.call.arguments"])
    chat = _by_harness_id(spans)[paused.find_all("llm.call")[0].span_id]
    assert "Check the files" in str(_attributes(chat)["gen_ai.input.messages"])


def test_an_error_span_has_an_error_status(tmp_path: Path) -> None:
    memory = InMemorySpanExporter()
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(SimpleSpanProcessor(memory))
    tree = build_run(Tracer(OTelTraceRecorder(provider)))
    failed = tree.one("tool.call", "write")
    otel = _by_harness_id(memory.get_finished_spans())[failed.span_id]
    assert otel.status.status_code is StatusCode.ERROR
    assert _attributes(otel)["error.type"] == "PermissionError"
    root = _by_harness_id(memory.get_finished_spans())[tree.root.span_id]
    assert [event.name for event in root.events] == ["context.compacted"]


class _RaisingExporter(SpanExporter):
    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        raise ConnectionError("collector is down")

    def shutdown(self) -> None:
        return None


class _RaisingProcessor(SimpleSpanProcessor):
    def on_end(self, span: ReadableSpan) -> None:
        raise RuntimeError("processor bug")


@pytest.mark.parametrize("where", ["exporter", "processor"])
def test_a_failing_export_warns_and_never_breaks_the_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, where: str
) -> None:
    provider = TracerProvider(shutdown_on_exit=False)
    if where == "exporter":
        provider.add_span_processor(SimpleSpanProcessor(_RaisingExporter()))
    else:
        provider.add_span_processor(_RaisingProcessor(InMemorySpanExporter()))
    recorder = MultiTraceRecorder(
        FileTraceRecorder(tmp_path / "state"), OTelTraceRecorder(provider)
    )
    app = make_app(tmp_path, tracer=Tracer(recorder))
    with caplog.at_level(logging.WARNING):
        try:
            first, second = run_and_resume(app)
        finally:
            app.close()
    assert first is not None and first.exists()  # the JSON trace is the source of truth
    assert second is not None and second.exists()
    messages = " ".join(record.getMessage() for record in caplog.records)
    assert ("collector is down" if where == "exporter" else "processor bug") in (
        messages + " ".join(str(r.exc_info) for r in caplog.records)
    )


def test_without_the_extra_the_setting_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk.trace", None)
    with pytest.raises(ConfigurationError, match=r"pip install 'harness-toolkit\[otel\]'"):
        build_otel_recorder("otlp")


@pytest.mark.deep
def test_importing_harness_does_not_import_opentelemetry() -> None:
    code = (
        "import sys, harness, harness.app, harness.tracing\n"
        "print(any(m.startswith('opentelemetry') for m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- OTLP/HTTP to a loopback receiver --------------------------------------------------


class _Receiver(BaseHTTPRequestHandler):
    bodies: list[tuple[str, bytes]] = []

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        self.bodies.append((self.path, self.rfile.read(length)))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[tuple[str, bytes]]]]:
    bodies: list[tuple[str, bytes]] = []
    handler = type("Handler", (_Receiver,), {"bodies": bodies})
    server = HTTPServer(("127.0.0.1", 0), handler)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies


@pytest.mark.deep
def test_harness_run_sends_otlp_http_to_the_endpoint(
    tmp_path: Path, receiver: tuple[str, list[tuple[str, bytes]]]
) -> None:
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    endpoint, bodies = receiver
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool": "read", "arguments": {"path": "a.txt"}}, "done"]))
    (tmp_path / "a.txt").write_text("alpha\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OTEL_"))}
    env.update(
        HARNESS_STATE_DIR=str(tmp_path / "state"),
        HARNESS_WORKDIR=str(tmp_path),
        HARNESS_PROVIDER="scripted",
        HARNESS_SCRIPT=str(script),
        HARNESS_OTEL="otlp",
        OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
        OTEL_SERVICE_NAME="otel-test-service",
        NO_PROXY="127.0.0.1",
        no_proxy="127.0.0.1",
    )
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", "read a.txt", "--session", "otel-s"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("done")
    assert [path for path, _ in bodies] == ["/v1/traces"]
    request = ExportTraceServiceRequest()
    request.ParseFromString(bodies[0][1])
    (resource_spans,) = request.resource_spans
    resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
    assert resource["service.name"] == "otel-test-service"
    spans = [span for scope in resource_spans.scope_spans for span in scope.spans]
    names = sorted(span.name for span in spans)
    assert names == [
        "agent.step",
        "agent.step",
        "chat scripted",
        "chat scripted",
        "execute_tool read",
        "invoke_agent harness",
    ]
    by_id = {span.span_id: span for span in spans}
    tool = next(span for span in spans if span.name == "execute_tool read")
    attributes = {a.key: a.value for a in tool.attributes}
    assert attributes["gen_ai.tool.name"].string_value == "read"
    assert attributes["gen_ai.conversation.id"].string_value == "otel-s"
    step = by_id[tool.parent_span_id]
    assert step.name == "agent.step"
    assert by_id[step.parent_span_id].name == "invoke_agent harness"
    assert not by_id[step.parent_span_id].parent_span_id


@pytest.mark.deep
def test_console_exporter_writes_to_stderr_and_leaves_stdout_alone(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OTEL_"))}
    env.update(
        HARNESS_STATE_DIR=str(tmp_path / "state"),
        HARNESS_WORKDIR=str(tmp_path),
        HARNESS_OTEL="console",
    )
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--json", "hello"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)  # stdout is only the command's own output
    assert Path(result["trace_path"]).exists()
    assert '"name": "invoke_agent harness"' in done.stderr
    assert '"gen_ai.operation.name": "invoke_agent"' in done.stderr


@pytest.mark.parametrize(
    ("value", "expected"), [("otlp", "otlp"), ("console", "console"), ("off", "off")]
)
def test_the_setting_reads_harness_otel(value: str, expected: str) -> None:
    from harness.settings import Settings

    assert Settings.from_env({"HARNESS_OTEL": value}).otel == expected
    assert Settings.from_env({}).otel == "off"


def test_a_bad_harness_otel_names_the_variable() -> None:
    from harness.settings import Settings

    with pytest.raises(ConfigurationError, match="HARNESS_OTEL"):
        Settings.from_env({"HARNESS_OTEL": "jaeger"})
