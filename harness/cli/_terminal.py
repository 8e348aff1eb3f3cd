"""Text from the model or a trace, made safe to print on a person's terminal.

Model answers, tool output and trace payloads are untrusted: an ``ESC [``
sequence in them can rewrite what the person sees (clear the screen, hide a
line, retitle the window, on some terminals even answer back into the input).
Every such text the CLI prints goes through :func:`terminal_safe`: newlines and
tabs stay, every other control or invisible formatting character is shown as
an escape, and a lone surrogate (which Python cannot encode) becomes ``\\udXXX``
instead of a crash.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["terminal_safe"]

# C0 (but \t and \n), DEL, C1, bidi overrides/isolates, and lone surrogates.
_UNSAFE: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def _escape(found: re.Match[str]) -> str:
    code = ord(found.group())
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """``text`` with terminal control sequences and unencodable characters escaped.

    Plain text (the usual case) comes back as it is. Escapes are visible: an
    ``ESC`` shows as ``\\x1b``, so a person sees that the text held one.
    """
    if text.isprintable() or _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text)
