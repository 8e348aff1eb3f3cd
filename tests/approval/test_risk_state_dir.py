"""Without the bash sandbox, shell writes into (or mentions of) the state dir need approval."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.approval._risk import DefaultRiskPolicy, RiskVerdict
from harness.approval.middleware import HumanApprovalMiddleware
from harness.providers import ScriptedProvider
from harness.tools.sandbox import choose_sandbox

STATE = "shell command touches the harness state dir"
SELF = "could decide its own approval request"


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / ".harness" / "sessions").mkdir(parents=True)
    os.symlink(work / ".harness", work / "state-link")
    return work


def judge(command: str, workdir: Path, *, sandboxed: bool, state_dir: Path | None = None):
    policy = DefaultRiskPolicy(state_dir=state_dir or workdir / ".harness", sandboxed=sandboxed)
    return policy.evaluate_call("bash", {"command": command}, workdir=workdir)


REACHES_STATE = [
    pytest.param("echo x > .harness/sessions/s/approvals/a.json", STATE, id="redirect"),
    pytest.param("cd .harness && echo x > f", STATE, id="cd-into-state"),
    pytest.param("cd sub && cp x ../.harness/f", STATE, id="cd-then-parent"),
    pytest.param("sed -i s/pending/approved/ .harness/a.json", STATE, id="sed-i"),
    pytest.param("echo x | tee .harness/f", STATE, id="tee"),
    pytest.param("touch .harness/f", STATE, id="touch"),
    pytest.param("ln -s x .harness/f", STATE, id="ln"),
    pytest.param("mv x .harness/y", STATE, id="mv"),
    pytest.param('echo x > ".har""ness/f"', STATE, id="quote-split-path"),
    pytest.param("echo x > state-link/f", STATE, id="through-a-symlink"),
    pytest.param("cd state-link && echo x > f", STATE, id="cd-through-a-symlink"),
    pytest.param("cd $D && echo x > f", STATE, id="write-after-dynamic-cd"),
    pytest.param("touch $(echo .h)arness/f", STATE, id="dynamic-target"),
    pytest.param("cat .harness/sessions/s/approvals/a.json", STATE, id="mention"),
    pytest.param("python3 tool.py state-link/sessions", STATE, id="argument-through-a-symlink"),
    pytest.param("cd sub && python3 ../tool.py ../state-link", STATE, id="argument-after-cd"),
    pytest.param("python3 edit.py $HARNESS_STATE_DIR", STATE, id="env-name"),
    pytest.param("sleep 5; harness approve appr_1", SELF, id="self-approval"),
    pytest.param("(sleep 5 && harness reject appr_1 no) &", SELF, id="self-rejection"),
    pytest.param("h''arness approve appr_1", SELF, id="quote-split-harness"),
    pytest.param("python3 -m harness approve appr_1", SELF, id="python-m-harness"),
]


@pytest.mark.parametrize(("command", "rule"), REACHES_STATE)
def test_unsandboxed_shell_reaching_the_state_dir_needs_approval(
    command: str, rule: str, workdir: Path
) -> None:
    decision = judge(command, workdir, sandboxed=False)

    assert decision.verdict is RiskVerdict.APPROVAL_REQUIRED
    assert any(rule in reason for reason in decision.reasons), decision.reasons


@pytest.mark.parametrize(
    "command",
    ["echo x > .harness/f", "cd .harness && echo x > f", "touch .harness/f",
     "sleep 5; harness approve appr_1", "echo x > state-link/f"],
    ids=["redirect", "cd", "touch", "self-approval", "symlink"],
)  # fmt: skip
def test_in_the_sandbox_the_state_dir_is_not_reachable_so_not_judged(
    command: str, workdir: Path
) -> None:
    decision = judge(command, workdir, sandboxed=True)

    assert not any(STATE in r or SELF in r for r in decision.reasons), decision.reasons


@pytest.mark.parametrize(
    "command",
    ["echo x > notes.txt", "cd sub && echo x > f", "ls -la", "cat README.md",
     "harness approvals", "git status", "python3 -m pytest -q"],
    ids=["plain-redirect", "cd-sub", "ls", "cat", "list-approvals", "git-status", "pytest"],
)  # fmt: skip
def test_unsandboxed_ordinary_commands_trip_no_state_dir_rule(command: str, workdir: Path) -> None:
    decision = judge(command, workdir, sandboxed=False)

    assert not any(STATE in r or SELF in r for r in decision.reasons), decision.reasons
    reads = ("ls -la", "cat README.md", "git status")
    assert (decision.verdict is RiskVerdict.ALLOW) is (command in reads), decision.reasons


def test_a_state_dir_outside_the_workdir_is_guarded_by_its_absolute_path(tmp_path: Path) -> None:
    work, state = tmp_path / "work", tmp_path / "state"
    work.mkdir()
    state.mkdir()

    outside = judge(f"echo x > {state}/a.json", work, sandboxed=False, state_dir=state)
    relative = judge("cd .. && echo x > state/a.json", work, sandboxed=False, state_dir=state)
    other = judge("echo x > ../elsewhere.txt", work, sandboxed=False, state_dir=state)

    assert any(STATE in r for r in outside.reasons)
    assert any(STATE in r for r in relative.reasons)
    assert not any(STATE in r for r in other.reasons)


def _policy(settings: Settings) -> DefaultRiskPolicy:
    app = build_application(settings, provider=ScriptedProvider([]))
    middleware = next(m for m in app.registry.middleware if isinstance(m, HumanApprovalMiddleware))
    assert isinstance(middleware.policy, DefaultRiskPolicy)
    return middleware.policy


def test_the_app_gives_the_policy_its_state_dir_and_sandbox_mode(tmp_path: Path) -> None:
    def settings(**extra: object) -> Settings:
        return Settings(workdir=tmp_path, approval_provider="cli", **extra)  # type: ignore[arg-type]

    default = _policy(settings(enabled_tools=("bash",)))
    off = _policy(settings(enabled_tools=("bash",), bash_sandbox="off"))
    without_bash = _policy(settings(enabled_tools=("read",), bash_sandbox="off"))

    assert default.state_dir == off.state_dir == (tmp_path / ".harness").resolve()
    assert default.sandboxed is (choose_sandbox("auto").bwrap is not None)
    assert off.sandboxed is False
    assert without_bash.sandboxed is True  # no bash, nothing for the shell rule to judge
