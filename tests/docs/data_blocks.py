"""Validate a YAML or JSON block of the docs with the loader harness itself uses."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from harness.evals.cases import CaseChecks, load_case_file
from harness.mcp import load_mcp_config
from harness.simulator import load_script

KINDS = ("case-file", "checks", "sim-script", "mcp-servers")


def kind_of(data: Any) -> str | None:
    """What a block's content is, when its top-level keys say so."""
    if not isinstance(data, dict):
        return None
    if "cases" in data:
        return "case-file"
    if "rules" in data or "turns" in data:
        return "sim-script"
    if "mcpServers" in data:
        return "mcp-servers"
    if set(data) == {"checks"}:
        return "checks"
    return None


def _case_file(text: str, folder: Path) -> None:
    path = folder / "cases.yaml"
    path.write_text(text, "utf-8")
    load_case_file(path)


def _checks(text: str, folder: Path) -> None:
    CaseChecks.model_validate(yaml.safe_load(text)["checks"])


def _sim_script(text: str, folder: Path) -> None:
    path = folder / "script.yaml"
    path.write_text(text, "utf-8")
    load_script(path)


def _mcp_servers(text: str, folder: Path) -> None:
    path = folder / "mcp.json"
    path.write_text(text, "utf-8")
    load_mcp_config(path)


_VALIDATORS: dict[str, Callable[[str, Path], None]] = {
    "case-file": _case_file,
    "checks": _checks,
    "sim-script": _sim_script,
    "mcp-servers": _mcp_servers,
}


def validate(language: str, text: str, kind: str | None, folder: Path) -> str:
    """Validate ``text`` (``kind`` from a marker, else from its keys); return the kind.

    Raises:
        ValueError: the block is of no known kind.
        ConfigurationError, ValidationError: the loader refused it.
    """
    data = json.loads(text) if language == "json" else yaml.safe_load(text)
    kind = kind or kind_of(data)
    if kind not in _VALIDATORS:
        raise ValueError(
            f"a {language} block of no known kind; make it one of {', '.join(KINDS)} "
            "(or say which with `<!-- check: KIND -->`), or mark it `<!-- not-run: why -->`"
        )
    _VALIDATORS[kind](text, folder)
    return kind
