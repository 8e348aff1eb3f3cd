"""Information loss is the rule: bytes destroyed, ``.git`` judged as a store, code that runs later.

Each bash row runs for real over an overlay of a copy of the template workdir
(``conftest.build_template``) after its setup ran on the copy itself, and its
changeset is judged by the effect policy; ``write`` and ``edit`` are judged as
the approval gate judges them, by the one-file changeset they would make.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from harness.approval._risk import DefaultRiskPolicy
from harness.core.errors import ConfigurationError
from harness.effects import DEFER_KEY, LAYER_KEY, EffectDecision, EffectPolicy, Layer, layer_reader
from harness.effects._codepaths import CodePaths
from harness.settings import Settings
from harness.tools._protocol import ToolInput
from harness.tools.builtin._bash import BashTool
from tests.effects.conftest import GIT_ENV, snapshot

PAUSE, FREE = "pause", "free"
BIG_LINE = "x" * 100_000 + "\n"

# (id, setup run on the real copy first, the agent's command, verdict)
ROWS = [
    ("one-line-file-replaced", "python3 -c \"open('big.txt','w').write('x'*100000)\"; "
     "git add big.txt; git commit -qm big", "echo small > big.txt", PAUSE),
    ("pack-truncated", "git gc -q",
     "for f in .git/objects/pack/*.pack; do chmod u+w $f; truncate -s 64 $f; done", PAUSE),
    ("rm-modules", "mkdir -p .git/modules/sub/objects/ab && head -c 300 /dev/urandom > "
     ".git/modules/sub/objects/ab/cdef && cp .git/HEAD .git/modules/sub/HEAD",
     "rm -rf .git/modules", PAUSE),
    ("rm-logs", "", "rm -rf .git/logs", PAUSE),
    ("mv-into-git", "printf 'a=1\\n' > notes.ini", "mv notes.ini .git/x", PAUSE),
    ("rm-file-in-git", "printf 'a=1\\n' > .git/x", "rm .git/x", PAUSE),
    ("commondir", "", "cp -r .git copied && git config -f copied/config core.fsmonitor "
     "'touch /tmp/pwned' && echo ../copied > .git/commondir", PAUSE),
    ("junk-in-refs", "printf 'a=1\\n' > .git/refs/notes.ini", "rm .git/refs/notes.ini", PAUSE),
    ("module-info", "mkdir -p .git/modules/sub/info", "echo '*' > .git/modules/sub/info/exclude",
     PAUSE),
    ("module-alternates", "", "mkdir -p .git/modules/s/objects/info && echo /tmp > "
     ".git/modules/s/objects/info/alternates", PAUSE),
    ("nested-commondir", "git init -q sub", "echo ../../.git > sub/.git/commondir", PAUSE),
    ("nested-config", "git init -q sub", "git -C sub config core.fsmonitor 'rm -rf ~'", PAUSE),
    ("gitfile", "", "mkdir -p vendor/lib && echo 'gitdir: /tmp/evil' > vendor/lib/.git", PAUSE),
    ("restore-staged",
     "printf 'staged work\\n' > s.txt && git add s.txt && printf 'later\\n' > s.txt",
     "git restore --staged s.txt", PAUSE),
    ("reset-soft-still-reachable", "git branch backup", "git reset -q --soft HEAD~1", PAUSE),
    ("branch-D-merged", "git branch merged", "git branch -q -D merged", PAUSE),
    ("checkout-dot", "", "git checkout -- .", PAUSE),
    ("restore-staged-worktree", "", "git restore --staged --worktree .", PAUSE),
    ("reset-hard-back", "", "git reset -q --hard HEAD~1", PAUSE),
    ("branch-D", "", "git branch -q -D feature", PAUSE),
    ("vscode-tasks", "", "mkdir -p .vscode && echo '{}' > .vscode/tasks.json", PAUSE),
    ("devcontainer", "", "mkdir -p .devcontainer && echo '{}' > .devcontainer/x.json", PAUSE),
    ("nested-workflow", "", "mkdir -p a/.github/workflows && echo 'on: push' > "
     "a/.github/workflows/ci.yml", PAUSE),
    ("nested-ref-back", "git init -q sub && echo x > sub/a && git -C sub add a && "
     "git -C sub commit -qm a && git -C sub commit -q --allow-empty -m b",
     "git -C sub reset -q --soft HEAD~1", PAUSE),
    ("git-commit", "", "git add -A && git commit -qm 'save wip'", FREE),
    ("git-status", "", "git status --short", FREE),
    ("git-add-again", "printf 'one\\n' > n.txt && git add n.txt", "git add -A", FREE),
    ("commit-nested", "git init -q sub && echo x > sub/a && git -C sub add a && "
     "git -C sub commit -qm a", "echo y >> sub/a && git -C sub commit -qam b", FREE),
    ("small-edit-of-long-line-file", f"printf '{'y' * 300}\\nlast\\n' > long.txt",
     "echo more >> long.txt", FREE),
]  # fmt: skip
DEFAULT_ROWS = {"one-line-file-replaced", "mv-into-git", "gitfile", "reset-soft-still-reachable",
                "git-commit", "restore-staged"}  # fmt: skip


def _sh(work: Path, script: str) -> None:
    if script:
        env = {**os.environ, **GIT_ENV}
        subprocess.run(["sh", "-c", script], cwd=work, check=True, capture_output=True, env=env)


def judge_bash(
    template: Path, base: Path, setup: str, command: str, policy: EffectPolicy | None = None
) -> EffectDecision | None:
    """Run ``command`` over an overlay of a set-up copy; the policy's decision (None: no change)."""
    import shutil

    work = base / "work"
    shutil.copytree(template, work, symlinks=True)
    _sh(work, setup)
    before = snapshot(work)
    tool = BashTool(state_dir=work / ".harness", key_dir=base / "key", sandbox="required")
    saved = {k: os.environ.get(k) for k in GIT_ENV}
    os.environ.update(GIT_ENV)
    try:
        out = tool.run(ToolInput({"command": command}, work, metadata={DEFER_KEY: True}))
    finally:
        for key, value in saved.items():
            os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)
    assert snapshot(work) == before, "the call changed the real workdir before any decision"
    root = out.metadata.get(LAYER_KEY)
    if root is None:
        return None
    layer = Layer(Path(root).name, Path(root))
    return (policy or EffectPolicy()).evaluate(
        layer.load_changeset(),
        work,
        layer_reader(layer.upper),
        objects=layer.upper / ".git" / "objects",
        upper=layer.upper,
    )


