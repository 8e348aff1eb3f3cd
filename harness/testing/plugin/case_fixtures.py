"""Fixtures of the case runner that ship with the plugin, and how it is collected anywhere."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from harness.app import Application

__all__ = ["collect_case_runner", "evidence"]


@pytest.fixture
def evidence() -> Callable[[Application], Any]:
    """``evidence(app)``: what the model was sent and answered during the app's runs."""
    from harness.testing.rows.evidence import Evidence

    return Evidence


def _runner_items(items: list[pytest.Item]) -> list[pytest.Item]:
    from harness.testing import cases_suite

    runners = (cases_suite.test_cases, cases_suite.test_target_cases)
    return [item for item in items if getattr(item, "obj", None) in runners]


def _without_cases(item: pytest.Item) -> bool:
    """The item pytest makes for a runner parametrised with no case at all."""
    skip = item.get_closest_marker("skip")
    reason = str(skip.kwargs.get("reason", "")) if skip is not None else ""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return "case_name" not in params or reason.startswith("got empty parameter set")


def collect_case_runner(session: pytest.Session, items: list[pytest.Item]) -> None:
    """Add the case runner's items when cases were asked for and nothing collected it.

    ``--harness-cases DIR`` (or the ``harness_cases`` ini key) in a project that
    does not re-export the runner in a test module would otherwise run nothing.
    A runner left without cases (no ``target:`` case, say) is dropped, not skipped.
    """
    config = session.config
    asked = config.getoption("harness_cases", default=None) or config.getini("harness_cases")
    if asked and not _runner_items(items):
        from harness.testing import cases_suite

        module = pytest.Module.from_parent(session, path=Path(cases_suite.__file__))
        items.extend(item for item in session.genitems(module) if isinstance(item, pytest.Item))
    empty = [item for item in _runner_items(items) if _without_cases(item)]
    if empty:
        items[:] = [item for item in items if item not in empty]
