"""Log records to whatever ``sys.stderr`` is when each one is written.

``logging.StreamHandler(sys.stderr)`` keeps the stream it was given. A command run
in-process (a test calling the CLI's ``main``, a notebook) hands it a stand-in
``sys.stderr`` that is closed once the command returns, and every later record
from a server thread then fails with "I/O operation on closed file".
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

__all__ = ["log_to_stderr"]


class _CurrentStderr(logging.StreamHandler[TextIO]):
    """A StreamHandler whose stream is looked up on every record."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, value: TextIO) -> None:
        pass  # always the current sys.stderr


def log_to_stderr(
    name: str, fmt: str, *, level: int | str = logging.INFO, propagate: bool = True
) -> None:
    """Send logger ``name``'s records to the current stderr, once (a second call adds nothing)."""
    logger = logging.getLogger(name)
    logger.setLevel(level)
    # Its own kind only: others may be there already (pytest's log capture attaches
    # one to every logger that does not propagate).
    if not any(isinstance(handler, _CurrentStderr) for handler in logger.handlers):
        handler = _CurrentStderr()
        handler.setFormatter(logging.Formatter(fmt))
        logger.addHandler(handler)
    logger.propagate = propagate
