"""The error of ``harness view``: an input it cannot show (under ``HarnessError``)."""

from __future__ import annotations

from harness.core.errors import HarnessError

__all__ = ["ViewError"]


class ViewError(HarnessError):
    """An input file cannot be shown: unreadable, not a trace, or a kind of
    document the viewer has no page for yet. The message names the file and
    what to do."""