@pytest.mark.parametrize(
    ("case_id", "setup", "command", "verdict"),
    [
        pytest.param(*row, id=row[0], marks=() if row[0] in DEFAULT_ROWS else pytest.mark.deep)
        for row in ROWS
    ],
)
def test_a_bash_changeset_is_judged_by_what_it_loses(
    template: Path, tmp_path: Path, case_id: str, setup: str, command: str, verdict: str
) -> None:
    decision = judge_bash(template, tmp_path, setup, command)

    paused = decision is not None and decision.pause
    reasons = decision.reasons if decision else ()
    assert paused == (verdict == PAUSE), f"{case_id}: {command!r} -> {reasons}"


def test_the_detour_through_git_is_stopped_at_its_first_call(
    template: Path, tmp_path: Path
) -> None:
    decision = judge_bash(template, tmp_path, "printf 'a=1\\n' > notes.ini", "mv notes.ini .git/x")

    assert decision is not None
    # notes.ini leaves the worktree: the store's rules would let the next call delete it
    assert "moves notes.ini into the git store as .git/x (out of the worktree)" in decision.reasons


# With an undo journal: what it can restore applies, what it cannot still asks.
JOURNAL_ROWS = [
    ("rm-small-file", "rm data.txt", FREE),
    ("rewrite-small-file", "sed -i 's/record/entry/' data.txt", FREE),
    ("over-the-budget", "rm blob.bin", PAUSE),  # 1024 bytes
    ("rm-logs", "rm -rf .git/logs", PAUSE),
    ("branch-D", "git branch -q -D feature", PAUSE),
    ("workflow", "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml",
     PAUSE),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case_id", "command", "verdict"),
    [pytest.param(*row, id=row[0], marks=() if row[0] == "rm-small-file" else pytest.mark.deep)
     for row in JOURNAL_ROWS],
)  # fmt: skip
def test_with_an_undo_journal_only_what_it_cannot_restore_asks(
    template: Path, tmp_path: Path, case_id: str, command: str, verdict: str
) -> None:
    policy = EffectPolicy(undo_budget=1000)
    decision = judge_bash(template, tmp_path, "", command, policy)

    paused = decision is not None and decision.pause
    reasons = decision.reasons if decision else ()
    assert paused == (verdict == PAUSE), f"{case_id}: {command!r} -> {reasons}"


# --- write and edit, judged before they run ---------------------------------------------


def _write(
    work: Path, path: str, content: str, policy: DefaultRiskPolicy | None = None
) -> tuple[str, ...]:
    policy = policy or DefaultRiskPolicy()
    arguments = {"path": path, "content": content, "mode": "overwrite"}
    return policy.evaluate_call("write", arguments, workdir=work).reasons


