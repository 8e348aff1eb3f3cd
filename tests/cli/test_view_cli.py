"""``harness view`` as a real subprocess on real trace files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tracing.scripted_run import record_traces


def _harness(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(HARNESS_STATE_DIR=str(tmp_path / "state"), HARNESS_WORKDIR=str(tmp_path))
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )


def _embedded_ids(page: Path) -> list[str]:
    text = page.read_text("utf-8")
    start = text.index('id="harness-data">') + len('id="harness-data">')
    data = json.loads(text[start : text.index("</script>", start)])
    return [trace["id"] for trace in data["traces"]]


def test_one_trace_writes_a_page_next_to_it_and_prints_the_path(tmp_path: Path) -> None:
    paused, _ = record_traces(tmp_path)
    assert paused.path is not None
    done = _harness(tmp_path, "view", str(paused.path))
    assert done.returncode == 0, done.stderr
    page = paused.path.with_suffix(".html")
    assert done.stdout.strip() == str(page.resolve())
    assert _embedded_ids(page) == [paused.trace_id]


@pytest.mark.deep
def test_several_traces_and_folders_go_into_one_page(tmp_path: Path) -> None:
    paused, resumed = record_traces(tmp_path)
    assert paused.path is not None and resumed.path is not None
    out = tmp_path / "out" / "view.html"
    done = _harness(tmp_path, "view", str(paused.path), str(resumed.path), "--output", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out.resolve())
    assert _embedded_ids(out) == [paused.trace_id, resumed.trace_id]
    folder = _harness(tmp_path, "view", str(paused.path.parent))
    assert folder.returncode == 0, folder.stderr
    page = paused.path.parent / "harness-view.html"
    assert folder.stdout.strip() == str(page.resolve())
    assert sorted(_embedded_ids(page)) == sorted([paused.trace_id, resumed.trace_id])


@pytest.mark.deep
def test_an_eval_report_gets_the_report_page(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text(json.dumps({"schema_version": 1, "rows": []}))
    done = _harness(tmp_path, "view", str(report))
    assert done.returncode == 0, done.stderr
    page = tmp_path / "report.html"
    assert done.stdout.strip() == str(page.resolve())
    assert "harness · eval report" in page.read_text("utf-8")


@pytest.mark.deep
def test_a_missing_file_is_one_line(tmp_path: Path) -> None:
    done = _harness(tmp_path, "view", str(tmp_path / "missing.json"))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert "cannot read" in done.stderr and "Traceback" not in done.stderr
