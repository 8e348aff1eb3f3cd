"""Where ``harness eval`` keeps a run's scratch folder: a roomy tmpfs, or what the user says."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness.core import ConfigurationError
from harness.evals import run_evals
from harness.evals.scratch import SCRATCH_VARIABLE, scratch_parent


def _mounts(tmp_path: Path, *lines: str) -> Path:
    table = tmp_path / "mounts"
    table.write_text("".join(line + "\n" for line in lines), "utf-8")
    return table


@pytest.fixture
def ram_disk(tmp_path: Path) -> Path:
    folder = tmp_path / "shm"
    folder.mkdir()
    return folder


def test_a_roomy_writable_tmpfs_holds_the_scratch(tmp_path: Path, ram_disk: Path) -> None:
    mounts = _mounts(tmp_path, "/dev/vda / ext4 rw 0 0", f"tmpfs {ram_disk} tmpfs rw 0 0")
    assert scratch_parent({}, ram_disk=ram_disk, mounts=mounts, min_free=1) == ram_disk


@pytest.mark.parametrize(
    "lines",
    [
        pytest.param(["/dev/vda {disk} ext4 rw 0 0"], id="not-tmpfs"),
        pytest.param(["tmpfs {disk} tmpfs rw 0 0", "/dev/vdb {disk} ext4 rw 0 0"], id="covered"),
        pytest.param(["/dev/vda / ext4 rw 0 0"], id="not-a-mount"),
        pytest.param(["garbage", ""], id="unparsable"),
    ],
)
def test_anything_but_a_tmpfs_mounted_there_keeps_the_system_temp(
    tmp_path: Path, ram_disk: Path, lines: list[str]
) -> None:
    mounts = _mounts(tmp_path, *(line.format(disk=ram_disk) for line in lines))
    assert scratch_parent({}, ram_disk=ram_disk, mounts=mounts, min_free=1) is None


def test_a_small_or_unreadable_ram_disk_keeps_the_system_temp(
    tmp_path: Path, ram_disk: Path
) -> None:
    mounts = _mounts(tmp_path, f"tmpfs {ram_disk} tmpfs rw 0 0")
    free = os.statvfs(ram_disk).f_bavail * os.statvfs(ram_disk).f_frsize
    assert scratch_parent({}, ram_disk=ram_disk, mounts=mounts, min_free=free * 2 + 1) is None
    assert scratch_parent({}, ram_disk=ram_disk, mounts=tmp_path / "gone", min_free=1) is None
    assert scratch_parent({}, ram_disk=tmp_path / "nope", mounts=mounts, min_free=1) is None


def test_the_users_choice_wins(tmp_path: Path, ram_disk: Path) -> None:
    mounts = _mounts(tmp_path, f"tmpfs {ram_disk} tmpfs rw 0 0")
    chosen = tmp_path / "mine"
    chosen.mkdir()
    env = {SCRATCH_VARIABLE: str(chosen), "TMPDIR": "/elsewhere"}
    assert scratch_parent(env, ram_disk=ram_disk, mounts=mounts, min_free=1) == chosen
    # TMPDIR set: the user picked the temp folder; tempfile honours it.
    assert scratch_parent({"TMPDIR": "/x"}, ram_disk=ram_disk, mounts=mounts, min_free=1) is None


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_a_scratch_variable_that_names_no_folder_is_a_clear_error(
    tmp_path: Path, kind: str
) -> None:
    target = tmp_path / "scratch"
    if kind == "file":
        target.write_text("x", "utf-8")
    what = "does not exist" if kind == "missing" else "is not a writable folder"
    with pytest.raises(ConfigurationError, match=rf"{SCRATCH_VARIABLE}=.*{what}.*or unset it"):
        scratch_parent({SCRATCH_VARIABLE: str(target)})


EVAL = """
import os
from pathlib import Path

import pytest


@pytest.mark.eval
def test_where(tmp_path):
    Path(os.environ["WHERE_FILE"]).write_text(str(tmp_path))
"""


def test_an_eval_run_makes_its_scratch_there_and_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, scratch = tmp_path / "project", tmp_path / "scratch"
    (project / "evals").mkdir(parents=True)
    scratch.mkdir()
    (project / "evals" / "test_where.py").write_text(EVAL, "utf-8")
    where = tmp_path / "where.txt"
    monkeypatch.setenv("WHERE_FILE", str(where))
    monkeypatch.setenv(SCRATCH_VARIABLE, str(scratch))
    run = run_evals(["-q", "-p", "no:randomly"], cwd=project, report_path=tmp_path / "r.json")
    assert run.ok, run
    assert Path(where.read_text()).is_relative_to(scratch)
    assert list(scratch.iterdir()) == []  # the run's folder went with the run
