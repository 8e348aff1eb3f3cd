"""The edit tool as a Tool: observation, metadata, arguments, files on disk, confinement."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from harness.core import ToolCall, ToolError
from harness.tools import Tool, ToolExecutionContext, ToolInput, ToolOutput, run_tool
from harness.tools.builtin._edit import EditTool

GREETING = "def greet(name):\n    print('hi', name)\n    return name\n"


def _edit(workdir: Path, tool: EditTool | None = None, **arguments: Any) -> ToolOutput:
    return (tool or EditTool()).run(ToolInput(arguments=arguments, workdir=workdir))


def _refused(workdir: Path, tool: EditTool | None = None, **arguments: Any) -> ToolError:
    with pytest.raises(ToolError) as caught:
        _edit(workdir, tool, **arguments)
    return caught.value


@pytest.fixture
def greeting(tmp_path: Path) -> Path:
    path = tmp_path / "greeting.py"
    path.write_text(GREETING)
    return path


def test_is_a_tool_with_a_json_schema() -> None:
    tool = EditTool()
    assert isinstance(tool, Tool)
    assert tool.name == "edit"
    assert tool.parameters["required"] == ["path"]
    assert set(tool.parameters["properties"]) == {
        "path",
        "old_text",
        "new_text",
        "expected_replacements",
        "edits",
    }
    tool.parameters["properties"].clear()
    assert "edits" in tool.parameters["properties"]


def test_observation_names_stage_and_shows_numbered_snippet(tmp_path: Path, greeting: Path) -> None:
    out = _edit(
        tmp_path,
        path="greeting.py",
        old_text="    def greet(name):\n        print('hi', name)",
        new_text="    def greet(name):\n        print('hello', name)",
    )
    assert out.text.startswith(
        "Edited greeting.py: 1 replacement (stage: indentation_flexible); "
        "1 line added, 1 deleted.\n"
    )
    assert "     2\t    print('hello', name)" in out.text
    assert greeting.read_text() == GREETING.replace("'hi'", "'hello'")


def test_metadata_counts_lines(tmp_path: Path, greeting: Path) -> None:
    out = _edit(
        tmp_path,
        path="greeting.py",
        old_text="    return name\n",
        new_text="    name = name.title()\n    return name\n",
    )
    assert out.metadata == {
        "path": "greeting.py",
        "stage": "exact",
        "stages": ["exact"],
        "edits": 1,
        "replacements": 1,
        "lines_added": 1,
        "lines_deleted": 0,
        "large_deletion": False,
        "similarity": 1.0,
    }


@pytest.mark.parametrize(("deleted", "flagged"), [(19, False), (20, True)], ids=["19", "20"])
def test_large_deletion_flag(tmp_path: Path, deleted: int, flagged: bool) -> None:
    body = "".join(f"value_{i} = {i}\n" for i in range(30))
    (tmp_path / "big.py").write_text(body)
    old = "".join(f"value_{i} = {i}\n" for i in range(5, 5 + deleted))
    out = _edit(tmp_path, path="big.py", old_text=old, new_text="")
    assert out.metadata["lines_deleted"] == deleted
    assert out.metadata["large_deletion"] is flagged
    assert ("Note: this edit deleted" in out.text) is flagged


def test_multi_edit_reports_every_stage_and_region(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("".join(f"line_{i} = {i}\n" for i in range(40)))
    out = _edit(
        tmp_path,
        path="m.py",
        edits=[
            {"old_text": "line_3 = 3", "new_text": "line_3 = 33"},
            {"old_text": "line_30 = 30  \n", "new_text": "line_30 = 300\n"},
        ],
    )
    assert out.metadata["stages"] == ["exact", "line_endings_trailing_ws"]
    assert out.metadata["stage"] == "line_endings_trailing_ws"
    assert out.metadata["replacements"] == 2
    assert "2 edits, 2 replacements (stages: exact, line_endings_trailing_ws)" in out.text
    assert "     4\tline_3 = 33" in out.text
    assert "    31\tline_30 = 300" in out.text


def test_multi_edit_snippet_follows_earlier_regions(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("".join(f"line_{i} = {i}\n" for i in range(40)))
    out = _edit(
        tmp_path,
        path="m.py",
        edits=[
            {"old_text": "line_30 = 30\n", "new_text": "line_30 = 30\nextra = 1\n"},
            {"old_text": "line_1 = 1\n", "new_text": "a = 1\nb = 2\nc = 3\n"},
        ],
    )
    assert "    34\textra = 1" in out.text
    assert "     2\ta = 1" in out.text


def test_fuzzy_stage_is_off_by_default(tmp_path: Path, greeting: Path) -> None:
    error = _refused(
        tmp_path, path="greeting.py", old_text="    prnt('hi', name)\n", new_text="    pass\n"
    )
    assert error.error_type == "no_match"
    assert "fuzzy" not in str(error)
    assert greeting.read_text() == GREETING


def test_fuzzy_stage_when_enabled(tmp_path: Path, greeting: Path) -> None:
    out = _edit(
        tmp_path,
        EditTool(fuzzy_threshold=0.9),
        path="greeting.py",
        old_text="    prnt('hi', name)\n    return name\n",
        new_text="    print('hey', name)\n    return name\n",
    )
    assert out.metadata["stage"] == "fuzzy"
    assert 0.9 <= out.metadata["similarity"] < 1.0
    assert "(stage: fuzzy, 9" in out.text
    assert greeting.read_text() == GREETING.replace("'hi'", "'hey'")


def test_fuzzy_stage_refuses_two_similar_places(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("total = price * 2\nother = 1\ntotal = price * 3\n")
    error = _refused(
        tmp_path,
        EditTool(fuzzy_threshold=0.8),
        path="f.py",
        old_text="total = price * 4\n",
        new_text="total = 0\n",
    )
    assert error.error_type == "ambiguous_match"
    assert "stage: fuzzy" in str(error)
    assert "lines 1, 3" in str(error)


@pytest.mark.parametrize("threshold", [0.0, 1.5, -0.1], ids=["zero", "above_one", "negative"])
def test_fuzzy_threshold_must_be_a_fraction(threshold: float) -> None:
    with pytest.raises(ValueError, match="fuzzy_threshold"):
        EditTool(fuzzy_threshold=threshold)


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"old_text": "a", "new_text": "b", "file_path": "x"}, "unknown argument(s) 'file_path'"),
        ({"old_text": "a", "new_text": "b", "edits": []}, "not both"),
        ({"edits": []}, "non-empty list"),
        ({"edits": ["a"]}, "edits[0] must be an object"),
        ({"edits": [{"old_text": "a", "new": "b"}]}, "unknown key(s) 'new' in edits[0]"),
        ({"edits": [{"old_text": "a"}]}, "'edits[0].new_text' is required"),
        ({"old_text": 3, "new_text": "b"}, "'old_text' must be a string, got int"),
        ({"new_text": "b"}, "'old_text' is required"),
        ({"old_text": "a", "new_text": "b", "expected_replacements": 0}, "positive integer"),
        ({"old_text": "a", "new_text": "b", "expected_replacements": True}, "positive integer"),
        ({"old_text": "a", "new_text": "b", "expected_replacements": "2"}, "positive integer"),
        ({"old_text": "  \n ", "new_text": "b"}, "only whitespace"),
    ],
    ids=[
        "unknown_argument",
        "edits_and_old_text",
        "empty_edits",
        "edit_not_object",
        "edit_unknown_key",
        "edit_missing_new_text",
        "old_text_not_string",
        "old_text_missing",
        "zero_replacements",
        "bool_replacements",
        "string_replacements",
        "whitespace_old_text",
    ],
)
def test_invalid_arguments(
    tmp_path: Path, greeting: Path, arguments: dict[str, Any], says: str
) -> None:
    error = _refused(tmp_path, path="greeting.py", **arguments)
    assert error.error_type == "invalid_arguments"
    assert says in str(error)
    assert greeting.read_text() == GREETING


def test_missing_file_points_to_write(tmp_path: Path) -> None:
    error = _refused(tmp_path, path="nope.py", old_text="a", new_text="b")
    assert error.error_type == "file_not_found"
    assert "write tool" in str(error)


def test_directory_refused(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    error = _refused(tmp_path, path="pkg", old_text="a", new_text="b")
    assert error.error_type == "is_directory"


def test_file_over_size_limit_refused(tmp_path: Path, greeting: Path) -> None:
    error = _refused(
        tmp_path, EditTool(max_bytes=10), path="greeting.py", old_text="a", new_text="b"
    )
    assert error.error_type == "file_too_large"


def test_change_that_only_adapts_is_refused(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"a = 1\r\nb = 2\r\n")
    error = _refused(tmp_path, path="w.txt", old_text="a = 1\n", new_text="a = 1\r\n")
    assert error.error_type == "no_change"
    assert (tmp_path / "w.txt").read_bytes() == b"a = 1\r\nb = 2\r\n"


@pytest.mark.parametrize(
    "path", ["../outside.py", "sub/../../outside.py"], ids=["dotdot", "nested_dotdot"]
)
def test_paths_escaping_with_dotdot_refused(tmp_path: Path, path: str) -> None:
    workdir = tmp_path / "work"
    (workdir / "sub").mkdir(parents=True)
    (tmp_path / "outside.py").write_text("x = 1\n")
    error = _refused(workdir, path=path, old_text="x = 1", new_text="x = 2")
    assert error.error_type == "path_outside_workdir"
    assert (tmp_path / "outside.py").read_text() == "x = 1\n"


def test_absolute_path_outside_refused(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    outside = tmp_path / "outside.py"
    outside.write_text("x = 1\n")
    error = _refused(workdir, path=str(outside), old_text="x = 1", new_text="x = 2")
    assert error.error_type == "path_outside_workdir"
    assert outside.read_text() == "x = 1\n"


def test_absolute_path_inside_allowed(tmp_path: Path, greeting: Path) -> None:
    out = _edit(tmp_path, path=str(greeting), old_text="'hi'", new_text="'yo'")
    assert out.metadata["path"] == "greeting.py"


def test_symlink_to_outside_refused(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    outside = tmp_path / "secret.py"
    outside.write_text("x = 1\n")
    (workdir / "link.py").symlink_to(outside)
    error = _refused(workdir, path="link.py", old_text="x = 1", new_text="x = 2")
    assert error.error_type == "path_outside_workdir"
    assert outside.read_text() == "x = 1\n"


def test_symlink_inside_edits_target_and_keeps_link(tmp_path: Path, greeting: Path) -> None:
    (tmp_path / "alias.py").symlink_to(greeting)
    _edit(tmp_path, path="alias.py", old_text="'hi'", new_text="'yo'")
    assert (tmp_path / "alias.py").is_symlink()
    assert "'yo'" in greeting.read_text()


def test_keeps_file_mode_and_leaves_no_temp_files(tmp_path: Path, greeting: Path) -> None:
    greeting.chmod(0o750)
    _edit(tmp_path, path="greeting.py", old_text="'hi'", new_text="'yo'")
    assert stat.S_IMODE(os.stat(greeting).st_mode) == 0o750
    assert sorted(p.name for p in tmp_path.iterdir()) == ["greeting.py"]


def test_plan_does_not_write(tmp_path: Path, greeting: Path) -> None:
    tool = EditTool()
    plan = tool.plan(
        ToolInput(
            arguments={"path": "greeting.py", "old_text": "    return name\n", "new_text": ""},
            workdir=tmp_path,
        )
    )
    assert plan.lines_deleted == 1
    assert plan.updated == "def greet(name):\n    print('hi', name)\n"
    assert greeting.read_text() == GREETING


def test_errors_become_error_observations_through_run_tool(tmp_path: Path, greeting: Path) -> None:
    arguments = {"path": "greeting.py", "old_text": "absent text", "new_text": "x"}
    ctx = ToolExecutionContext(
        tool_call=ToolCall(name="edit", arguments=arguments),
        tool=EditTool(),
        tool_input=ToolInput(arguments=arguments, workdir=tmp_path),
    )
    result = run_tool(ctx)
    assert result.is_error
    assert result.error_type == "no_match"
    assert result.observation.startswith("Error: old_text was not found in greeting.py")
