"""Fixtures for the bash tool tests: both sandbox modes, and finding survivors by argv."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.tools.builtin.bash import BashTool
from harness.tools.sandbox import check_bwrap, find_bwrap

BWRAP_PROBLEM = check_bwrap(find_bwrap()).problem
needs_bwrap = pytest.mark.skipif(
    BWRAP_PROBLEM is not None, reason=f"bwrap cannot run here: {BWRAP_PROBLEM}"
)


@pytest.fixture(params=[pytest.param("bwrap", marks=needs_bwrap), "off"])
def mode(request: pytest.FixtureRequest) -> str:
    """``bwrap`` (a real sandbox; skipped where bwrap cannot run) or ``off``."""
    return str(request.param)


@pytest.fixture
def make_bash(mode: str) -> Callable[..., BashTool]:
    """Builds a BashTool for ``mode``; ``bwrap`` means ``required``, so it never downgrades."""

    def make(**options: Any) -> BashTool:
        return BashTool(sandbox="required" if mode == "bwrap" else "off", **options)

    return make


@pytest.fixture
def mark() -> str:
    """A number no other process has in its argv: ``sleep MARK`` is findable from the host."""
    return f"{secrets.randbelow(10**6) + 10**6}.{secrets.randbelow(10**6):06d}"


def live_pids_with(text: str) -> list[int]:
    """Host pids of running (not zombie) processes whose argv contains ``text``."""
    needle = text.encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = Path(entry.path, "cmdline").read_bytes()
            state = Path(entry.path, "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if needle in argv and state not in (b"Z", b"X"):
            found.append(int(entry.name))
    return found


@pytest.fixture
def survivors() -> Callable[[str], list[int]]:
    """``survivors(mark)``: live host pids whose argv holds ``mark``."""
    return live_pids_with
