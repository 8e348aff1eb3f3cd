"""The risk policy's answer for one tool call: a verdict, its reasons, the paths it names.

A typed value, validated when it is made, so the approval middleware can
``match`` on the verdict instead of guessing at a string: a policy hook that
returns anything else (another type, a verdict nobody knows) is refused and
the call is not run (``risk_policy_invalid``).
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["RiskDecision", "RiskLevel", "RiskVerdict"]


class RiskVerdict(StrEnum):
    """What should happen to a tool call."""

    ALLOW = "allow"
    DENY = "deny"
    APPROVAL_REQUIRED = "approval_required"


class RiskLevel(StrEnum):
    """How risky a call is: ``high`` whenever it is not simply allowed."""

    LOW = "low"
    HIGH = "high"


class RiskDecision(BaseModel):
    """The policy's answer for one tool call.

    Attributes:
        verdict: allow, deny or approval_required (any other value is refused).
        reasons: human-readable reasons, shown to the approver; empty when allowed.
        risk_level: ``high`` whenever the call is not simply allowed.
        paths: the paths the call touches that the reasons are about (may be empty).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    verdict: RiskVerdict
    reasons: tuple[str, ...] = ()
    risk_level: RiskLevel = RiskLevel.LOW
    paths: tuple[str, ...] = ()

    # Positional construction, as the dataclass this replaced allowed.
    def __init__(
        self,
        verdict: RiskVerdict | None = None,
        reasons: tuple[str, ...] = (),
        risk_level: RiskLevel = RiskLevel.LOW,
        /,
        **fields: Any,
    ) -> None:
        if verdict is not None:
            fields = {"verdict": verdict, "reasons": reasons, "risk_level": risk_level, **fields}
        super().__init__(**fields)

    @classmethod
    def allow(cls) -> RiskDecision:
        return cls(RiskVerdict.ALLOW)

    @classmethod
    def approval_required(cls, reasons: Iterable[str], paths: Iterable[str] = ()) -> RiskDecision:
        return cls(
            RiskVerdict.APPROVAL_REQUIRED, _unique(reasons), RiskLevel.HIGH, paths=_unique(paths)
        )

    @classmethod
    def deny(cls, reasons: Iterable[str], paths: Iterable[str] = ()) -> RiskDecision:
        return cls(RiskVerdict.DENY, _unique(reasons), RiskLevel.HIGH, paths=_unique(paths))

    @property
    def requires_approval(self) -> bool:
        return self.verdict is RiskVerdict.APPROVAL_REQUIRED


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
