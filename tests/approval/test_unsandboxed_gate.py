"""Where bash runs without an overlay, the command-text gate fails closed.

No changeset shows what such a call did, so the policy the app builds lets it run
only when it can show the command is read-only. Every attack table in the tests
is judged here as the app judges it with the sandbox off: each attack asks, and
the look-alikes that only read (ls, cat, grep, git status/log/diff, find, wc,
head ...) still run without asking, so the agent stays usable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.approval._risk import DefaultRiskPolicy, RiskVerdict
from harness.approval.middleware import HumanApprovalMiddleware
from harness.providers import ScriptedProvider, tool_call
from tests.approval.test_risk_policy import DANGEROUS_COMMANDS
from tests.approval.test_risk_shell_table import READ, TABLE
from tests.approval.test_risk_state_dir import REACHES_STATE
from tests.effects.cases import CASES, PAUSE
from tests.effects.conftest import build_template
from tests.shell.test_shell_parse_props import DANGEROUS

# The rows of the effects table that only read: they run unasked on this path too.
READ_ONLY_CASES = frozenset(
    {"ls", "cat", "grep", "git-status", "git-log", "git-diff", "wc", "find-list", "head"}
)
DISCARDS_WORK = "dangerous shell command"


def _app(work: Path, state: Path, **overrides: object) -> Application:
    values: dict[str, object] = {
        "workdir": work,
        "state_dir": state,
        "enabled_tools": ("read", "write", "bash"),
        "approval_provider": "cli",
        "bash_sandbox": "off",
        **overrides,
    }
    return build_application(Settings(**values), provider=ScriptedProvider([]))  # type: ignore[arg-type]


def _policy(app: Application) -> DefaultRiskPolicy:
    middleware = next(m for m in app.registry.middleware if isinstance(m, HumanApprovalMiddleware))
    assert isinstance(middleware.policy, DefaultRiskPolicy)
    return middleware.policy


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_template(tmp_path_factory.mktemp("unsandboxed"))


@pytest.fixture(scope="module")
def unsandboxed(work: Path, tmp_path_factory: pytest.TempPathFactory) -> DefaultRiskPolicy:
    # Module scope runs before the per-test autouse fixture that keeps the approval
    # key out of HOME: building the application makes the key, so point it here too.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_STATE_HOME", str(tmp_path_factory.mktemp("xdg-state")))
        patch.delenv("HARNESS_APPROVAL_KEY", raising=False)
        policy = _policy(_app(work, work / ".harness"))
    assert not policy.sandboxed and not policy.overlay
    return policy


def _asks(policy: DefaultRiskPolicy, command: str, work: Path) -> bool:
    decision = policy.evaluate_call("bash", {"command": command}, workdir=work)
    return decision.verdict is RiskVerdict.APPROVAL_REQUIRED


@pytest.mark.parametrize(
    ("case_id", "command", "verdict"), [pytest.param(*case, id=case[0]) for case in CASES]
)
def test_the_effects_table_asks_on_the_unsandboxed_path(
    unsandboxed: DefaultRiskPolicy, work: Path, case_id: str, command: str, verdict: str
) -> None:
    asks = _asks(unsandboxed, command, work)

    if verdict == PAUSE:
        assert asks, f"{command!r} would run unasked with nothing to show its effects"
    else:
        assert asks is (case_id not in READ_ONLY_CASES), command


ATTACKS = [
    *[pytest.param(p.values[0], id=f"shell-table-{p.id}") for p in TABLE if p.values[1] != READ],
    *[pytest.param(c, id=f"policy-{k}") for k, c in DANGEROUS_COMMANDS.items()],
    *[pytest.param(c, id=f"props-{c}") for c in DANGEROUS],
    *[pytest.param(p.values[0], id=f"state-dir-{p.id}") for p in REACHES_STATE],
]


@pytest.mark.parametrize("command", ATTACKS)
def test_every_attack_of_the_text_tables_asks_on_the_unsandboxed_path(
    unsandboxed: DefaultRiskPolicy, work: Path, command: str
) -> None:
    assert _asks(unsandboxed, command, work)


@pytest.mark.parametrize(
    "command",
    [p.values[0] for p in TABLE if p.values[1] == READ]
    + ["ls -la", "cat data.txt", "grep -n record data.txt", "git status --short",
       "git log --oneline", "git diff --stat", "rg -n record", "find . -name '*.txt'",
       "wc -l data.txt", "head -n 3 data.txt", "git show HEAD --stat", "git branch -a",
       "git blame notes.md", "sed -n 1,5p data.txt", "sort data.txt | uniq -c | head",
       "ls src 2>/dev/null || echo none", "for f in *.txt; do wc -l \"$f\"; done"],
)  # fmt: skip
def test_read_only_commands_still_run_unasked_on_the_unsandboxed_path(
    unsandboxed: DefaultRiskPolicy, work: Path, command: str
) -> None:
    assert not _asks(unsandboxed, command, work)


@pytest.mark.parametrize(
    "command",
    ["git checkout -- .", "git restore --staged --worktree .", "git reset --hard HEAD~1",
     "git branch -D feature", "git clean -fdx", "git stash drop", "git push --force origin main",
     "git checkout-index -a -f", "git read-tree -u --reset HEAD", "git reset -q --soft HEAD~1",
     "git update-ref refs/heads/main HEAD~1", "git tag -d v1", "git gc --prune=now",
     "git mv -f notes.md data.txt", "git restore --source HEAD~1 notes.md"],
)  # fmt: skip
def test_git_commands_that_discard_work_ask_and_say_so(
    unsandboxed: DefaultRiskPolicy, work: Path, command: str
) -> None:
    decision = unsandboxed.evaluate_call("bash", {"command": command}, workdir=work)

    assert decision.verdict is RiskVerdict.APPROVAL_REQUIRED
    assert any(r.startswith(DISCARDS_WORK) for r in decision.reasons), decision.reasons


def test_with_the_network_on_the_command_text_fails_closed_too(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    policy = _policy(
        _app(tmp_path / "work", tmp_path / "state", bash_sandbox="auto", bash_network=True)
    )

    assert _asks(policy, "touch new.txt", tmp_path / "work")
    assert not _asks(policy, "git status", tmp_path / "work")


def test_an_unsandboxed_run_pauses_a_write_and_runs_a_read(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.md").write_text("keep me\n")
    provider = ScriptedProvider(
        [tool_call("bash", command="cat notes.md"), tool_call("bash", command="touch made.txt")]
    )
    app = build_application(
        Settings(  # type: ignore[call-arg]
            workdir=work,
            state_dir=tmp_path / "state",
            enabled_tools=("bash",),
            approval_provider="cli",
            bash_sandbox="off",
        ),
        provider=provider,
    )

    result = app.run("look, then write", session="s")

    assert result.stop_reason == "approval_required"
    assert not (work / "made.txt").exists()
    assert "keep me" in provider.requests[-1].messages[-1].content
    record = app.approvals.load(result.approval_id or "")
    assert record.arguments["command"] == "touch made.txt"
