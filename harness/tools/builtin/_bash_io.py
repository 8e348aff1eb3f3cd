"""Reading a bash call's output: one pipe, a deadline, and a head-and-tail cap.

One thread and a selector: no deadlock on large output, and a background child
holding the pipe open cannot keep the call waiting past the shell's exit.
"""

from __future__ import annotations

import codecs
import os
import selectors
import subprocess
import time
from dataclasses import dataclass, field

__all__ = ["DRAIN_SECONDS", "Capture", "pump", "wait_until"]

_READ_CHUNK = 65536
_POLL_SECONDS = 0.05
# After the shell exits, children it left in the background may still hold the
# pipe open; read what they have already written, but do not wait for them.
DRAIN_SECONDS = 0.2


@dataclass(slots=True)
class Capture:
    """Keeps the first and last ``half`` bytes of a stream and counts the rest.

    ``limit``: past this many bytes the stream counts as too long (``overflowed``),
    and ``pump`` stops reading; None reads for as long as the command prints.
    """

    half: int
    limit: int | None = None
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    total: int = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.half - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            del self.tail[: max(len(self.tail) - self.half, 0)]

    @property
    def overflowed(self) -> bool:
        return self.limit is not None and self.total > self.limit

    def text(self) -> str:
        if self.total <= len(self.head) + len(self.tail):
            return bytes(self.head + self.tail).decode("utf-8", errors="replace")
        # Cut on character boundaries so the seams show no replacement characters.
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        head = decoder.decode(bytes(self.head))
        held_back = len(decoder.getstate()[0])
        tail = bytes(self.tail)
        skip = next((i for i, byte in enumerate(tail[:3]) if byte & 0xC0 != 0x80), len(tail[:3]))
        omitted = self.total - len(self.head) - len(self.tail) + held_back + skip
        marker = f"\n[... {omitted} bytes of output omitted ...]\n"
        return head + marker + tail[skip:].decode("utf-8", errors="replace")


def pump(process: subprocess.Popen[bytes], capture: Capture, deadline: float) -> bool:
    """Copy output into ``capture`` until the pipe closes; True when it stopped early.

    Early: the deadline passed, or the output passed ``capture.limit``
    (``capture.overflowed`` tells which); the caller then kills the command.
    """
    assert process.stdout is not None
    fd = process.stdout.fileno()
    drain_until: float | None = None
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            now = time.monotonic()
            if now >= deadline:
                return True
            if drain_until is None and process.poll() is not None:
                drain_until = now + DRAIN_SECONDS
            if drain_until is not None and now >= drain_until:
                return False
            limit = min(deadline, drain_until or deadline) - now
            if selector.select(min(limit, _POLL_SECONDS)):
                chunk = os.read(fd, _READ_CHUNK)
                if not chunk:
                    return False
                capture.add(chunk)
                if capture.overflowed:
                    return True


def wait_until(process: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait for the shell until ``deadline``; False when it is still running."""
    try:
        process.wait(max(deadline - time.monotonic(), 0))
    except subprocess.TimeoutExpired:
        return False
    return True
