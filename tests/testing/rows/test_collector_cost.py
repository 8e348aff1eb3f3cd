"""The collector prices rows at the price table; synthetic tokens stay unpriced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.evals import default_prices, load_report
from harness.testing.rows.collector import ROW_PROPERTY, EvalCollector


def _report(when: str, row: dict[str, object] | None = None) -> pytest.TestReport:
    props = [] if row is None else [(ROW_PROPERTY, json.dumps(row))]
    return pytest.TestReport(
        nodeid=f"evals/test_x.py::test_{row['scenario'] if row else 'x'}",
        location=("evals/test_x.py", 1, "test_x"),
        keywords={},
        outcome="passed",
        longrepr=None,
        when=when,
        user_properties=props,
    )


def _collect(collector: EvalCollector, row: dict[str, object]) -> None:
    collector.on_report(_report("call", row))
    collector.on_report(_report("teardown", row))


def test_live_rows_are_priced_and_synthetic_ones_are_not(tmp_path: Path) -> None:
    collector = EvalCollector("none", default_prices())
    usage = {
        "input_tokens": 1_000_000,
        "output_tokens": 100_000,
        "cached_input_tokens": 500_000,
        "cache_write_input_tokens": 0,
    }
    base = {"provider": "openai", "model": "gpt-4.1-mini", **usage}
    _collect(collector, {"scenario": "live", "source": "live", **base})
    _collect(collector, {"scenario": "sim", "source": "simulator", **base})
    _collect(collector, {"scenario": "odd", "source": "live", **base, "model": "unpriced-x"})
    path = tmp_path / "r.json"
    collector.write(path)
    report = load_report(path)
    costs = {row.scenario: row.cost_usd for row in report.rows}
    # 500k plain at $0.40/M + 500k cached at $0.10/M + 100k out at $1.60/M
    assert costs["live"] == pytest.approx(0.2 + 0.05 + 0.16)
    assert costs["sim"] is None and costs["odd"] is None
    assert report.prices == "harness defaults (prices as of 2026-12-01)"
    assert report.cost_usd == pytest.approx(0.41)
    live = next(row for row in report.rows if row.scenario == "live")
    assert (live.cached_input_tokens, live.cache_write_input_tokens) == (500_000, 0)


def test_a_malformed_price_file_stops_pytest_with_a_clear_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    bad = pytester.path / "prices.yaml"
    bad.write_text("as_of: '2026-12-01'\nmodels:\n  m: {input: 1}\n", "utf-8")
    monkeypatch.setenv("HARNESS_PRICES", str(bad))
    done = pytester.runpytest("--harness-report", str(pytester.path / "r.json"))
    assert done.ret == pytest.ExitCode.USAGE_ERROR
    done.stderr.fnmatch_lines(["*price file *prices.yaml is invalid (models.m.output: Field*"])
