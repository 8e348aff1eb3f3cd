"""Simulator scripts the plugin's pytester tests record against, shared by their
modules (each module's ``SIM_SCRIPT``; the ``sim`` fixture of conftest.py serves it).

Functions, not constants: each module gets dicts of its own to change.
"""

from __future__ import annotations

from typing import Any


def read_notes_rule() -> dict[str, Any]:
    """First turn: read ``notes.txt`` through the agent's ``read_file`` tool."""
    return {
        "when": {"tools_include": "read_file", "has_tool_results": False},
        "reply": {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
    }


def tell_release_code_rule() -> dict[str, Any]:
    """Then: answer with the release code the tool result held."""
    return {
        "fill": "RELEASE-CODE-[A-Z0-9]+",
        "when": {"last_tool_result_contains": "RELEASE-CODE"},
        "reply": "The release code is {match}.",
    }


def release_code_script(*more_rules: dict[str, Any]) -> dict[str, Any]:
    """Read ``notes.txt``, then tell the release code; ``more_rules`` after those."""
    return {"version": 1, "rules": [read_notes_rule(), tell_release_code_rule(), *more_rules]}


def read_a_txt_script() -> dict[str, Any]:
    """Read ``a.txt`` through a ``read`` tool, then say it holds alpha."""
    return {
        "version": 1,
        "rules": [
            {
                "when": {"has_tool_results": False},
                "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
            },
            {"when": {"last_tool_result_contains": "alpha"}, "reply": "a.txt says alpha"},
        ],
    }
