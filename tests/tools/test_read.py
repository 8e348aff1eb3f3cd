"""The read tool: numbering, windows, limits and confinement."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.core import ToolError
from harness.tools import ToolInput
from harness.tools.builtin import ReadTool


def _read(workdir: Path, **arguments: object) -> str:
    return ReadTool(max_bytes=10_000).run(ToolInput(arguments=dict(arguments), workdir=workdir))


def test_numbers_lines(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    assert _read(tmp_path, path="a.txt") == "     1\tone\n     2\ttwo\n     3\tthree"


def test_offset_and_limit_page_through(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    out = _read(tmp_path, path="a.txt", offset=4, limit=2)
    assert out.splitlines()[:2] == ["     4\tline 4", "     5\tline 5"]
    assert "read more with offset=6" in out


@pytest.mark.parametrize(
    ("setup", "path", "error_type"),
    [
        ("none", "../x", "path_outside_workdir"),
        ("none", "/etc/passwd", "path_outside_workdir"),
        ("symlink", "link.txt", "path_outside_workdir"),
        ("none", "missing.txt", "file_not_found"),
        ("binary", "b.bin", "binary_file"),
        ("big", "big.txt", "file_too_large"),
        ("latin1", "l.txt", "not_utf8"),
        ("dir", "sub", "is_directory"),
    ],
    ids=[
        "dotdot",
        "absolute-outside",
        "symlink-outside",
        "missing",
        "binary",
        "too-big",
        "not-utf8",
        "directory",
    ],
)
def test_refusals(tmp_path: Path, setup: str, path: str, error_type: str) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret")
    if setup == "symlink":
        os.symlink(outside, workdir / "link.txt")
    elif setup == "binary":
        (workdir / "b.bin").write_bytes(b"\x00\x01\x02")
    elif setup == "big":
        (workdir / "big.txt").write_text("x" * 20_000)
    elif setup == "latin1":
        (workdir / "l.txt").write_bytes("café".encode("latin-1"))
    elif setup == "dir":
        (workdir / "sub").mkdir()
    with pytest.raises(ToolError) as info:
        _read(workdir, path=path)
    assert info.value.error_type == error_type
    assert "top secret" not in str(info.value)


def test_symlink_inside_workdir_is_fine(tmp_path: Path) -> None:
    (tmp_path / "real.txt").write_text("hello\n")
    os.symlink(tmp_path / "real.txt", tmp_path / "alias.txt")
    assert _read(tmp_path, path="alias.txt") == "     1\thello"


@pytest.mark.parametrize("offset", [0, -1, "2", True], ids=["zero", "negative", "string", "bool"])
def test_bad_offset(tmp_path: Path, offset: object) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    with pytest.raises(ToolError, match="offset"):
        _read(tmp_path, path="a.txt", offset=offset)
