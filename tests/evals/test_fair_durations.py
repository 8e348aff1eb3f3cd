"""Fair durations: import time is kept apart from a row's duration, and ``slower``
never fires on two replays of the same recordings."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.evals import EvalReport, EvalRow, Source, Status, Verdict, compare_reports
from harness.testing.rows.runlog import RunLog

SLOW_IMPORT = """
import time

time.sleep(0.5)
"""

EVALS = """
import pytest


@pytest.mark.eval("first")
def test_first(harness_app, scripted_provider):
    import slow_to_import  # noqa: F401  (the first row of the process to use it pays)

    scripted_provider.add("done")
    assert harness_app.run("go").text == "done"


@pytest.mark.eval("second")
def test_second(harness_app, scripted_provider):
    import slow_to_import  # noqa: F401  (already loaded: costs nothing)

    scripted_provider.add("done")
    assert harness_app.run("go").text == "done"
"""


def test_import_time_is_left_out_of_the_row_that_paid_it(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_evals=EVALS, slow_to_import=SLOW_IMPORT)
    pytester.syspathinsert()
    path = pytester.path / "report.json"
    pytester.runpytest("--harness-report", str(path), "-p", "no:randomly").assert_outcomes(passed=2)
    rows = {row["scenario"]: row for row in json.loads(path.read_text("utf-8"))["rows"]}
    first, second = rows["first"], rows["second"]
    assert first["import_s"] >= 0.5
    assert first["duration_s"] < first["import_s"]  # the sleep is not in the duration
    assert second["import_s"] < 0.5


def _row(duration: float, digest: str | None, epoch: int) -> EvalRow:
    return EvalRow(
        scenario="flow",
        nodeid=f"evals/test_x.py::test_flow[openai-epoch{epoch}]",
        provider="openai",
        model="gpt-4.1-mini",
        verdict=Verdict.PASS,
        epoch=epoch,
        steps=2,
        duration_s=duration,
        source=Source.SIMULATOR,
        cassette="test_flow.yaml",
        cassette_sha256=digest,
    )


@pytest.mark.parametrize(
    ("old_digest", "new_digest", "status"),
    [
        ("a" * 64, "a" * 64, Status.SAME),  # the same bytes replayed twice
        ("a" * 64, "b" * 64, Status.SLOWER),  # a new recording that took longer
        (None, None, Status.SLOWER),  # rows of older reports carry no digest
    ],
    ids=["same-recording", "new-recording", "no-digest"],
)
def test_slower_compares_like_with_like(
    tmp_path: Path, old_digest: str | None, new_digest: str | None, status: Status
) -> None:
    old = EvalReport(rows=tuple(_row(1.0, old_digest, k) for k in range(3)))
    new = EvalReport(rows=tuple(_row(4.5, new_digest, k) for k in range(3)))
    (change,) = compare_reports(old, new).changes
    assert change.status is status
    old.write(tmp_path / "old.json")
    new.write(tmp_path / "new.json")
    done = CliRunner().invoke(
        app,
        [
            "eval",
            "compare",
            *(str(tmp_path / name) for name in ("old.json", "new.json")),
            "--fail-on",
            "slower",
        ],
    )
    assert done.exit_code == (5 if status is Status.SLOWER else 0), done.output


def test_a_row_knows_its_recording_by_path_and_digest(tmp_path: Path) -> None:
    cassette = tmp_path / "cassettes" / "openai" / "test_flow.yaml"
    cassette.parent.mkdir(parents=True)
    cassette.write_bytes(b"interactions: []\n")
    log = RunLog(cassette=cassette.name, cassette_path=cassette, rootdir=tmp_path)
    log.traffic = {"provider": "openai"}
    summary = log.summary()
    assert summary["cassette_path"] == str(cassette.absolute())
    assert summary["cassette_relpath"] == "cassettes/openai/test_flow.yaml"
    assert summary["cassette_sha256"] == hashlib.sha256(b"interactions: []\n").hexdigest()
    row = EvalRow(scenario="flow", nodeid="t::flow", verdict=Verdict.PASS, **summary)
    assert row.cassette_sha256 == summary["cassette_sha256"]
    cassette.unlink()  # a recording that failed to write: no digest, no crash
    gone = RunLog(cassette=cassette.name, cassette_path=cassette, rootdir=tmp_path)
    gone.traffic = {"provider": "openai"}
    assert "cassette_sha256" not in gone.summary()
