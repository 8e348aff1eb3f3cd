"""The record/replay proxy for agents that run as their own process (issue #47).

``harness.proxy.contain`` runs such a process in a network namespace whose only
way out is the proxy.
"""

from __future__ import annotations

__all__: list[str] = []
