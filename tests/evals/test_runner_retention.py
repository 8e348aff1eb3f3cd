"""``harness eval`` keeps every row's traces, whatever the project's tmp_path retention."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.evals import run_evals

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.deep  # one more replay of the repo's evals; keep_traces is tested in the default run
@pytest.mark.parametrize("policy", ["failed", "none"])
def test_a_projects_retention_policy_does_not_take_the_traces(tmp_path: Path, policy: str) -> None:
    report = tmp_path / "r.json"
    # -o stands in for the project's ini: the runner's own setting comes after it.
    args = ["-q", "-p", "no:randomly", "-k", "test_edit_flow and anthropic"]
    run = run_evals(
        [*args, "-o", f"tmp_path_retention_policy={policy}"], cwd=ROOT, report_path=report
    )
    assert run.ok, run
    traces = [Path(path) for row in run.report.rows for path in row.traces]
    assert run.report.rows and traces, run.report.rows
    assert {path.parent for path in traces} == {tmp_path / "r-traces"}
    assert all(path.is_file() for path in traces)
