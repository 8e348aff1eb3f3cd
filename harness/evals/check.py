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

A check runs when every piece of evidence it reads is there, and returns its
failures as readable lines (empty: it holds).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import TypeAdapter

from harness.core.errors import ConfigurationError

if TYPE_CHECKING:
    from harness.conversations.transcript import ConversationResult
    from harness.core import ToolCall
    from harness.engine.run_types import RunResult
    from harness.tracing import TraceTree

__all__ = [
    "RUNTIME_EVIDENCE",
    "Check",
    "CheckContext",
    "ShapeCheck",
    "config_adapter",
    "import_checks",
    "needs_runtime",
    "register_check",
    "registered_checks",
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


_KEY = re.compile(r"^[a-z][a-z0-9_]*$")
_REGISTRY: dict[str, Check] = {}
_ADAPTERS: dict[str, TypeAdapter[Any]] = {}


def register_check(check: Check) -> Check:
    """Make ``check.key`` a key of every case file's ``checks:`` block.

    Call it from a conftest (or a module a case file's ``checks_from:`` names).
    Registering the same object again is a no-op; returns ``check``.

    Raises:
        ConfigurationError: not a Check, a bad key or ``reads``, or the key is taken.
    """
    name = type(check).__name__
    if not isinstance(check, Check):
        raise ConfigurationError(
            f"register_check: {name} is not a Check: give it key, config, reads, "
            "can_fail(config) and run(config, evidence)"
        )
    key = check.key
    if not isinstance(key, str) or not _KEY.match(key):
        raise ConfigurationError(
            f"register_check: {name}.key {key!r} is not a case-file key: "
            "use lowercase letters, digits and underscores (answer_max_words)"
        )
    reads = check.reads
    if not isinstance(reads, frozenset) or not reads or not reads <= EVIDENCE:
        unknown = sorted(map(str, set(reads) - EVIDENCE)) if isinstance(reads, frozenset) else []
        raise ConfigurationError(
            f"register_check: {key}: reads must be a non-empty frozenset of "
            f"{', '.join(sorted(EVIDENCE))}" + (f"; unknown: {unknown}" if unknown else "")
        )
    known = _REGISTRY.get(key)
    if known is check:
        return check
    if known is not None:
        raise ConfigurationError(
            f"register_check: the key {key!r} is taken by {type(known).__name__} "
            f"({type(known).__module__}); give {name} another key"
        )
    try:
        adapter: TypeAdapter[Any] = TypeAdapter(check.config)
    except Exception as exc:  # pydantic's schema errors have no common base
        raise ConfigurationError(
            f"register_check: {key}: config {check.config!r} is not a type pydantic "
            f"can validate ({exc})"
        ) from None
    _REGISTRY[key] = check
    _ADAPTERS[key] = adapter
    return check


def registered_checks() -> Mapping[str, Check]:
    """Every registered check by key: harness's own first, then yours in order."""
    return dict(_REGISTRY)


def config_adapter(key: str) -> TypeAdapter[Any]:
    """The validator of a registered check's config."""
    return _ADAPTERS[key]


def import_checks(spec: str) -> None:
    """Import ``package.module`` (its import registers checks) or register the
    check, or each check of a list, that ``package.module:attribute`` names.

    Raises:
        ConfigurationError: the import fails or the attribute holds no Check.
    """
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"checks_from {spec!r}: cannot import {module_name} ({exc}); is it on sys.path?"
        ) from None
    if not attribute:
        return
    found = getattr(module, attribute, None)
    if found is None:
        raise ConfigurationError(f"checks_from {spec!r}: {module_name} has no {attribute}")
    for check in found if isinstance(found, list | tuple) else [found]:
        try:
            register_check(check)
        except ConfigurationError as exc:
            raise ConfigurationError(f"checks_from {spec!r}: {exc}") from None
