"""The report and compare pages as data: cases, trace links (embedded or missing),
kept traces, gate order, outline alignment; no browser needed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals._runner import keep_traces
from harness.evals.mutant_results import MutantOutcome, MutantResult
from harness.evals.provenance import Source
from harness.tracing import Tracer
from harness.view import (
    TraceIndex,
    build_compare_page,
    build_report_page,
    compare_data,
    report_data,
    side_by_side,
)
from tests.tracing.conftest import build_run

_DATA = re.compile(r'<script type="application/json" id="harness-data">(.*?)</script>', re.S)


def _embedded(page: str) -> dict[str, Any]:
    (match,) = _DATA.findall(page)
    data: dict[str, Any] = json.loads(match)
    return data


def _row(scenario: str, verdict: Verdict = Verdict.PASS, **fields: Any) -> EvalRow:
    values: dict[str, Any] = {"provider": "openai", "model": "m", "source": Source.SIMULATOR}
    return EvalRow(scenario=scenario, nodeid=f"e::{scenario}", verdict=verdict, **values | fields)


def _trace_file(folder: Path, name: str) -> str:
    path = folder / name
    path.write_text(build_run(Tracer()).to_json(), "utf-8")
    return str(path)


def test_cases_fold_epochs_and_link_each_trace_or_say_why_not(tmp_path: Path) -> None:
    good = _trace_file(tmp_path, "good.json")
    (tmp_path / "bad.json").write_text("{nope", "utf-8")
    rows = (
        _row("once", traces=(good,)),
        _row("twice", epoch=0, traces=(good, str(tmp_path / "gone.json"))),
        _row("twice", Verdict.FAIL, epoch=1, message="boom", traces=(str(tmp_path / "bad.json"),)),
        _row("none"),
    )
    index = TraceIndex()
    data = report_data(EvalReport(rows=rows), source="r.json", traces=index)

    cases = {case["case"]: case for case in data["cases"]}
    assert cases["once"]["verdict"] == "pass" and cases["once"]["runs"] == 1
    twice = cases["twice"]
    assert twice["verdict"] is None and (twice["passes"], twice["runs"]) == (1, 2)
    assert twice["interval"][0] < 0.5 < twice["interval"][1]
    assert twice["failures"] == ["fail: boom"]
    assert twice["sources"] == ["simulator"] and twice["synthetic"] is True
    assert twice["cost_usd"] is None  # synthetic tokens are never priced
    links = [link for run in twice["rows"] for link in run["traces"]]
    assert links[0] == {"path": good, "index": 0}  # read once, shared with "once"
    assert "gone" in links[1]["missing"]
    assert "not a readable trace" in links[2]["missing"]
    assert cases["once"]["rows"][0]["traces"] == [{"path": good, "index": 0}]
    assert cases["none"]["rows"][0]["traces"] == []
    assert len(index.traces) == 1 and index.traces[0]["spans"]
    assert data["runs"] == 4 and data["passed"] == 3


def test_mutants_section_lists_survivors() -> None:
    def result(mutant: str, outcome: MutantOutcome, order: int) -> MutantResult:
        return MutantResult(
            eval_nodeid="e::edit",
            scenario="edit",
            provider="openai",
            model="m",
            mutant=mutant,
            operator=mutant.split("-")[0],
            order=order,
            outcome=outcome,
        )

    report = EvalReport(
        mutants=(
            result("original", MutantOutcome.PASS, 0),
            result("drop-1", MutantOutcome.KILLED, 1),
            result("swap-2", MutantOutcome.SURVIVED, 2),
        )
    )
    (entry,) = report_data(report, source="r", traces=TraceIndex())["mutants"]
    assert (entry["killed"], entry["total"], entry["status"]) == (1, 2, "ok")
    assert [s["mutant"] for s in entry["survivors"]] == ["swap-2"]


def test_the_report_page_embeds_the_trace_page_and_escapes_report_text(tmp_path: Path) -> None:
    hostile = "</script><script>alert(1)</script>\u2028<!--"
    report = EvalReport(rows=(_row("x", Verdict.FAIL, message=hostile),))
    page = build_report_page([(report, "r.json")])
    assert "<script>alert(1)" not in page and hostile not in page
    data = _embedded(page)
    assert data["reports"][0]["cases"][0]["failures"] == [f"fail: {hostile}"]
    assert "harness · trace view" in data["trace_page"]
    assert set(data["trace_slots"].values()) <= set(re.findall(r"__\w+__", data["trace_page"]))
    outside = _DATA.sub("", page)
    assert not re.search(r"https?://", outside) and "default-src 'none'" in page


def test_a_report_page_packs_its_traces_and_transcripts_for_the_first_click(
    tmp_path: Path,
) -> None:
    from harness.view import unpack_json
    from tests.view.traces import big_tree

    paths = []
    for number in range(3):
        path = tmp_path / f"t{number}.json"
        path.write_text(big_tree(40).to_json(), "utf-8")
        paths.append(str(path))
    report = EvalReport(rows=tuple(_row(f"c{n}", traces=(p,)) for n, p in enumerate(paths)))
    page = build_report_page([(report, str(tmp_path / "r.json"))])
    data = _embedded(page)
    assert '"spans"' not in _DATA.search(page).group(1)  # type: ignore[union-attr]
    packed = unpack_json(data["packed"])
    assert [t["source"] for t in packed["traces"]] == paths
    assert all(len(t["spans"]) >= 40 and "t0" not in t["spans"][0] for t in packed["traces"])
    links = [case["rows"][0]["traces"][0]["index"] for case in data["reports"][0]["cases"]]
    assert sorted(links) == [0, 1, 2]
    # Metadata traces and no cassette: each run says why it has no transcript.
    assert all("missing" in case["rows"][0]["transcript"] for case in data["reports"][0]["cases"])


def test_keep_traces_copies_the_files_and_repoints_the_rows(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    first = _trace_file(run_dir, "t.json")
    gone = str(run_dir / "gone.json")
    report = EvalReport(rows=(_row("a", traces=(first, gone)), _row("b", traces=(first,))))
    kept = keep_traces(report, tmp_path / "kept")
    a, b = kept.rows
    assert a.traces[0] != b.traces[0]  # one copy per row: rows never share a file
    assert [Path(p).read_text("utf-8") for p in (a.traces[0], b.traces[0])] == [
        Path(first).read_text("utf-8")
    ] * 2
    assert a.traces[1] == gone  # gone already: kept as it was, the page says missing
    assert all(Path(p).parent == tmp_path / "kept" for p in (a.traces[0], b.traces[0]))
    stale = tmp_path / "kept" / "999-old.json"
    stale.write_text("{}", "utf-8")
    (tmp_path / "kept" / "notes.txt").write_text("mine", "utf-8")  # no copy: it stays
    again = keep_traces(EvalReport(rows=(_row("d", traces=(first,)),)), tmp_path / "kept")
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == [
        Path(again.rows[0].traces[0]).name,
        "notes.txt",
    ]
    assert (tmp_path / "kept" / "notes.txt").read_text("utf-8") == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept", "run"]  # no temporaries left
    empty = keep_traces(EvalReport(rows=(_row("c"),)), tmp_path / "none")
    assert not (tmp_path / "none").exists() and empty.rows[0].traces == ()
    vanished = keep_traces(EvalReport(rows=(_row("e", traces=(gone,)),)), tmp_path / "none")
    assert not (tmp_path / "none").exists() and vanished.rows[0].traces == (gone,)
    keep_traces(EvalReport(rows=(_row("f"),)), tmp_path / "kept")  # no traces: copies go
    assert [p.name for p in (tmp_path / "kept").iterdir()] == ["notes.txt"]


def test_compare_orders_gravest_first_with_the_gates_p_values() -> None:
    def runs(case: str, passes: int, total: int, **fields: Any) -> list[EvalRow]:
        return [
            _row(case, Verdict.PASS if k < passes else Verdict.FAIL, epoch=k, **fields)
            for k in range(total)
        ]

    old = EvalReport(
        rows=(
            *runs("a-same", 3, 3),
            *runs("b-regressed", 20, 20),
            *runs("c-weaker", 3, 3),
            *runs("d-reshaped", 1, 1, shape="agent.run\n  llm.call"),
            *runs("e-dropped", 1, 1),
        )
    )
    new = EvalReport(
        rows=(
            *runs("a-same", 3, 3),
            *runs("b-regressed", 12, 20),
            *runs("c-weaker", 2, 3),
            *runs("d-reshaped", 1, 1, shape="agent.run\n  llm.call\n  tool.call read"),
            *runs("f-new", 1, 1),
        )
    )
    data = compare_data(old, new, old_source="old.json", new_source="new.json")
    order = [(c["case"], c["status"]) for c in data["changes"]]
    assert order == [
        ("b-regressed", "regression"),
        ("c-weaker", "inconclusive"),  # 3 runs a side detect no drop at 80% power
        ("d-reshaped", "changed"),
        ("a-same", "same"),
        ("e-dropped", "not run"),
        ("f-new", "not run"),
    ]
    regressed, weaker = data["changes"][0], data["changes"][1]
    assert regressed["p_value"] < 0.05 < weaker["p_value"]
    added = {"op": "insert", "old": None, "new": "  tool.call read"}
    assert data["changes"][2]["shape"][-1] == added
    assert data["changes"][3]["shape"] is None
    assert data["counts"]["regression"] == 1 and data["sources_differ"] is False
    page = build_compare_page((old, "old.json"), (new, "new.json"))
    assert _embedded(page)["changes"][0]["case"] == "b-regressed"


def test_compare_flags_different_sources() -> None:
    old = EvalReport(rows=(_row("a"),))
    new = EvalReport(rows=(_row("a", source=Source.LIVE),))
    data = compare_data(old, new, old_source="o", new_source="n")
    assert data["sources_differ"] is True
    assert (data["old_sources"], data["new_sources"]) == (["simulator"], ["live"])


_lines = st.lists(st.sampled_from(["agent.run", "  llm.call", "  tool.call read", "x", ""]))


@given(_lines, _lines)
def test_side_by_side_keeps_both_outlines_and_marks_only_real_differences(
    old: list[str], new: list[str]
) -> None:
    pairs = side_by_side("\n".join(old), "\n".join(new))
    assert [p["old"] for p in pairs if p["old"] is not None] == "\n".join(old).splitlines()
    assert [p["new"] for p in pairs if p["new"] is not None] == "\n".join(new).splitlines()
    for pair in pairs:
        if pair["op"] == "equal":
            assert pair["old"] == pair["new"]
        elif pair["op"] == "delete":
            assert pair["new"] is None and pair["old"] is not None
        elif pair["op"] == "insert":
            assert pair["old"] is None and pair["new"] is not None
        else:
            assert pair["op"] == "replace" and None not in (pair["old"], pair["new"])
    if old == new:
        assert all(pair["op"] == "equal" for pair in pairs)


def test_a_judged_run_shows_the_judges_verdict_and_reason() -> None:
    if "judge" not in EvalRow.model_fields:
        pytest.skip("eval rows carry no judge field in this build (case-file evals add it)")
    verdict = {"verdict": "fail", "reason": "ignored the rubric", "model": "judge-m"}
    judged = EvalRow.model_validate(
        {"scenario": "j", "nodeid": "e::j", "verdict": "fail", "judge": verdict}
    )
    data = report_data(EvalReport(rows=(judged,)), source="r", traces=TraceIndex())
    judge = data["cases"][0]["rows"][0]["judge"]
    assert {key: judge[key] for key in verdict} == verdict
    plain = report_data(EvalReport(rows=(_row("p"),)), source="r", traces=TraceIndex())
    assert plain["cases"][0]["rows"][0]["judge"] is None


def _columns(report: EvalReport, tmp_path: Path) -> tuple[list[str], dict[str, str]]:
    data = report_data(report, source=str(tmp_path / "r.json"), traces=TraceIndex())
    return data["columns"], {d["column"]: d["why"] for d in data["dropped"]}


def test_columns_empty_for_every_case_are_dropped_and_named(tmp_path: Path) -> None:
    # Simulator rows: synthetic tokens, so nothing is priced; no trace, no failure.
    rows = (_row("a", steps=2, input_tokens=10, duration_s=0.5), _row("b", steps=1))
    columns, dropped = _columns(EvalReport(rows=rows), tmp_path)
    assert columns == ["case", "provider", "source", "result", "steps", "tokens", "duration"]
    assert dropped["cost"] == "no run is priced (synthetic tokens)"
    assert dropped["tool_calls"] == "no run made a tool call"
    assert dropped["trace"].startswith("no run has a trace file or a transcript")
    assert "failure" not in dropped  # left out without a note: nothing failed


def test_a_column_with_one_value_stays_whole(tmp_path: Path) -> None:
    trace = _trace_file(tmp_path, "t.json")
    rows = (
        _row("a", Verdict.FAIL, message="boom", source=Source.LIVE, input_tokens=5, cost_usd=0.01),
        _row("b", source=Source.LIVE, tool_calls=1, traces=(trace,)),
    )
    columns, dropped = _columns(EvalReport(rows=rows), tmp_path)
    assert {"cost", "tool_calls", "tokens", "failure", "trace"} <= set(columns)
    assert set(dropped) == {"steps", "duration"}


def test_cases_and_the_summary_carry_pass_hat_k_with_intervals(tmp_path: Path) -> None:
    rows = (
        *(_row("flaky", Verdict.PASS if k % 2 == 0 else Verdict.FAIL, epoch=k) for k in range(5)),
        *(_row("steady", epoch=k) for k in range(5)),
    )
    data = report_data(EvalReport(rows=rows), source="r.json", traces=TraceIndex())
    cases = {case["case"]: case for case in data["cases"]}
    assert cases["flaky"]["pass_k"] == {"k": 5, "value": 0.0, "interval": [0.0, 0.5349]}
    assert cases["steady"]["pass_k"]["value"] == 1.0
    suite = data["suite"]
    assert (suite["k"], suite["pass_hat_k"], suite["pass_at_1"], suite["cases"]) == (5, 0.5, 0.8, 2)
    page = build_report_page([(EvalReport(rows=rows), "r.json")])
    assert _embedded(page)["reports"][0]["suite"]["interval_over"] == "cases"


def test_the_compare_page_carries_the_suites_pass_hat_k_verdict() -> None:
    def suite(flaky: int, model: str) -> EvalReport:
        rows = [
            _row(
                f"c{n}",
                Verdict.FAIL if n < flaky and k == 0 else Verdict.PASS,
                epoch=k,
                model=model,
            )
            for n in range(10)
            for k in range(5)
        ]
        return EvalReport(rows=tuple(rows))

    data = compare_data(suite(0, "a"), suite(4, "b"), old_source="o.json", new_source="n.json")
    found = data["suite_pass_k"]
    assert found["regression"] is True and (found["k"], found["cases"]) == (5, 10)
    assert found["reason"].startswith("suite pass^5 over 10 case(s) (interval over cases): 100%")
    # No case regressed on its own: the suite line is what the gate fails on.
    assert data["counts"]["regression"] == 0
    page = build_compare_page((suite(0, "a"), "o.json"), (suite(4, "b"), "n.json"))
    assert 'id="suite-pass-k"' in page