def test_a_write_over_a_one_line_file_of_any_size_needs_approval(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(BIG_LINE)

    reasons = _write(tmp_path, "big.txt", "small\n")

    assert reasons == (
        "large loss: overwrites or deletes 100000 bytes of existing content (big.txt 100000) "
        "(threshold 128 bytes)",
    )


def test_an_edit_of_a_one_line_file_is_judged_by_the_bytes_it_replaces(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text(BIG_LINE)
    policy = DefaultRiskPolicy()
    arguments = {"path": "big.txt", "old_text": "x" * 1000, "new_text": "y"}

    decision = policy.evaluate_call(
        "edit", arguments, workdir=tmp_path, new_text="y" + BIG_LINE[1000:]
    )

    assert len(decision.reasons) == 1
    assert decision.reasons[0].startswith("large loss: overwrites or deletes 1000 bytes")


@pytest.mark.parametrize(
    ("path", "needs"),
    [(".git/x", True), (".git/commondir", True), ("sub/.git", True), (".git/info/exclude", True),
     ("sub/.git/hooks/pre-commit", True), (".git/objects/ab/cdef", True),
     (".vscode/tasks.json", True), ("Taskfile.yml", True), ("new.txt", False)],
    ids=str,
)  # fmt: skip
def test_write_into_the_git_store_or_code_that_runs_later(
    tmp_path: Path, path: str, needs: bool
) -> None:
    (tmp_path / ".git" / "objects" / "ab").mkdir(parents=True)
    (tmp_path / ".git" / "objects" / "ab" / "cdef").write_bytes(b"blob")
    (tmp_path / ".git" / "x").write_text("a=1\n")
    (tmp_path / "sub").mkdir()

    assert bool(_write(tmp_path, path, "gitdir: /tmp/evil\n")) is needs


# --- HARNESS_SENSITIVE_PATHS ------------------------------------------------------------


def test_the_project_adds_and_removes_code_paths(tmp_path: Path) -> None:
    code = CodePaths.from_entries(["+deploy/*.sh", "-Makefile", "release.cfg"])
    policy = DefaultRiskPolicy(code_paths=code)

    assert _write(tmp_path, "deploy/run.sh", "x\n", policy) == (
        "write to sensitive file: deploy/run.sh (listed in HARNESS_SENSITIVE_PATHS (deploy/*.sh))",
    )
    assert _write(tmp_path, "sub/release.cfg", "x\n", policy)
    assert _write(tmp_path, "Makefile", "all:\n", policy) == ()
    assert _write(tmp_path, "Makefile", "all:\n")  # the default still holds elsewhere


def test_the_setting_is_read_from_the_environment_and_checked() -> None:
    settings = Settings.from_env({"HARNESS_SENSITIVE_PATHS": "+deploy/**, -Makefile"})

    assert settings.sensitive_paths == ("+deploy/**", "-Makefile")
    with pytest.raises(ConfigurationError, match=r"'\+' names no pattern"):
        Settings.from_env({"HARNESS_SENSITIVE_PATHS": "+"})
    with pytest.raises(ConfigurationError, match=r"-nothing\.mk removes nothing"):
        CodePaths.from_entries(["-nothing.mk"])


# --- bash without the sandbox: the command text is judged by the same path rules ---------


@pytest.mark.parametrize(
    "command",
    ["echo 'gitdir: /tmp/evil' > vendor/lib/.git", "ln -s /tmp/evil sub/.git",
     "echo '{}' > .vscode/tasks.json", "cp /tmp/x .devcontainer/devcontainer.json",
     "echo x > .git/commondir"],
    ids=["gitfile", "gitfile-link", "vscode-tasks", "devcontainer", "commondir"],
)  # fmt: skip
def test_without_the_sandbox_the_same_paths_need_approval(tmp_path: Path, command: str) -> None:
    policy = DefaultRiskPolicy(sandboxed=False, overlay=False)

    assert policy.evaluate_call("bash", {"command": command}, workdir=tmp_path).requires_approval


def test_files_that_run_code_later_are_sensitive_to_write_not_to_read(tmp_path: Path) -> None:
    policy = DefaultRiskPolicy(required_tools=("read", "write"))

    assert policy.evaluate_call("write", {"path": "conftest.py", "content": "x"}).reasons
    assert not policy.evaluate_call("read", {"path": "conftest.py"}, workdir=tmp_path).reasons
    assert policy.evaluate_call("read", {"path": ".env"}, workdir=tmp_path).reasons
