"""``harness eval prune --keep N``: the newest reports stay, the others go with the
trace files only they name; real files under tmp_path, the CLI as a subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from harness.core.errors import ConfigurationError
from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.view._prune import apply_prune, plan_prune
from tests.cli.test_view_cli import _harness


def _report(folder: Path, name: str, created_at: str | None, traces: list[str]) -> Path:
    """``folder/name.json`` whose one row names ``traces``: a bare name is a file
    written into ``folder/name-traces/`` (as ``harness eval`` keeps them), a path is
    taken as it is."""
    own = folder / f"{name}-traces"
    named = []
    for trace in traces:
        path = Path(trace) if "/" in trace else own / trace
        if "/" not in trace:
            own.mkdir(exist_ok=True)
            path.write_text(f'{{"trace": "{trace}"}}' + " " * 100, "utf-8")
        named.append(str(path))
    row = EvalRow(
        scenario="edit",
        nodeid="evals/test_edit.py::test_edit",
        verdict=Verdict.PASS,
        source=Source.SCRIPTED,
        traces=tuple(named),
    )
    path = folder / f"{name}.json"
    EvalReport(rows=(row,), created_at=created_at or "").write(path)
    if created_at is None:  # a report that states no run time (written by other code)
        data = json.loads(path.read_text("utf-8"))
        del data["created_at"]
        path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.fixture
def reports(tmp_path: Path) -> Path:
    """Four reports; the names sort against their run times, so only those can order them.

    old-b (2026-01-02) shares the trace ``s.json`` of new-a's folder (the newest);
    old-c (2026-01-01) names a file outside the folder, one in it but in no
    ``-traces`` folder, and one in the unreadable e-cut's; undated has no created_at
    and a file time in 2025.
    """
    folder = tmp_path / ".harness" / "reports"
    folder.mkdir(parents=True)
    new = _report(folder, "a-new", "2026-01-03T00:00:00+00:00", ["1.json", "s.json"])
    shared = str(new.with_name("a-new-traces") / "s.json")
    _report(folder, "b-old", "2026-01-02T00:00:00+00:00", ["2.json", shared])
    outside = tmp_path / "outside.json"
    outside.write_text("{}", "utf-8")
    (folder / "notes").mkdir()
    inside = folder / "notes" / "keep-me.json"  # in the folder, but no trace folder of it
    inside.write_text("{}", "utf-8")
    cut_traces = folder / "e-cut-traces"
    cut_traces.mkdir()
    theirs = cut_traces / "x.json"  # the unreadable report's own trace: it might name it
    theirs.write_text("{}", "utf-8")
    _report(
        folder,
        "c-older",
        "2026-01-01T00:00:00Z",
        ["3.json", str(outside), str(inside), str(theirs)],
    )
    undated = _report(folder, "d-undated", None, ["4.json"])
    os.utime(undated, (1_750_000_000, 1_750_000_000))  # 2025-06-15
    (folder / "e-cut.json").write_text('{"rows": [', "utf-8")
    (folder / "harness-view.html").write_text("<html></html>", "utf-8")
    return folder


def _names(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in folder.rglob("*")}


def test_the_newest_by_run_time_stay_and_only_their_traces_are_shared(reports: Path) -> None:
    plan = plan_prune(reports, 2)
    assert [path.name for path in plan.kept] == ["a-new.json", "b-old.json"]
    gone = {report.path.name: [f.name for f in report.artifacts] for report in plan.removed}
    assert gone == {"c-older.json": ["3.json"], "d-undated.json": ["4.json"]}
    assert [skipped.path.name for skipped in plan.skipped] == ["e-cut.json"]
    freed = apply_prune(plan)
    assert freed == plan.bytes > 0
    assert _names(reports) == {
        "a-new.json",
        "a-new-traces",
        "a-new-traces/1.json",
        "a-new-traces/s.json",
        "b-old.json",
        "b-old-traces",
        "b-old-traces/2.json",
        "e-cut.json",  # not readable: left alone, with its own traces
        "e-cut-traces",
        "e-cut-traces/x.json",
        "harness-view.html",
        "notes",
        "notes/keep-me.json",  # named by a pruned report, but not in a -traces folder
    }
    assert (reports.parents[1] / "outside.json").exists()  # outside the folder: never ours


def test_a_trace_a_kept_report_names_stays_when_its_own_report_goes(reports: Path) -> None:
    apply_prune(plan_prune(reports, 1))
    assert {"a-new-traces/s.json", "a-new-traces/1.json"} <= _names(reports)
    assert "b-old.json" not in _names(reports) and "b-old-traces" not in _names(reports)


def test_a_moved_folder_finds_its_traces_by_name(reports: Path, tmp_path: Path) -> None:
    moved = tmp_path / "elsewhere"
    shutil.move(reports, moved)  # every absolute path in the rows is now stale
    apply_prune(plan_prune(moved, 2))
    assert "c-older-traces" not in _names(moved) and "d-undated-traces" not in _names(moved)
    assert "a-new-traces/s.json" in _names(moved)


@pytest.mark.parametrize("keep", [0, -3])
def test_keeping_fewer_than_one_is_refused(reports: Path, keep: int) -> None:
    with pytest.raises(ConfigurationError, match="keep at least 1"):
        plan_prune(reports, keep)


@pytest.mark.deep  # four subprocesses
def test_the_cli_prunes_the_default_folder_and_says_what_and_how_much(reports: Path) -> None:
    project = reports.parents[1]
    dry = _harness(project, "eval", "prune", "--keep", "3", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would remove" in dry.stdout and "d-undated.json (2025-06-15" in dry.stdout
    assert "(dry run: nothing deleted)" in dry.stdout
    assert "left alone" in dry.stdout and "e-cut.json" in dry.stdout
    assert "d-undated.json" in _names(reports)  # nothing deleted
    done = _harness(project, "eval", "prune", "--keep", "3")
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith("removed 1 report(s) and 1 trace file(s), ") and "bytes" in last
    would = re.search(r"([0-9,]+) bytes", dry.stdout.splitlines()[-1])
    freed = re.search(r"([0-9,]+) bytes", last)
    assert would and freed and would.group(1) == freed.group(1) != "0"
    assert "d-undated.json" not in _names(reports) and "c-older.json" in _names(reports)
    again = _harness(project, "eval", "prune", "--keep", "3")
    assert again.returncode == 0 and "nothing to prune: 3 report(s)" in again.stdout


def test_the_cli_refuses_keep_0_in_one_line(reports: Path) -> None:
    zero = _harness(reports, "eval", "prune", "--keep", "0", "--reports-dir", str(reports))
    assert zero.returncode == 2 and zero.stdout == "" and len(zero.stderr.splitlines()) == 1
    assert "keep at least 1" in zero.stderr
    assert "d-undated.json" in _names(reports)


@pytest.mark.deep
def test_the_cli_refuses_a_missing_folder_in_one_line(tmp_path: Path) -> None:
    missing = _harness(tmp_path, "eval", "prune", "--keep", "2")  # no .harness/reports here
    assert missing.returncode == 2 and len(missing.stderr.splitlines()) == 1
    assert "does not exist" in missing.stderr and "--reports-dir" in missing.stderr
