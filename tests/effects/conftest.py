"""A template workdir (a git repo with history, a dirty file, a feature branch) copied per test."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness.tools.sandbox import choose_sandbox

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}

DATA_LINES = 30


def _git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    )


def build_template(root: Path) -> Path:
    work = root / "template"
    work.mkdir()
    (work / "data.txt").write_text("".join(f"record {i}\n" for i in range(DATA_LINES)))
    (work / "notes.md").write_text("# notes\nkeep me\n")
    (work / "wip.txt").write_text("committed line\n")
    (work / "script.sh").write_text("#!/bin/sh\necho hi\n")
    (work / "env").mkdir()
    (work / "env" / "keep.txt").write_text("inside a folder\n")
    (work / "tests").mkdir()
    (work / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    (work / "blob.bin").write_bytes(bytes(range(256)) * 4)
    _git(work, "init", "-q", "-b", "main")
    _git(work, "config", "user.name", "t")
    _git(work, "config", "user.email", "t@example.invalid")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "first")
    (work / "data.txt").write_text((work / "data.txt").read_text())
    _git(work, "commit", "-q", "--allow-empty", "-m", "second")
    _git(work, "checkout", "-q", "-b", "feature")
    (work / "feature.txt").write_text("only on the feature branch\n")
    _git(work, "add", "feature.txt")
    _git(work, "commit", "-qm", "feature work")
    _git(work, "checkout", "-q", "main")
    (work / "notes.md").write_text("# notes\nkeep me\nthird\n")
    _git(work, "commit", "-qam", "third: only on main")
    (work / "local.cfg").write_text("untracked, never committed\n")
    # Uncommitted work: lost by anything that resets the tree to the index.
    (work / "wip.txt").write_text("committed line\n" + "".join(f"draft {i}\n" for i in range(30)))
    return work


@pytest.fixture(scope="session")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not choose_sandbox("auto").overlay:
        pytest.skip("bwrap cannot mount an overlay here")
    return build_template(tmp_path_factory.mktemp("effects"))


@pytest.fixture
def workdir(template: Path, tmp_path: Path) -> Path:
    target = tmp_path / "work"
    shutil.copytree(template, target, symlinks=True)
    return target


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes (symlinks as their target), except the state dir."""
    found: dict[str, bytes] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".harness"]
        for name in files:
            path = Path(folder) / name
            rel = path.relative_to(root).as_posix()
            found[rel] = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
    return found


CopyWorkdir = Callable[[Path], Path]
