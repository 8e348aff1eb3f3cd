"""The trace page as text: embedded data, escaping, inputs, marks; no browser needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.tracing import Tracer, TraceTree
from harness.view import (
    ViewError,
    build_report_page,
    build_trace_page,
    embed_json,
    load_view_input,
    trace_data,
    write_compare_page,
)
from harness.view._trace_cases import trace_cases
from tests.tracing.conftest import build_run
from tests.tracing.scripted_run import record_traces
from tests.view.traces import overlapping_tree

_DATA = re.compile(r'<script type="application/json" id="harness-data">(.*?)</script>', re.S)


def _embedded(page: str) -> dict[str, object]:
    (match,) = _DATA.findall(page)
    data: dict[str, object] = json.loads(match)
    return data


@given(st.text())
def test_embedded_json_never_closes_the_script_and_round_trips(text: str) -> None:
    embedded = embed_json({"payload": text, "list": [text]})
    lowered = embedded.lower()
    assert "</" not in lowered and "<!--" not in lowered and "<script" not in lowered
    assert json.loads(embedded) == {"payload": text, "list": [text]}


def test_the_page_is_self_contained() -> None:
    page = build_trace_page([build_run(Tracer())])
    outside_data = _DATA.sub("", page)
    assert not re.search(r"https?://", outside_data), "no URL: nothing is fetched at view time"
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=", outside_data, re.I)
    assert "default-src 'none'" in page  # the CSP forbids any fetch as well


def test_hostile_payloads_stay_data() -> None:
    tracer = Tracer(mode="replay")
    root = tracer.begin_trace("agent.run")
    tracer.set_payload(root, "prompt", "</script><script>window.pwned=1</script><!-- x")
    tree = tracer.end_trace(root)
    assert tree is not None
    page = build_trace_page([tree])
    assert page.count("<script") == 2 and page.count("</script>") == 2
    data = _embedded(page)
    spans = data["traces"][0]["spans"]  # type: ignore[index]
    assert spans[0]["pl"]["prompt"].startswith("</script><script>")


def test_title_is_escaped(tmp_path: Path) -> None:
    tree = build_run(Tracer())
    tree.trace_id = "<b>x</b>"
    assert "<title>harness trace &lt;b&gt;x&lt;/" in build_trace_page([tree])


def test_trace_data_times_are_offsets_on_one_axis() -> None:
    tree = build_run(Tracer())
    data = trace_data(tree, source="t.json")
    spans = data["spans"]
    assert [s["id"] for s in spans] == [s.span_id for s in tree.walk()]
    assert spans[0]["s"] == 0 and spans[0]["p"] == -1
    for position, span in enumerate(spans):
        for child in span["c"]:
            assert spans[child]["p"] == position
            assert spans[child]["s"] >= span["s"]
    assert data["total_ms"] >= spans[0]["e"]
    assert data["errors"] == 1


def test_overlapping_tool_calls_are_marked_parallel() -> None:
    data = trace_data(overlapping_tree(), source="t")
    reads = [s for s in data["spans"] if s["k"] == "tool.call"]
    assert [r["par"] for r in reads] == [True, True, False]
    first, second = reads[0], reads[1]
    assert first["s"] < second["s"] + second["e"] and second["s"] < first["s"] + first["e"]


def test_ancestors_of_approvals_and_subagents_are_flagged() -> None:
    tracer = Tracer()
    root = tracer.begin_trace("agent.run")
    with (
        tracer.span("agent.step"),
        tracer.span("tool.call", "write"),
        tracer.span("approval.pause"),
    ):
        pass
    with tracer.span("agent.step"), tracer.span("tool.call", "read"):
        pass
    tree = tracer.end_trace(root)
    assert tree is not None
    flagged = {f"{s['k']} {s['n']}": s["hm"] for s in trace_data(tree, source="t")["spans"]}
    assert flagged["tool.call write"] and flagged["agent.run agent.run"]
    assert not flagged["tool.call read"] and not flagged["approval.pause approval.pause"]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, "utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param('{"rows": "x", "schema_version": 3}', "report .* is invalid", id="bad-report"),
        pytest.param("{nope", "not valid JSON .*or an eval report", id="not-json"),
        pytest.param('{"schema_version": 2, "trace_id": "x"}', "trace schema", id="not-a-trace"),
    ],
)
def test_inputs_that_are_neither_traces_nor_reports_are_refused_clearly(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ViewError, match=message):
        load_view_input(_write(tmp_path / "input.json", text))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("{nope", "not valid JSON .*--compare takes two eval reports", id="not-json"),
        pytest.param("{}", "not an eval report .*--compare takes two eval reports", id="no-rows"),
        pytest.param('{"root": {}}', "is a trace, not an eval report", id="trace"),
        pytest.param('{"rows": "x", "schema_version": 3}', "report .* is invalid", id="bad-report"),
    ],
)
def test_compare_advises_a_report_for_a_bad_side(tmp_path: Path, text: str, message: str) -> None:
    good = EvalReport()
    good.write(tmp_path / "old.json")
    bad = _write(tmp_path / "bad.json", text)
    with pytest.raises(ViewError, match=message) as raised:
        write_compare_page(tmp_path / "old.json", bad, tmp_path / "c.html")
    assert "trace file" not in str(raised.value)
    assert not (tmp_path / "c.html").exists()


def test_a_trace_file_loads_with_its_path(tmp_path: Path) -> None:
    tree = build_run(Tracer())
    path = _write(tmp_path / "t.json", tree.to_json())
    loaded = load_view_input(path)
    assert loaded == tree and loaded.path == path
    assert isinstance(loaded, TraceTree)


def test_no_traces_is_an_error() -> None:
    with pytest.raises(ViewError, match="at least one trace"):
        build_trace_page([])


def test_a_kept_trace_is_named_by_its_reports_case_and_its_provider(tmp_path: Path) -> None:
    # As `harness eval` keeps them: r-traces/NNN-<id>.json beside r.json, whose rows name them.
    paused, resumed = record_traces(tmp_path)
    assert paused.path is not None and resumed.path is not None
    kept = tmp_path / "reports" / "r-traces"
    kept.mkdir(parents=True)
    copies = [kept / f"00{n}-{tree.path.name}" for n, tree in enumerate((paused, resumed))]
    for copy, tree in zip(copies, (paused, resumed), strict=True):
        copy.write_bytes(tree.path.read_bytes())  # type: ignore[union-attr]
    row = EvalRow(
        scenario="approval[approve]",
        nodeid="evals/test_approval_flow.py::test_approval_flow[openai-approve]",
        provider="openai",
        model="gpt-4.1-mini",
        verdict=Verdict.PASS,
        source=Source.SIMULATOR,
        traces=(str(tmp_path / "elsewhere" / copies[0].name),),  # a moved folder: by name
    )
    EvalReport(rows=(row,)).write(tmp_path / "reports" / "r.json")
    assert set(trace_cases(copies)) == {copies[0]}
    trees = [load_view_input(copy) for copy in copies]
    data = _embedded(build_trace_page(trees))  # type: ignore[arg-type]
    traces = data["traces"]
    assert isinstance(traces, list)
    named, unnamed = traces
    assert named["case"] == "approval[approve]" and unnamed["case"] is None
    # The provider comes from the trace's own model calls (here the scripted provider).
    assert named["providers"] == unnamed["providers"] == ["scripted/scripted"]


def test_a_trace_given_beside_a_report_is_labelled_by_the_row_naming_it(tmp_path: Path) -> None:
    paused, resumed = record_traces(tmp_path)
    assert paused.path is not None
    row = EvalRow(
        scenario="edit",
        nodeid="e::edit",
        provider="openai",
        model="gpt-4.1-mini",
        verdict=Verdict.PASS,
        traces=(str(paused.path),),
    )
    data = _embedded(build_report_page([(EvalReport(rows=(row,)), "r.json")], [paused, resumed]))
    labels = data["extra_labels"]
    assert isinstance(labels, list)
    assert labels[0] == "edit · openai/gpt-4.1-mini"
    assert labels[1].endswith(f"{resumed.session_key} · scripted/scripted")
