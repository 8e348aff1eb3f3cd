"""The index reader against git's own: every index version git writes, read to the same blobs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.effects._gitindex import index_hashes
from tests.effects.conftest import GIT_ENV


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
    return done.stdout.decode()


@pytest.mark.parametrize("version", [2, 3, 4])
def test_the_index_reader_finds_the_blobs_git_lists(tmp_path: Path, version: int) -> None:
    _git(tmp_path, "init", "-q")
    for index in range(40):
        folder = tmp_path / f"d{index % 3}" / ("x" * (index % 17))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file-{index}.txt").write_text(f"content {index}\n")
    _git(tmp_path, "add", "-A")
    if version > 2:
        (tmp_path / "intent.txt").write_text("later\n")
        _git(tmp_path, "add", "-N", "intent.txt")  # an extended flag (version 3 and up)
    _git(tmp_path, "update-index", "--index-version", str(version))
    data = (tmp_path / ".git" / "index").read_bytes()
    listed = {line.split()[1] for line in _git(tmp_path, "ls-files", "-s").splitlines()}

    assert int.from_bytes(data[4:8], "big") == version
    assert index_hashes(data) == listed


@pytest.mark.parametrize(
    "data", [b"", b"DIRC", b"DIRC\0\0\0\x09\0\0\0\0", b"DIRC\0\0\0\x02\0\0\0\x05" + b"\0" * 20]
)
def test_an_index_it_cannot_read_is_none(data: bytes) -> None:
    assert index_hashes(data) is None
