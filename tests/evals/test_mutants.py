"""``harness eval --mutants`` on the committed suite: every recorded eval can fail."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.evals import MutantStatus, load_report, summarize_mutants

ROOT = Path(__file__).resolve().parents[2]
# The goal is 0.8 for every eval once the scenarios assert their behaviour
# directly; this floor only keeps today's measured rates from sliding back.
MIN_KILL_RATE = 0.8


# The default run mutates these evals' cassettes (both providers); the deep tier all.
SAMPLE = ("test_edit_flow", "test_policy_flow")


@pytest.mark.deep
def test_every_committed_eval_kills_its_mutants(tmp_path: Path) -> None:
    _assert_evals_kill_their_mutants(tmp_path, ())


@pytest.mark.deep
def test_a_sample_of_the_committed_evals_kills_its_mutants(tmp_path: Path) -> None:
    _assert_evals_kill_their_mutants(tmp_path, SAMPLE)


def _assert_evals_kill_their_mutants(tmp_path: Path, sample: tuple[str, ...]) -> None:
    report = tmp_path / "mutants.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    only = ["-k", " or ".join(sample)] if sample else []
    done = subprocess.run(
        [sys.executable, "-m", "harness", "eval", "--mutants", "--report", str(report), *only],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    match = re.search(r"^report: (\S+?\.json)", done.stdout, re.MULTILINE)
    if match and Path(match.group(1)).parent == ROOT / ".harness" / "reports":
        Path(match.group(1)).unlink(missing_ok=True)  # the timestamped copy is not ours
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    summaries = [
        s
        for s in summarize_mutants(load_report(report).mutants)
        if s.status is not MutantStatus.NOT_MUTATED
    ]
    # Mutants are served from the plain cassettes; the -stream ones replay SSE runs.
    cassettes = [
        p
        for p in (ROOT / "cassettes").rglob("*.yaml")
        if not p.stem.endswith("-stream") and (not sample or p.parent.name in sample)
    ]
    assert cassettes
    assert len(summaries) == len(cassettes)  # one mutated eval per recorded cassette
    weak = {
        f"{s.scenario} [{s.target}]": (s.status.value, f"{s.kill_rate:.0%}")
        for s in summaries
        if s.status is not MutantStatus.OK or s.kill_rate < MIN_KILL_RATE or s.errors
    }
    assert not weak, f"evals that cannot show they can fail: {weak}\n{done.stdout[-6000:]}"
    assert {s.source.value for s in summaries} == {"simulator"}


def test_a_rows_mutants_read_their_cassettes_source_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from harness.evals import mutants

    committed = next((Path(__file__).resolve().parents[2] / "cassettes/openai").rglob("*.yaml"))
    copy = tmp_path / committed.name
    shutil.copyfile(committed, copy)
    reads: list[Path] = []
    real = mutants.cassette_source
    monkeypatch.setattr(mutants, "cassette_source", lambda p: reads.append(p) or real(p))
    first = [mutants.recorded_source(copy) for _ in range(8)]
    assert len(reads) == 1 and len(set(first)) == 1
    copy.write_text(copy.read_text("utf-8") + "\n", "utf-8")  # edited: read again
    assert mutants.recorded_source(copy) == first[0]
    assert len(reads) == 2
