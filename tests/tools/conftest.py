"""Fixtures for the bash tool tests: both sandbox modes, and finding survivors by argv."""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness.tools.builtin._bash import BashTool
from harness.tools.sandbox import check_bwrap, find_bwrap, landlock_problem

BWRAP_PROBLEM = check_bwrap(find_bwrap()).problem
needs_bwrap = pytest.mark.skipif(
    BWRAP_PROBLEM is not None, reason=f"bwrap cannot run here: {BWRAP_PROBLEM}"
)
# Unsandboxed bash runs only under Landlock; without it every call is refused.
LANDLOCK_PROBLEM = landlock_problem()
needs_landlock = pytest.mark.skipif(
    LANDLOCK_PROBLEM is not None, reason=f"no Landlock here: {LANDLOCK_PROBLEM}"
)


@pytest.fixture(
    params=[pytest.param("bwrap", marks=needs_bwrap), pytest.param("off", marks=needs_landlock)]
)
def mode(request: pytest.FixtureRequest) -> str:
    """``bwrap`` (a real sandbox; skipped where bwrap cannot run) or ``off`` (Landlock)."""
    return str(request.param)


@pytest.fixture
def make_bash(mode: str, tmp_path_factory: pytest.TempPathFactory) -> Callable[..., BashTool]:
    """Builds a BashTool for ``mode``; ``bwrap`` means ``required``, so it never downgrades.

    ``off`` puts the state dir outside the workdir: unsandboxed bash refuses to run
    while it is inside (Landlock cannot hide a folder of the workdir).
    """

    def make(**options: Any) -> BashTool:
        if mode == "bwrap":
            return BashTool(sandbox="required", **options)
        options.setdefault("state_dir", tmp_path_factory.mktemp("bash-state"))
        return BashTool(sandbox="off", **options)

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


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state dir outside the workdir (``tmp_path``), as unsandboxed bash needs."""
    return tmp_path_factory.mktemp("state-outside")
