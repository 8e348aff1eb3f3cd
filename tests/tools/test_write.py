"""The write tool: modes, atomic replacement, arguments and confinement."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from harness.core import ToolError
from harness.tools import Tool, ToolInput, ToolOutput
from harness.tools.builtin._file_io import atomic_write, decode_utf8, is_binary
from harness.tools.builtin._write import WriteTool
from harness.tools.paths import FileScope


def _write(workdir: Path, tool: WriteTool | None = None, **arguments: Any) -> ToolOutput:
    return (tool or WriteTool()).run(ToolInput(arguments=arguments, workdir=workdir))


def _refused(workdir: Path, tool: WriteTool | None = None, **arguments: Any) -> ToolError:
    with pytest.raises(ToolError) as caught:
        _write(workdir, tool, **arguments)
    return caught.value


def test_is_a_tool_with_a_json_schema() -> None:
    tool = WriteTool()
    assert isinstance(tool, Tool)
    assert tool.name == "write"
    assert tool.parameters["required"] == ["path", "content"]
    assert tool.parameters["properties"]["mode"]["enum"] == ["create", "overwrite", "append"]


def test_create_reports_bytes_and_lines_and_makes_parents(tmp_path: Path) -> None:
    out = _write(tmp_path, path="notes/a.txt", content="hello world\n")
    assert out.text == "Wrote 12 bytes (1 line) to notes/a.txt (created)"
    assert (tmp_path / "notes" / "a.txt").read_bytes() == b"hello world\n"
    assert out.metadata["outcome"] == "created"
    assert out.metadata["bytes_written"] == 12


@pytest.mark.parametrize(
    ("content", "summary"),
    [
        ("", "0 bytes (0 lines)"),
        ("x", "1 byte (1 line)"),
        ("a\nb", "3 bytes (2 lines)"),
        ("a\r\nb\r\n", "6 bytes (2 lines)"),
        ("é\n", "3 bytes (1 line)"),
    ],
    ids=["empty", "one_byte", "no_final_newline", "crlf", "multibyte"],
)
def test_counts_utf8_bytes_and_lines(tmp_path: Path, content: str, summary: str) -> None:
    out = _write(tmp_path, path="f.txt", content=content)
    assert out.text == f"Wrote {summary} to f.txt (created)"
    assert (tmp_path / "f.txt").read_bytes() == content.encode()


def test_create_refuses_existing_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("keep\n")
    error = _refused(tmp_path, path="a.txt", content="new\n")
    assert error.error_type == "file_exists"
    assert "mode='overwrite'" in str(error) and "edit tool" in str(error)
    assert (tmp_path / "a.txt").read_text() == "keep\n"


def test_overwrite_replaces_and_keeps_mode(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("echo old\n")
    target.chmod(0o751)
    out = _write(tmp_path, path="run.sh", content="echo new\n", mode="overwrite")
    assert out.text == "Wrote 9 bytes (1 line) to run.sh (overwritten)"
    assert target.read_text() == "echo new\n"
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o751
    assert [p.name for p in tmp_path.iterdir()] == ["run.sh"]


def test_overwrite_creates_missing_file(tmp_path: Path) -> None:
    out = _write(tmp_path, path="new.txt", content="x\n", mode="overwrite")
    assert out.text.endswith("(created)")


def test_new_file_gets_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        _write(tmp_path, path="n.txt", content="x")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "n.txt").st_mode) == 0o644


def test_append_adds_to_the_end(tmp_path: Path) -> None:
    target = tmp_path / "log.txt"
    target.write_bytes(b"one\r\n")
    out = _write(tmp_path, path="log.txt", content="two\r\n", mode="append")
    assert out.text == "Wrote 5 bytes (1 line) to log.txt (appended)"
    assert target.read_bytes() == b"one\r\ntwo\r\n"
    assert out.metadata["file_bytes"] == 10


def test_append_notes_missing_final_newline(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("one")
    out = _write(tmp_path, path="log.txt", content="two\n", mode="append")
    assert (tmp_path / "log.txt").read_text() == "onetwo\n"
    assert "did not end with a newline" in out.text


def test_append_to_missing_file_creates_it(tmp_path: Path) -> None:
    out = _write(tmp_path, path="logs/new.txt", content="x\n", mode="append")
    assert out.text.endswith("(created)")
    assert (tmp_path / "logs" / "new.txt").read_text() == "x\n"


@pytest.mark.parametrize(
    ("data", "error_type"),
    [(b"caf\xe9\n", "not_utf8"), (b"\x00\x01\x02", "binary_file")],
    ids=["latin1", "binary"],
)
def test_append_refuses_non_utf8_files(tmp_path: Path, data: bytes, error_type: str) -> None:
    (tmp_path / "f.dat").write_bytes(data)
    error = _refused(tmp_path, path="f.dat", content="more\n", mode="append")
    assert error.error_type == error_type
    assert (tmp_path / "f.dat").read_bytes() == data


@pytest.mark.parametrize("mode", ["create", "overwrite", "append"])
def test_refuses_directory(tmp_path: Path, mode: str) -> None:
    (tmp_path / "pkg").mkdir()
    error = _refused(tmp_path, path="pkg", content="x", mode=mode)
    assert error.error_type == "is_directory"


def test_refuses_path_naming_a_folder(tmp_path: Path) -> None:
    error = _refused(tmp_path, path="notes/", content="x")
    assert error.error_type == "is_directory"
    assert list(tmp_path.iterdir()) == []


def test_refuses_workdir_itself(tmp_path: Path) -> None:
    error = _refused(tmp_path, path=".", content="x", mode="overwrite")
    assert error.error_type == "is_directory"


def test_refuses_parent_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("file\n")
    error = _refused(tmp_path, path="a/b.txt", content="x")
    assert error.error_type == "not_a_directory"


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"path": "a.txt"}, "'content' is required"),
        ({"path": "a.txt", "content": 5}, "'content' must be a string, got int"),
        ({"path": "a.txt", "content": None}, "'content' must be a string, got NoneType"),
        ({"path": "a.txt", "content": "x", "mode": "replace"}, "'mode' must be one of"),
        ({"path": "a.txt", "content": "x", "mode": 1}, "'mode' must be one of"),
        ({"path": "a.txt", "content": "x", "text": "y"}, "unknown argument(s) 'text'"),
        ({"path": "", "content": "x"}, "'path' must be a non-empty string"),
        ({"path": 7, "content": "x"}, "'path' must be a non-empty string"),
        ({"path": "a.txt", "content": "\ud800"}, "lone surrogate"),
    ],
    ids=[
        "missing_content",
        "int_content",
        "none_content",
        "bad_mode",
        "int_mode",
        "unknown_argument",
        "empty_path",
        "int_path",
        "surrogate",
    ],
)
def test_invalid_arguments(tmp_path: Path, arguments: dict[str, Any], says: str) -> None:
    error = _refused(tmp_path, **arguments)
    assert error.error_type == "invalid_arguments"
    assert says in str(error)
    assert list(tmp_path.iterdir()) == []


def test_content_over_limit_refused(tmp_path: Path) -> None:
    error = _refused(tmp_path, WriteTool(max_bytes=4), path="a.txt", content="12345")
    assert error.error_type == "invalid_arguments"
    assert "over the limit of 4 bytes" in str(error)


@pytest.mark.parametrize(
    "path", ["../outside.txt", "sub/../../outside.txt"], ids=["dotdot", "nested_dotdot"]
)
def test_paths_escaping_with_dotdot_refused(tmp_path: Path, path: str) -> None:
    workdir = tmp_path / "work"
    (workdir / "sub").mkdir(parents=True)
    error = _refused(workdir, path=path, content="x")
    assert error.error_type == "path_outside_workdir"
    assert not (tmp_path / "outside.txt").exists()


def test_absolute_path_outside_refused(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    error = _refused(workdir, path=str(tmp_path / "outside.txt"), content="x")
    assert error.error_type == "path_outside_workdir"
    assert not (tmp_path / "outside.txt").exists()


@pytest.mark.parametrize("mode", ["create", "overwrite", "append"])
def test_symlink_to_outside_refused(tmp_path: Path, mode: str) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("secret\n")
    (workdir / "link.txt").symlink_to(outside)
    error = _refused(workdir, path="link.txt", content="x", mode=mode)
    assert error.error_type == "path_outside_workdir"
    assert outside.read_text() == "secret\n"


def test_symlinked_folder_to_outside_refused(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (workdir / "out").symlink_to(tmp_path / "elsewhere")
    error = _refused(workdir, path="out/new.txt", content="x")
    assert error.error_type == "path_outside_workdir"
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_refused_replace_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "busy"
    (target / "inner").mkdir(parents=True)
    with pytest.raises(ToolError) as caught:
        atomic_write(FileScope.of(tmp_path), target, b"data")
    assert caught.value.error_type == "is_directory"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["busy"]


def test_failed_write_leaves_no_temp_file(tmp_path: Path) -> None:
    # A real failure after the temp file was created: the name appears between
    # the check and the exclusive link, as a concurrent writer would make it.
    scope = FileScope.of(tmp_path)
    real_link = os.link

    def racing_link(*args: Any, **kwargs: Any) -> None:
        (tmp_path / "a.txt").write_text("theirs")
        real_link(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "link", racing_link)
        with pytest.raises(ToolError) as caught:
            atomic_write(scope, tmp_path / "a.txt", b"ours", exclusive=True)
    assert caught.value.error_type == "file_exists"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert (tmp_path / "a.txt").read_text() == "theirs"


@pytest.mark.parametrize(
    ("data", "binary"),
    [(b"", False), (b"text\n", False), (b"\x00", True), (b"a" * 8192 + b"\x00", False)],
    ids=["empty", "text", "nul", "nul_after_probe"],
)
def test_binary_detection_probes_first_8_kib(data: bytes, binary: bool) -> None:
    assert is_binary(data) is binary


def test_decode_names_the_bad_byte_and_line() -> None:
    with pytest.raises(ToolError, match=r"not valid UTF-8 \(byte 5, line 2\)"):
        decode_utf8(b"ok\nab\xff\n", "f.txt")
