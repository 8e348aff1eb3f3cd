"""What ``harness eval`` adds to the pytest command line: worksteal for parallel runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.evals import run_evals
from harness.evals._runner import _default_dist, _same_order_in_every_shard


@pytest.mark.parametrize(
    ("args", "added"),
    [
        (["-n", "auto"], ["--dist", "worksteal"]),
        (["-n2"], ["--dist", "worksteal"]),
        (["--numprocesses=4", "-k", "x"], ["--dist", "worksteal"]),
        (["-n", "auto", "--dist", "load"], []),
        (["--dist=loadgroup", "-n", "2"], []),
        (["-n", "2", "-d", "loadfile"], []),
        (["-n", "0"], []),
        (["-n0"], []),
        (["-k", "edit", "-x"], []),
        ([], []),
    ],
)
def test_a_parallel_run_steals_work_unless_a_mode_is_named(
    args: list[str], added: list[str]
) -> None:
    assert _default_dist(args) == added


def _eval_rows(count: int) -> str:
    """A test module of ``count`` eval rows that always pass."""
    return (
        "import pytest\n\n\n@pytest.mark.eval\n"
        f"@pytest.mark.parametrize('n', range({count}))\ndef test_row(n):\n    pass\n"
    )


@pytest.mark.deep
def test_harness_eval_runs_the_workers_with_work_stealing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "test_rows.py").write_text(_eval_rows(4), "utf-8")
    run = run_evals(
        ["-n", "2", "-v", "-p", "no:randomly"], cwd=tmp_path, report_path=tmp_path / "r.json"
    )
    out = capfd.readouterr().out
    assert run.ok and len(run.report.rows) == 4
    assert "WorkStealingScheduling" in out, out


@pytest.mark.parametrize(
    ("args", "added"),
    [
        (["--splits", "4", "--group", "2"], ["-p", "no:randomly"]),
        (["--splits=2", "--group=1"], ["-p", "no:randomly"]),
        (["--splits", "2", "--group", "1", "--randomly-seed", "7"], []),
        (["--splits", "2", "--group", "1", "--randomly-seed=7"], []),
        (["-n", "auto"], []),
    ],
)
def test_a_shard_keeps_collection_order_unless_it_fixes_a_seed(
    args: list[str], added: list[str]
) -> None:
    assert _same_order_in_every_shard(args) == added


@pytest.mark.deep
def test_the_shards_of_a_suite_are_disjoint_and_cover_it(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "test_rows.py").write_text(_eval_rows(12), "utf-8")
    seen: list[set[str]] = []
    for group in ("1", "2"):
        args = ["--splits", "2", "--group", group]
        run = run_evals(args, cwd=tmp_path, report_path=tmp_path / f"shard-{group}.json")
        assert run.ok
        seen.append({row.nodeid for row in run.report.rows})
    assert not seen[0] & seen[1]
    assert len(seen[0] | seen[1]) == 12


def test_a_mutant_run_cannot_be_sharded(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_e="import pytest\n\n@pytest.mark.eval\ndef test_e():\n    pass\n")
    result = pytester.runpytest("--harness-mutants", "--splits", "2", "--group", "1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--harness-mutants cannot be sharded (--splits)*"])
