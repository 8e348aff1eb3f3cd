"""What a shell command writes: recursive copies are judged file by file, on real trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.approval._risk import DefaultRiskPolicy, RiskVerdict
from harness.approval._risk_readonly import NOT_READ_ONLY
from harness.approval._risk_writes import CwdTracker, TreeTooBig, copied_tree_targets
from harness.shell import resolve_commands

SENSITIVE = "shell command writes to sensitive file"


@pytest.fixture
def trees(tmp_path: Path) -> Path:
    (tmp_path / "work").mkdir()
    evil = tmp_path / "evil"
    (evil / ".github" / "workflows").mkdir(parents=True)
    (evil / ".github" / "workflows" / "ci.yml").write_text("on: push\n")
    (evil / "ok.txt").write_text("x\n")
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "a.py").write_text("x\n")
    return tmp_path


def judge(command: str, root: Path) -> tuple[RiskVerdict, tuple[str, ...]]:
    decision = DefaultRiskPolicy().evaluate_call(
        "bash", {"command": command}, workdir=root / "work"
    )
    return decision.verdict, decision.reasons


@pytest.mark.parametrize(
    "command",
    ["cp -r ../evil/. .", "cp -a ../evil .", "rsync -a ../evil/ ./", "mv ../evil sub",
     "cd sub && cp -R ../../evil/. .."],
    ids=["cp-r-contents", "cp-a-directory", "rsync-trailing-slash", "mv-directory", "after-cd"],
)  # fmt: skip
def test_a_copied_tree_holding_a_sensitive_file_needs_approval(command: str, trees: Path) -> None:
    verdict, reasons = judge(command, trees)

    assert verdict is RiskVerdict.APPROVAL_REQUIRED
    assert any(SENSITIVE in r and "ci.yml" in r and "CI workflow" in r for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    ["cp -r ../plain .", "rsync -a ../plain/ build/", "cp ../plain/a.py b.py"],
    ids=["cp-r", "rsync", "cp-file"],
)
def test_a_copied_tree_of_plain_files_trips_no_write_rule(command: str, trees: Path) -> None:
    verdict, reasons = judge(command, trees)

    # It asks only because a copy is not read-only (the unsandboxed path fails closed).
    assert verdict is RiskVerdict.APPROVAL_REQUIRED
    assert all(r.startswith(NOT_READ_ONLY) for r in reasons), reasons


def test_a_tree_too_big_to_walk_is_not_judged_file_by_file(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.mkdir()
    for index in range(6):
        (big / f"f{index}").touch()
    (command,) = resolve_commands("cp -r big out")
    cwd = CwdTracker(tmp_path)

    assert len(copied_tree_targets(command, cwd, max_entries=6)) == 12
    with pytest.raises(TreeTooBig):
        copied_tree_targets(command, cwd, max_entries=5)
