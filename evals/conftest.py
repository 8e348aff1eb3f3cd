"""Shared pieces of the scenario evals.

The ``evidence`` fixture (what the model was sent and answered) ships with the
harness plugin (``harness.testing.rows.evidence``), so case files run in any project;
helpers only these evals use live here, since eval files are collected with any
import mode and cannot import a sibling module.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from harness.testing import RECORDED_PROVIDERS
from harness.tracing import TraceSpan

PROVIDERS = RECORDED_PROVIDERS  # the registry's runtime wires


def llm_calls(span: TraceSpan, *, inside_subagent: bool) -> list[TraceSpan]:
    """The llm.call spans below ``span``, split by whether a subagent.run encloses them."""
    found: list[TraceSpan] = []

    def walk(node: TraceSpan, nested: bool) -> None:
        for child in node.children:
            inner = nested or child.kind == "subagent.run"
            if child.kind == "llm.call" and nested == inside_subagent:
                found.append(child)
            walk(child, inner)

    walk(span, False)
    return found


@pytest.fixture
def llm_calls_of() -> Callable[..., list[TraceSpan]]:
    """``llm_calls_of(root, inside_subagent=bool)``: llm.call spans of a parent or child."""
    return llm_calls
