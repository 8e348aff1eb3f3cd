"""``harness view`` opens each row's own recording: by its absolute path, else its
path from the rootdir under the report's folders (a project moved), from any
working directory; says when the file changed since the run; and never takes
another file of the same name (an old model's recording of the same test)."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from harness.evals import EvalReport, EvalRow, Verdict
from harness.evals.provenance import Source
from harness.view import unpack_json
from harness.view._run_transcripts import find_recording
from tests.cli.test_view_cli import _harness
from tests.view.reports import ROOT

EDIT = "evals/test_edit_flow/test_edit_flow.yaml"
NEW = f"cassettes/gpt-5-mini/{EDIT}"  # llm_cassette's layout, with the model part
OLD = f"cassettes/{EDIT}"  # the same test recorded before models were in the path


def _project(root: Path) -> Path:
    """A project with the old model's and the new model's recording of one test."""
    root.mkdir(parents=True)
    (root / "pyproject.toml").write_text("", "utf-8")
    for relative, wire in ((NEW, "openai/gpt-4.1-mini"), (OLD, "anthropic/claude-sonnet-4-6")):
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "cassettes" / wire / EDIT, target)
    return root


def _report(project: Path) -> Path:
    cassette = project / NEW
    row = EvalRow(
        scenario="edit",
        nodeid="evals/test_edit_flow.py::test_edit_flow",
        provider="openai",
        model="gpt-5-mini",
        verdict=Verdict.PASS,
        source=Source.SIMULATOR,
        cassette=cassette.name,
        cassette_path=str(cassette),
        cassette_relpath=NEW,
        cassette_sha256=hashlib.sha256(cassette.read_bytes()).hexdigest(),
    )
    path = project / "reports" / "new.json"
    path.parent.mkdir()
    EvalReport(rows=(row,)).write(path)
    return path


def _transcript(page: Path) -> tuple[dict[str, Any], str | None]:
    """The one run's transcript link, and the file its transcript was read from."""
    text = page.read_text("utf-8")
    start = text.index('id="harness-data">') + len('id="harness-data">')
    data = json.loads(text[start : text.index("</script>", start)])
    (run,) = data["reports"][0]["cases"][0]["rows"]
    link: dict[str, Any] = run["transcript"]
    if "index" not in link:
        return link, None
    shown = unpack_json(data["packed"])["transcripts"][link["index"]]
    return link, str(shown["from"])


def _view(report: Path, cwd: Path) -> tuple[dict[str, Any], str | None]:
    cwd.mkdir(exist_ok=True)
    page = cwd / "page.html"
    done = _harness(cwd, "view", str(report), "-o", str(page))
    assert done.returncode == 0, done.stderr
    return _transcript(page)


def test_view_opens_the_rows_own_recording_from_any_folder_not_the_old_models(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path / "project")
    report = _report(project)
    link, source = _view(report, tmp_path / "elsewhere")
    assert source == str(project / NEW) and "changed" not in link


def test_a_moved_project_is_found_by_the_rootdir_relative_path(tmp_path: Path) -> None:
    report = _report(_project(tmp_path / "project"))
    moved = tmp_path / "checkout"
    shutil.move(tmp_path / "project", moved)  # the absolute path is gone
    link, source = _view(moved / "reports" / report.name, tmp_path / "elsewhere")
    assert source == str(moved / NEW) and "changed" not in link


def test_a_recording_changed_since_the_run_is_shown_and_said(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    report = _report(project)
    with (project / NEW).open("a", encoding="utf-8") as stream:
        stream.write("# re-recorded by hand\n")
    link, source = _view(report, tmp_path / "elsewhere")
    assert source == str(project / NEW)
    assert "the recording changed since the run" in link["changed"]


def test_a_row_whose_recording_is_gone_never_gets_another_of_the_same_name(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path / "project")
    report = _report(project)
    (project / NEW).unlink()  # the old model's file of the same name is still there
    (row,) = EvalReport.model_validate_json(report.read_text("utf-8")).rows
    assert find_recording(row, report, [project / "cassettes"]) is None
    link, source = _view(report, tmp_path / "elsewhere")
    assert source is None and NEW in link["missing"] and "--cassettes" in link["missing"]


def test_a_row_naming_a_file_that_is_no_cassette_is_never_read(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    report = _report(project)
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE-KEY-SENTINEL: [", "utf-8")
    data = json.loads(report.read_text("utf-8"))
    data["rows"][0].update(cassette_path=str(secret), cassette_relpath=None)
    report.write_text(json.dumps(data), "utf-8")
    link, source = _view(report, tmp_path / "elsewhere")
    assert source is None and "cannot read" not in link["missing"]  # never opened
    assert "PRIVATE-KEY-SENTINEL" not in json.dumps(link)
    assert "PRIVATE-KEY-SENTINEL" not in (tmp_path / "elsewhere" / "page.html").read_text("utf-8")
