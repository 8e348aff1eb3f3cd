"""The ``Check`` protocol: one key of a case's ``checks:``, what it reads, how it fails.

Every check of a case file is a ``Check``: harness's own (``files``,
``answer_contains``, ``tools_called``... in :mod:`harness.evals.builtin_checks`)
and any you register, from a conftest with ``register_check(check)`` or from a
case file's top-level ``checks_from: ["package.module:attribute"]``. The case
loader derives from each check what it used to keep in hand-written lists:

- whether the case can fail at all (``can_fail(config)``: a case whose every
  check is vacuous is refused at load time);
- whether the check needs harness's own runtime (``reads`` names evidence only a
  run of harness shows, such as ``traces``): a case with a ``target`` cannot ask
  for it;
- whether it checks a conversation (``reads`` names ``conversation``): only a
  case with a ``user`` block can ask for it.

The registry is :mod:`harness.evals.check_registry`. A check runs when every
piece of evidence it reads is there, and returns its failures as readable lines
(empty: it holds).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from harness.conversations import ConversationResult
    from harness.core import ToolCall
    from harness.engine import RunResult
    from harness.tracing import TraceTree

__all__ = [
    "RUNTIME_EVIDENCE",
    "Check",
    "CheckContext",
    "ShapeCheck",
    "needs_runtime",
]

ShapeCheck = Callable[["TraceTree", str], None]


@dataclass(frozen=True, slots=True)
class CheckContext:
    """The evidence of one run a check may read; ``None`` where the run has none.

    A check names the fields it reads in ``reads``; it runs only when none of
    them is ``None``, so it may rely on them.
    """

    answer: str
    """The agent's last message (a conversation: its last reply)."""
    workdir: Path
    """The workspace after the run."""
    results: tuple[RunResult, ...] | None = None
    """harness's run results in order (paused, then resumed): stop reason, steps."""
    traces: tuple[TraceTree, ...] | None = None
    """The runs' trace trees."""
    calls: tuple[ToolCall, ...] | None = None
    """Every tool call the model made, in order, from harness's request log."""
    shown: Mapping[str, str] | None = None
    """The text each call's result showed the model, by call id."""
    judge: tuple[str, ...] | None = None
    """The failure lines of the LLM judge's grading (empty: it passed)."""
    trajectory: Callable[[Any], str | None] | None = None
    """Matches a ``TrajectorySpec`` against the model's calls (harness's request
    log, or a target's traffic); returns why it does not hold, or None."""
    conversation: ConversationResult | None = None
    """The whole conversation of a case with a ``user`` block."""
    assert_shape: ShapeCheck | None = None
    """Raises AssertionError when a trace does not hold an outline (subset match);
    a helper, not evidence: the testing toolkit passes it in."""

    def available(self) -> frozenset[str]:
        """The evidence this context holds."""
        return frozenset(name for name in EVIDENCE if getattr(self, name) is not None)


# Only a run of harness's own runtime shows these; a case with a target has none.
RUNTIME_EVIDENCE = frozenset({"results", "traces", "calls", "shown", "judge"})
EVIDENCE = frozenset(f.name for f in fields(CheckContext)) - {"assert_shape"}


@runtime_checkable
class Check(Protocol):
    """One key of a case's ``checks:`` block.

    Attributes:
        key: the case-file key (``answer_max_words``), lowercase with underscores.
        config: the type its value validates against: a pydantic model, or any
            annotation pydantic reads (``int``, ``tuple[str, ...]``...).
        reads: the :class:`CheckContext` fields it reads (``answer``, ``traces``...).
    """

    @property
    def key(self) -> str: ...
    @property
    def config(self) -> Any: ...
    @property
    def reads(self) -> frozenset[str]: ...

    def can_fail(self, config: Any) -> bool:
        """Whether this value could ever fail a run (False: the check is vacuous)."""
        ...

    def run(self, config: Any, evidence: CheckContext) -> list[str]:
        """Every way ``evidence`` misses ``config``, one readable line each."""
        ...


def needs_runtime(check: Check) -> bool:
    """Whether the check reads evidence only harness's own runtime shows."""
    return bool(check.reads & RUNTIME_EVIDENCE)
