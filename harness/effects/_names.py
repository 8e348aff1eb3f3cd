"""File names as an approver sees them: one line each, nothing hidden, nothing forged.

A name may hold any byte but ``/`` and NUL: a newline (which would start a
forged line of the approval prompt), a carriage return or an ANSI escape
(which repaint the terminal), a bidi override (which reorders what is shown),
bytes that are not UTF-8 (Python's ``surrogateescape`` code points). A plain
name is shown as it is; any other is quoted the way git quotes paths
(``core.quotePath``): in double quotes, with ``\\n``, ``\\t``, ``\\r``,
``\\"``, ``\\\\``, ``\\xNN`` for a control character or an undecodable byte, and
``\\uNNNN`` for an invisible or layout character. Printable letters of any
script stay as they are (a Chinese name stays readable).

The quoting is reversible (``unquote_name``), so two names never look alike.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["escape_line", "shown_path", "unquote_name"]

# Zs too (but the plain space): a no-break space looks like a space and is not one.
_HIDDEN = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp", "Zs"})
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r", '"': '\\"', "\\": "\\\\"}
_UNNAMED = {value[1]: key for key, value in _NAMED.items()}
# Printable ASCII but quote and backslash, not starting or ending with a space.
_PLAIN_ASCII = re.compile(r"[!#-\[\]-~](?:[ !#-\[\]-~]*[!#-\[\]-~])?")


def _needs_escape(char: str) -> bool:
    return char in _NAMED or (char != " " and unicodedata.category(char) in _HIDDEN)


def _escape(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0x7F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def shown_path(name: str) -> str:
    """``name`` bare when plain, else quoted with escapes (see the module docstring)."""
    # The common case first, without a look at each character.
    if _PLAIN_ASCII.fullmatch(name):
        return name
    plain = (
        name
        and not name.startswith((" ", '"'))
        and not name.endswith(" ")
        and not any(_needs_escape(char) for char in name)
    )
    if plain:
        return name
    return '"' + "".join(_escape(char) if _needs_escape(char) else char for char in name) + '"'


def unquote_name(shown: str) -> str:
    """The name ``shown_path`` showed as ``shown`` (its inverse)."""
    if not (len(shown) >= 2 and shown.startswith('"') and shown.endswith('"')):
        return shown
    body, out, i = shown[1:-1], [], 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out.append(char)
            i += 1
            continue
        kind = body[i + 1]
        if kind in _UNNAMED:
            out.append(_UNNAMED[kind])
            i += 2
            continue
        width = {"x": 2, "u": 4, "U": 8}[kind]
        code = int(body[i + 2 : i + 2 + width], 16)
        if kind == "x" and code >= 0x80:
            code += 0xDC00  # back to the surrogateescape code point of the byte
        out.append(chr(code))
        i += 2 + width
    return "".join(out)


def escape_line(text: str) -> str:
    """``text`` kept on one line: newlines and hidden characters escaped like names.

    Unlike ``shown_path`` nothing is quoted; backslashes are doubled only when
    something else was escaped, so plain text reads as it is.
    """
    if not any(_needs_escape(char) and char not in '"\\' for char in text):
        return text
    return "".join(_escape(char) if _needs_escape(char) and char != '"' else char for char in text)
