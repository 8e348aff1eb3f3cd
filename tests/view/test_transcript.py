"""Transcripts: from harness's own replay traces and from cassettes of every wire
format, and where a report row's cassette is found. No browser needed."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.evals import EvalRow, Verdict
from harness.evals.provenance import Source
from harness.testing import trace_from_cassette
from harness.tracing import Tracer, TraceSpan, TraceTree
from harness.view import TranscriptIndex, transcript
from harness.view._run_transcripts import cassette_dirs, find_cassette
from tests.tracing.scripted_run import SECRET, record_traces
from tests.view.reports import ROOT

GREETING = "SENTINEL-GREET-7F3A91C4E2"
EDIT = "evals/test_edit_flow/test_edit_flow.yaml"
WIRES = {
    "openai": "openai/gpt-4.1-mini",
    "anthropic": "anthropic/claude-sonnet-4-6",
    "openai-responses": "openai-responses/gpt-4.1-mini",
}


@pytest.mark.parametrize("wire", list(WIRES), ids=list(WIRES))
def test_a_cassette_of_every_wire_reads_as_the_same_transcript(wire: str) -> None:
    tree = trace_from_cassette(ROOT / "cassettes" / WIRES[wire] / EDIT, mode="replay")
    entries = transcript(tree)["entries"]
    kinds = [entry["t"] for entry in entries]
    assert kinds[-1] == "final"
    # The instructions first, wherever the wire sends them (a message, system, instructions).
    assert [(e["t"], e.get("role")) for e in entries[:2]] == [("msg", "system"), ("msg", "user")]
    assert "careful software agent" in entries[0]["text"]
    tools = [e for e in entries if e["t"] == "tool"]
    assert [e["name"] for e in tools] == ["read", "read", "edit"]
    assert GREETING in tools[0]["text"]
    asked = [call["name"] for e in entries if e["t"] == "answer" for call in e["calls"]]
    assert asked == ["read", "read", "edit"]
    assert GREETING in entries[-1]["text"]


def test_harness_traces_mark_subagents_approvals_and_resumes(tmp_path: Path) -> None:
    paused, resumed = record_traces(tmp_path, trace_mode="replay")
    entries = transcript(paused)["entries"]
    marks = [(e["kind"], e["text"]) for e in entries if e["t"] == "mark"]
    assert marks == [
        ("sub", "subagent run"),
        ("sub", "subagent done"),
        ("approval", "waiting for approval"),
    ]
    inside = entries[[e["t"] for e in entries].index("mark") + 1 :]
    assert inside[0]["d"] == 1 and inside[0]["role"] == "system"  # the subagent's own prompt
    write = next(
        e for e in entries if e["t"] == "answer" and e["calls"] and e["calls"][0]["name"] == "write"
    )
    assert SECRET not in write["calls"][0]["args"] and "[REDACTED]" in write["calls"][0]["args"]
    after = transcript(resumed)["entries"]
    assert [e["t"] for e in after][:2] == ["mark", "tool"]  # the resume, then the approved write
    assert after[-1]["t"] == "final" and after[-1]["text"] == "Wrote deploy-key.txt after approval."
    assert any(e.get("kind") == "history" for e in after)  # the history is named, not repeated


def test_a_failed_tool_and_a_failed_model_call_are_flagged() -> None:
    tracer = Tracer(mode="replay")
    root = tracer.begin_trace("agent.run")
    with tracer.span("agent.step"):
        with tracer.span("llm.call") as call:
            tracer.set_payload(call, "messages", [{"role": "user", "content": "go"}])
        tool = tracer.begin_span("tool.call", "bash")
        tracer.set_payload(tool, "observation", "exit 1: no such file")
        tracer.end_span(tool, status="error")
        failed = tracer.begin_span("llm.call")
        tracer.end_span(failed, status="error", attributes={"error_type": "RateLimitError"})
    tree = tracer.end_trace(root)
    assert tree is not None
    entries = transcript(tree)["entries"]
    assert [e["t"] for e in entries] == ["msg", "answer", "tool", "error"]
    assert entries[2]["err"] is True and entries[3]["text"] == "RateLimitError"


def test_a_metadata_trace_says_why_it_has_no_transcript(tmp_path: Path) -> None:
    paused, _ = record_traces(tmp_path, trace_mode="metadata")
    shown = transcript(paused)
    assert shown["entries"] == [] and "metadata mode" in shown["why"]


def _row(**fields: Any) -> EvalRow:
    base: dict[str, Any] = {
        "scenario": "edit",
        "nodeid": "evals/test_edit_flow.py::test_edit_flow[openai]",
        "provider": "openai",
        "model": "gpt-4.1-mini",
        "verdict": Verdict.PASS,
        "source": Source.SIMULATOR,
        "cassette": "test_edit_flow.yaml",
    }
    return EvalRow(**{**base, **fields})


def test_a_rows_cassette_is_found_in_either_layout_or_its_absence_explained(
    tmp_path: Path,
) -> None:
    source = ROOT / "cassettes" / WIRES["openai"] / EDIT
    provider_layout = tmp_path / "a" / "openai" / "gpt-4.1-mini" / "evals" / "test_edit_flow"
    fixture_layout = tmp_path / "b" / "evals" / "test_edit_flow"
    for folder in (provider_layout, fixture_layout):
        folder.mkdir(parents=True)
        shutil.copy(source, folder / "test_edit_flow.yaml")
    row = _row()
    assert find_cassette(row, [tmp_path / "a"]) == provider_layout / "test_edit_flow.yaml"
    assert find_cassette(row, [tmp_path / "b"]) == fixture_layout / "test_edit_flow.yaml"
    assert find_cassette(row.model_copy(update={"cassette": None}), [tmp_path / "a"]) is None

    index = TranscriptIndex([tmp_path / "a"])
    link = index.for_row(row, [], tmp_path / "report.json")
    again = index.for_row(row, [], tmp_path / "report.json")
    assert link == again and link["index"] == 0 and len(index.transcripts) == 1  # read once
    missing = TranscriptIndex([tmp_path / "nowhere"]).for_row(row, [], tmp_path / "r.json")
    assert "test_edit_flow.yaml" in missing["missing"] and "--cassettes" in missing["missing"]
    scripted = _row(provider="scripted", source=Source.SCRIPTED, cassette=None)
    said = TranscriptIndex().for_row(scripted, [], tmp_path / "r.json")["missing"]
    assert "HARNESS_TRACE_MODE=replay" in said


def test_a_replay_trace_of_the_row_comes_before_its_cassette(tmp_path: Path) -> None:
    paused, _ = record_traces(tmp_path, trace_mode="replay")
    index = TranscriptIndex([ROOT / "cassettes"])
    link = index.for_row(_row(), [paused], tmp_path / "r.json")
    assert index.transcripts[link["index"]]["from"] == str(paused.path)
    assert "version 7" in str(index.transcripts[link["index"]]["entries"])


_SCALAR = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
# Flat shapes, not st.recursive: a recursive strategy nested four times costs
# seconds of validation alone.
_JSON = (
    _SCALAR
    | st.lists(_SCALAR, max_size=3)
    | st.dictionaries(st.sampled_from(["text", "content", "type", "x"]), _SCALAR, max_size=3)
)
_MESSAGE = st.fixed_dictionaries(
    {},
    optional={
        "role": st.sampled_from(["system", "user", "assistant", "tool", "developer"]) | _JSON,
        "type": st.sampled_from(["message", "function_call_output", "reasoning"]) | _JSON,
        "content": _JSON
        | st.lists(
            st.fixed_dictionaries(
                {"type": st.sampled_from(["text", "tool_result", "image"])},
                optional={"text": _JSON, "content": _JSON},
            ),
            max_size=3,
        ),
    },
)


@settings(max_examples=30, deadline=None)
@given(messages=st.lists(_MESSAGE | _JSON, max_size=5), answer=_JSON)
def test_any_stored_payload_reads_as_text_entries(messages: list[Any], answer: Any) -> None:
    # Built directly (a Tracer would validate each tree against the schema: slow here).
    at = "2026-01-01T00:00:00Z"
    call = TraceSpan(
        span_id="0001",
        parent_id="0000",
        trace_id="t",
        kind="llm.call",
        name="llm.call",
        started_at=at,
        sequence=1,
        attributes={"payload": {"messages": messages, "response_text": answer}},
    )
    root = TraceSpan(
        span_id="0000",
        parent_id=None,
        trace_id="t",
        kind="agent.run",
        name="agent.run",
        started_at=at,
        sequence=0,
        children=[call],
    )
    tree = TraceTree(capture_mode="replay", trace_id="t", created_at=at, root=root)
    for entry in transcript(tree)["entries"]:
        assert isinstance(entry["text"], str)
        if entry["t"] == "msg":
            assert isinstance(entry["role"], str)


def test_a_reports_project_cassette_folders_are_found_without_being_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    for folder in ("cassettes", "examples/cassettes", ".harness/reports", "elsewhere"):
        (project / folder).mkdir(parents=True)
    (project / "pyproject.toml").write_text("", "utf-8")
    (tmp_path / "cassettes").mkdir()  # above the project: not its cassettes
    monkeypatch.chdir(project / "elsewhere")
    found = cassette_dirs(project / ".harness" / "reports" / "eval.json")
    assert found == [project / "cassettes", project / "examples" / "cassettes"]
    assert cassette_dirs(project / "r.json", [tmp_path]) == [tmp_path]
