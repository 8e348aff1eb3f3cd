"""Matching what the agent said: the branches of a turn graph and the said-checks."""

from __future__ import annotations

import re

from harness.conversations._spec import AgentSaid, GraphNode

__all__ = ["next_node", "said_matches"]


def said_matches(condition: AgentSaid, text: str) -> bool:
    """Whether ``text`` (what the agent said) meets every part of ``condition``.

    Words compare case-insensitively (``casefold``): an agent that writes "Order ID"
    asked for the order id. A regex is matched as written.
    """
    folded = text.casefold()
    if any(word.casefold() not in folded for word in condition.contains):
        return False
    if condition.any and not any(word.casefold() in folded for word in condition.any):
        return False
    if any(word.casefold() in folded for word in condition.not_contains):
        return False
    return condition.regex is None or re.search(condition.regex, text) is not None


def next_node(node: GraphNode, reply: str) -> str | None:
    """The node the graph goes to after the agent said ``reply``: the first branch
    whose ``when`` holds (no ``when``: always), or None when none does."""
    for branch in node.then:
        if branch.when is None or said_matches(branch.when, reply):
            return branch.goto
    return None
