"""The approval seam is typed: a policy answer that is not a RiskDecision fails closed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from harness import Settings, build_application
from harness.app import Application
from harness.approval.decision import RiskDecision, RiskLevel, RiskVerdict
from harness.approval.middleware import HumanApprovalMiddleware
from harness.core import Role
from harness.providers import ScriptedProvider, tool_call
from harness.tools._execution import ToolExecutionContext


class _Answer:
    """A risk policy hook that answers whatever it was given."""

    def __init__(self, answer: object) -> None:
        self.answer = answer

    def evaluate(self, ctx: ToolExecutionContext) -> Any:
        return self.answer


def _app(tmp_path: Path, provider: ScriptedProvider, answer: object) -> Application:
    (tmp_path / "work").mkdir()
    settings = Settings(
        workdir=tmp_path / "work",
        state_dir=tmp_path / "state",
        enabled_tools=("read", "write", "bash"),
        approval_provider="cli",
    )
    app = build_application(settings, provider=provider)
    gates = [m for m in app.registry.middleware if isinstance(m, HumanApprovalMiddleware)]
    assert len(gates) == 1
    gates[0].policy = _Answer(answer)
    return app


class _LooksLikeDeny:
    """The duck-typed answer the old string match let through as "not deny"."""

    verdict = "soft-deny-ish"
    reasons = ("looks like a decision",)
    requires_approval = False


UNKNOWN = RiskDecision.model_construct(verdict="maybe", reasons=(), paths=())


@pytest.mark.parametrize(
    "answer",
    [None, "allow", {"verdict": "allow"}, _LooksLikeDeny(), UNKNOWN],
    ids=["none", "string", "dict", "duck-typed", "unknown-verdict"],
)
def test_an_invalid_decision_never_runs_the_tool(tmp_path: Path, answer: object) -> None:
    provider = ScriptedProvider([tool_call("write", path="notes.txt", content="hi"), "ok"])
    app = _app(tmp_path, provider, answer)
    result = app.run("write it", session="demo")
    assert not (tmp_path / "work" / "notes.txt").exists()
    tool = [m for m in provider.requests[-1].messages if m.role is Role.TOOL][-1]
    assert tool.metadata["error_type"] == "risk_policy_invalid"
    assert "was not executed" in tool.content
    assert result.stop_reason == "final"


@pytest.mark.parametrize(
    ("decision", "ran"),
    [(RiskDecision.allow(), True), (RiskDecision.deny(["no"]), False)],
    ids=["allow", "deny"],
)
def test_a_valid_decision_is_matched_on_its_verdict(
    tmp_path: Path, decision: RiskDecision, ran: bool
) -> None:
    provider = ScriptedProvider([tool_call("write", path="notes.txt", content="hi"), "ok"])
    _app(tmp_path, provider, decision).run("write it", session="demo")
    assert (tmp_path / "work" / "notes.txt").exists() is ran


def test_a_decision_is_validated_when_made() -> None:
    with pytest.raises(ValidationError):
        RiskDecision(verdict="maybe")
    decision = RiskDecision.approval_required(["a", "a", "b"], paths=["x", "x"])
    assert decision.reasons == ("a", "b") and decision.paths == ("x",)
    assert decision.risk_level is RiskLevel.HIGH and decision.requires_approval
    assert RiskDecision(RiskVerdict.ALLOW) == RiskDecision(verdict="allow")
