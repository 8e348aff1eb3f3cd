"""Recording the evals in parallel, per epoch, and under a spending limit (simulator)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from harness.evals import Verdict, load_report
from harness.simulator import SimulatorServer

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sim() -> Iterator[str]:
    with SimulatorServer(ROOT / "fixtures" / "sim" / "evals.yaml") as server:
        yield server.url


def _eval(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    return subprocess.run(
        [sys.executable, "-m", "harness", "eval", *args, "-p", "no:randomly"],
        cwd=ROOT,
        env={**clean, **(env or {})},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _cassettes(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.yaml"))


@pytest.mark.deep
def test_parallel_recording_records_each_epoch_and_replay_serves_it(
    tmp_path: Path, sim: str
) -> None:
    cassettes, report = tmp_path / "cassettes", tmp_path / "recorded.json"
    recorded = _eval(
        *(
            "--record-mode",
            "rewrite",
            "-n",
            "2",
            "--epochs",
            "2",
            "-k",
            "test_edit_flow or test_max_steps",
        ),
        *("--harness-base-url", sim, "--harness-cassette-dir", str(cassettes)),
        *("--report", str(report), "--evals-dir", "evals"),
    )
    assert recorded.returncode == 0, recorded.stdout[-3000:] + recorded.stderr[-3000:]
    found = _cassettes(cassettes)
    targets = (
        "anthropic/claude-sonnet-4-6",
        "openai/gpt-4.1-mini",
        "openai-responses/gpt-4.1-mini",
        "gemini/gemini-2.5-flash",
    )
    for provider in targets:
        for test in ("test_edit_flow/test_edit_flow", "test_max_steps/test_max_steps"):
            assert f"{provider}/evals/{test}.yaml" in found
            assert f"{provider}/evals/{test}[epoch2].yaml" in found
    assert len(found) == 4 * len(targets)  # two evals, two epochs each
    rows = load_report(report).rows  # the workers' rows, merged by the controller
    assert len(rows) == 4 * len(targets) and {row.verdict for row in rows} == {Verdict.PASS}
    assert {(row.epoch, row.cassette) for row in rows if row.scenario == "edit"} == {
        (0, "test_edit_flow.yaml"),
        (1, "test_edit_flow[epoch2].yaml"),
    }
    ids = {r.nodeid.rpartition("[")[2] for r in rows}
    assert {"epoch1", "epoch2"} <= {part for i in ids for part in i.rstrip("]").split("-")}

    replay = tmp_path / "replay.json"
    replayed = _eval(
        *("--epochs", "3", "-k", "test_edit_flow", "--harness-cassette-dir", str(cassettes)),
        *("--report", str(replay), "--harness-provider", "openai"),
    )
    assert replayed.returncode == 0, replayed.stdout[-3000:] + replayed.stderr[-3000:]
    by_epoch = {row.epoch: row.cassette for row in load_report(replay).rows}
    # Epoch 2 was never recorded: it replays the single recording, and says so.
    assert by_epoch == {
        0: "test_edit_flow.yaml",
        1: "test_edit_flow[epoch2].yaml",
        2: "test_edit_flow.yaml",
    }
    assert "edit" in replayed.stdout and "3/3 100% [44–100]†" in replayed.stdout
    table = replayed.stdout.splitlines()
    assert [line.split()[1] for line in table if line.startswith("edit ")] == ["1", "2", "3"]
    assert _cassettes(cassettes) == found  # replay wrote nothing

    # A cassette named as harness named epochs before they counted from 1 still replays.
    folder = cassettes / "openai" / "gpt-4.1-mini" / "evals" / "test_edit_flow"
    (folder / "test_edit_flow[epoch2].yaml").rename(folder / "test_edit_flow[epoch-1].yaml")
    legacy = _eval(
        *("--epochs", "2", "-k", "test_edit_flow", "--harness-cassette-dir", str(cassettes)),
        *("--report", str(replay), "--harness-provider", "openai"),
    )
    assert legacy.returncode == 0, legacy.stdout[-3000:] + legacy.stderr[-3000:]
    assert {row.epoch: row.cassette for row in load_report(replay).rows} == {
        0: "test_edit_flow.yaml",
        1: "test_edit_flow[epoch-1].yaml",
    }


@pytest.mark.deep
def test_max_cost_stops_recording_and_says_why(tmp_path: Path, sim: str) -> None:
    cassettes, report = tmp_path / "cassettes", tmp_path / "budget.json"
    ledgers = set(Path(tempfile.gettempdir()).glob("harness-spend-*"))
    done = _eval(
        *("--record-mode", "rewrite", "--max-cost", "0.000001", "-n", "0"),
        *("--harness-base-url", sim, "--harness-cassette-dir", str(cassettes)),
        *("--report", str(report)),
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = load_report(report).rows
    recorded = [row for row in rows if row.verdict is Verdict.PASS]
    skipped = [row for row in rows if row.verdict is Verdict.SKIP]
    # The first eval records (spend starts at 0); every later one is over the limit.
    assert len(recorded) == 1 and len(skipped) == len(rows) - 1 >= 10
    reason = "--harness-max-cost $1e-06: estimated recording spend $"
    assert all(reason in r.message for r in skipped)
    assert all("synthetic simulator tokens included" in r.message for r in skipped)
    assert len(_cassettes(cassettes)) == 1
    assert "harness: estimated recording spend $" in done.stdout
    assert set(Path(tempfile.gettempdir()).glob("harness-spend-*")) == ledgers  # cleaned up


@pytest.mark.deep
def test_max_cost_refuses_a_model_it_cannot_price(tmp_path: Path, sim: str) -> None:
    done = _eval(
        *("--record-mode", "rewrite", "--max-cost", "1", "-k", "test_edit_flow"),
        *("--harness-base-url", sim, "--harness-cassette-dir", str(tmp_path / "c")),
        *("--harness-provider", "openai", "--harness-model", "gpt-unpriced"),
        # Without --report the run would leave eval-<time>.json in the checkout.
        *("--report", str(tmp_path / "report.json")),
    )
    assert done.returncode == 1
    assert "--harness-max-cost cannot price model 'gpt-unpriced'" in done.stdout


@pytest.mark.parametrize("provider", ["openai", "openai-responses", "anthropic"])
def test_recording_retries_a_429_and_never_saves_it(tmp_path: Path, provider: str) -> None:
    from harness import RunMode, Settings, build_application
    from harness.testing.cassettes.recorded import recorded_provider

    cassette = tmp_path / "retry.yaml"
    script = {"turns": [{"error": {"status": 429}}, "recorded after the retry"]}
    with (
        SimulatorServer(script) as server,
        recorded_provider(
            provider, model=None, cassette=cassette, record_mode="rewrite", base_url=server.url
        ) as recorded,
    ):
        settings = Settings(workdir=tmp_path / "w", state_dir=tmp_path / "s", trace_mode="off")
        (tmp_path / "w").mkdir()
        app = build_application(settings, provider=recorded.provider)
        try:
            result = app.run("hi", mode=RunMode.ACT, session="retry")
        finally:
            app.close()
    assert result.text == "recorded after the retry"
    # The 429 was retried (the SDK's retries stay on when recording) and only the
    # answer that followed was saved: a replay never serves the rate limit.
    assert server.hits == 2
    saved = yaml.safe_load(cassette.read_text("utf-8"))["interactions"]
    assert [i["response"]["status"]["code"] for i in saved] == [200]
