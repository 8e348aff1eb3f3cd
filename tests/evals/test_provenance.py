"""Provenance: where a row's model answers came from, on rows, tables, reports and compare."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.core.errors import CassetteError
from harness.evals import (
    REPORT_SCHEMA_VERSION,
    EvalReport,
    EvalRow,
    Source,
    Verdict,
    cassette_source,
    compare_reports,
    load_report,
    render_table,
)
from harness.evals.provenance import source_of_recording

ROOT = Path(__file__).resolve().parents[2]


def _interaction(uri: str, *, simulator: bool = False) -> dict[str, Any]:
    headers = {"content-type": ["application/json"]}
    if simulator:
        headers["x-harness-simulator"] = ["1"]
    return {
        "request": {"method": "POST", "uri": uri, "body": "{}", "headers": {}},
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": headers,
            "body": {"string": "{}"},
        },
    }


def _write(path: Path, data: dict[str, Any]) -> Path:
    text = json.dumps(data) if path.suffix == ".json" else yaml.safe_dump(data, sort_keys=False)
    path.write_text(text, "utf-8")
    return path


def _harness_cassette(tmp_path: Path, recorded_against: str | None, name: str = "c.yaml") -> Path:
    metadata = {
        "schema_version": 1,
        "provider": "openai",
        "model": "gpt-4.1-mini",
        "recorded_at": "2026-12-01T00:00:00+00:00",
        "harness_version": "0.1.0",
        "recorded_against": recorded_against,
        "interaction_count": 1,
    }
    # The metadata decides even where the interactions say otherwise.
    interactions = [_interaction("http://127.0.0.1:9/v1/chat/completions")]
    return _write(
        tmp_path / name, {"version": 1, "harness": metadata, "interactions": interactions}
    )


@pytest.mark.parametrize(
    ("recorded_against", "expected"),
    [
        ("127.0.0.1:18765 (harness simulator)", Source.SIMULATOR),
        ("api.openai.com", Source.LIVE),
        ("api.anthropic.com, api.openai.com", Source.LIVE),
        ("[2001:db8::1]:443", Source.UNKNOWN),  # no known or declared API host
        ("127.0.0.1:8000", Source.LOCAL),  # vLLM's default port
        ("localhost:11434", Source.LOCAL),  # Ollama's
        ("127.0.0.1:9999", Source.UNKNOWN),  # a local server harness does not know
        ("[::1]:8080", Source.UNKNOWN),
        ("api.openai.com, 127.0.0.1:8000", Source.UNKNOWN),
        ("127.0.0.1:18765, api.openai.com (harness simulator)", Source.UNKNOWN),
        (None, Source.UNKNOWN),
    ],
    ids=[
        "simulator",
        "openai",
        "two-hosts",
        "v6-host",
        "vllm",
        "ollama",
        "loopback",
        "v6-loop",
        "mix",
        "sim-and-live",
        "none",
    ],
)
def test_harness_metadata_names_the_source(
    tmp_path: Path, recorded_against: str | None, expected: Source
) -> None:
    assert source_of_recording(recorded_against) is expected
    assert cassette_source(_harness_cassette(tmp_path, recorded_against)) is expected
    assert cassette_source(_harness_cassette(tmp_path, recorded_against, "c.json")) is expected


@pytest.mark.parametrize(
    ("interactions", "expected"),
    [
        ([_interaction("https://api.openai.com/v1/chat/completions")] * 2, Source.LIVE),
        ([_interaction("https://api.anthropic.com/v1/messages")], Source.LIVE),
        ([_interaction("http://127.0.0.1:5/v1/messages", simulator=True)], Source.SIMULATOR),
        ([_interaction("http://localhost:5/v1/chat/completions")], Source.UNKNOWN),
        ([_interaction("http://localhost:1234/v1/chat/completions")], Source.LOCAL),
        (
            [
                _interaction("http://127.0.0.1:5/v1/messages", simulator=True),
                _interaction("https://api.anthropic.com/v1/messages"),
            ],
            Source.UNKNOWN,
        ),
        ([], Source.UNKNOWN),
    ],
    ids=["openai", "anthropic", "sim-header", "loopback", "lm-studio", "mixed", "empty"],
)
def test_plain_vcrpy_cassettes_are_judged_by_hosts_and_the_simulator_header(
    tmp_path: Path, interactions: list[dict[str, Any]], expected: Source
) -> None:
    path = _write(tmp_path / "plain.yaml", {"version": 1, "interactions": interactions})
    assert cassette_source(path) is expected


def test_committed_cassettes_are_all_simulator_recordings() -> None:
    cassettes = sorted((ROOT / "cassettes").rglob("*.yaml"))
    assert cassettes
    assert {cassette_source(path) for path in cassettes} == {Source.SIMULATOR}


def test_an_unreadable_cassette_is_a_clear_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("version: 1\ninteractions: [\n", "utf-8")
    with pytest.raises(CassetteError, match="corrupt, so its source is unknown"):
        cassette_source(broken)
    with pytest.raises(CassetteError, match="cannot read cassette"):
        cassette_source(tmp_path / "missing.yaml")


def _row(scenario: str, source: Source | None, verdict: Verdict = Verdict.PASS) -> EvalRow:
    data: dict[str, Any] = {
        "scenario": scenario,
        "nodeid": f"evals/test_x.py::{scenario}",
        "provider": "scripted" if source is Source.SCRIPTED else "openai",
        "model": "scripted" if source is Source.SCRIPTED else "gpt-4.1-mini",
        "verdict": verdict,
        "input_tokens": 100,
        "output_tokens": 7,
    }
    if source is not None:
        data["source"] = source
    return EvalRow.model_validate(data)


def test_rows_carry_source_and_synthetic_tokens_into_json(tmp_path: Path) -> None:
    report = EvalReport(
        rows=(_row("a", Source.LIVE), _row("b", Source.SIMULATOR), _row("c", Source.SCRIPTED))
    )
    path = tmp_path / "report.json"
    report.write(path)
    stored = json.loads(path.read_text("utf-8"))
    assert stored["schema_version"] == REPORT_SCHEMA_VERSION
    assert [(r["source"], r["tokens_synthetic"]) for r in stored["rows"]] == [
        ("live", False),
        ("simulator", True),
        ("scripted", True),
    ]
    assert load_report(path).rows == report.sorted().rows
    assert load_report(path).sources == (Source.LIVE, Source.SIMULATOR, Source.SCRIPTED)
    assert load_report(str(path)).rows == report.sorted().rows  # a path as text, from a script


def test_the_table_shows_the_source_and_marks_synthetic_tokens() -> None:
    table = render_table(EvalReport(rows=(_row("a", Source.LIVE), _row("b", Source.SIMULATOR))))
    header, _, live, simulated, total, cost, footnote = table.splitlines()
    assert header.split()[:4] == ["scenario", "provider/model", "source", "verdict"]
    assert live.split()[2] == "live" and "100/7 " in live + " "
    assert simulated.split()[2] == "simulator" and "100/7*" in simulated
    assert total == "2 eval run(s): 2 pass"
    assert footnote == "* synthetic tokens (simulator or scripted): no real model counted them"
    assert cost == "cost: – (1 synthetic row(s), not priced; 1 row(s) without a price)"
    only_live = render_table(EvalReport(rows=(_row("a", Source.LIVE),)))
    assert "synthetic" not in only_live
    priced = EvalReport(rows=(_row("a", Source.LIVE).model_copy(update={"cost_usd": 0.5}),))
    assert render_table(priced).splitlines()[-1] == "cost: $0.5000 at an unknown price table"


def test_version_1_reports_still_load_with_a_derived_source(tmp_path: Path) -> None:
    old = {
        "schema_version": 1,
        "created_at": "2026-11-30T00:00:00+00:00",
        "harness_version": "0.1.0",
        "record_mode": "none",
        "rows": [
            {"scenario": "a", "nodeid": "t::a", "provider": "openai", "verdict": "pass"},
            {"scenario": "b", "nodeid": "t::b", "verdict": "fail"},
        ],
    }
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(old), "utf-8")
    report = load_report(path)
    assert report.schema_version == REPORT_SCHEMA_VERSION
    assert [(r.scenario, r.source) for r in report.rows] == [
        ("a", Source.UNKNOWN),
        ("b", Source.SCRIPTED),
    ]
    path.write_text(json.dumps({**old, "schema_version": 7}), "utf-8")
    wanted = f"schema_version 7; this harness reads versions 1 to {REPORT_SCHEMA_VERSION}"
    with pytest.raises(Exception, match=wanted):
        load_report(path)


def test_compare_prints_both_sources_and_warns_when_they_differ() -> None:
    live = EvalReport(rows=(_row("a", Source.LIVE), _row("b", Source.LIVE)))
    simulated = EvalReport(rows=(_row("a", Source.SIMULATOR), _row("b", Source.LIVE)))
    comparison = compare_reports(live, simulated)
    lines = comparison.render().splitlines()
    assert lines[0] == "sources: old live, new live+simulator"
    assert lines[1].startswith("WARNING: the reports' model answers come from different sources")
    assert "changed: a [openai]" in lines
    assert "  source: live -> simulator" in lines
    same = compare_reports(live, live).render().splitlines()
    assert same[0] == "sources: old live, new live"
    assert same[-1] == "no changes between the two reports"
