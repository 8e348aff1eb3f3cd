"""Which way a bash call runs: ``HARNESS_BASH_SANDBOX`` against the bwrap found.

* ``auto`` (default): in bwrap when it works; otherwise unsandboxed (the bash
  tool logs one warning, so the downgrade is never silent).
* ``required``: in bwrap with the workdir as an overlay, or not at all (the
  model gets an error observation).

Where bwrap works but cannot mount an overlay (no overlayfs in the kernel, a
bwrap older than 0.10, an upper dir on a file system overlayfs refuses),
``auto`` binds the workdir directly, as before overlays, says so once in the
log and in ``harness health``, and the command-text policy judges every call
(its changes then land at once and cannot be shown as a changeset).
* ``off``: unsandboxed, by the user's choice.

Unsandboxed still means a scrubbed environment and killed survivors (see
``reaper``), but the agent then sees the real filesystem, network and state dir.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from harness.tools.sandbox._discovery import check_bwrap, find_bwrap, probe_overlay

__all__ = ["SANDBOX_MODES", "BwrapFinder", "SandboxChoice", "SandboxMode", "choose_sandbox"]

SandboxMode = Literal["auto", "required", "off"]
SANDBOX_MODES: tuple[SandboxMode, ...] = ("auto", "required", "off")
BwrapFinder = Callable[[], Path | None]


@dataclass(frozen=True, slots=True)
class SandboxChoice:
    """The decision for a call.

    Attributes:
        mode: the configured ``HARNESS_BASH_SANDBOX``.
        bwrap: the binary to run in; None means unsandboxed (or refused).
        reason: why there is no sandbox (None when there is one).
        refused: True when ``required`` found no working bwrap: run nothing.
        overlay: the workdir is mounted as an overlay, so changes wait in a
            layer and are judged by the effect policy before they land.
        overlay_problem: why a working bwrap cannot mount an overlay (``auto``
            then binds the workdir directly and the command-text policy decides).
    """

    mode: SandboxMode
    bwrap: Path | None
    reason: str | None = None
    refused: bool = False
    overlay: bool = False
    overlay_problem: str | None = None

    @property
    def label(self) -> str:
        """``bwrap`` or ``none``, as the ``tool.call bash`` span records it."""
        return "bwrap" if self.bwrap is not None else "none"

    def describe(self) -> str:
        """One line for ``harness health``."""
        if self.bwrap is not None:
            how = "workdir as an overlay" if self.overlay else f"no overlay: {self.overlay_problem}"
            return f"bwrap ({self.bwrap}), {how}, HARNESS_BASH_SANDBOX={self.mode}"
        if self.refused:
            return f"refused: HARNESS_BASH_SANDBOX=required but {self.reason}"
        return f"none: {self.reason}"


def choose_sandbox(mode: SandboxMode, finder: BwrapFinder = find_bwrap) -> SandboxChoice:
    """Decide how bash runs; probes bwrap once per binary, so it is cheap to repeat."""
    if mode == "off":
        return SandboxChoice(mode, None, "HARNESS_BASH_SANDBOX=off")
    check = check_bwrap(finder())
    if check.works:
        assert check.path is not None
        problem = probe_overlay(check.path)
        if problem is None:
            return SandboxChoice(mode, check.path, overlay=True)
        if mode == "required":
            return SandboxChoice(
                mode, None, f"the workdir cannot be mounted as an overlay ({problem})", refused=True
            )
        return SandboxChoice(mode, check.path, overlay_problem=problem)
    if mode == "required":
        return SandboxChoice(mode, None, check.problem, refused=True)
    return SandboxChoice(mode, None, f"HARNESS_BASH_SANDBOX=auto and {check.problem}")
