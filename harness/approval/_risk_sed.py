"""Reading a sed script just far enough to tell whether it runs commands or writes files.

GNU sed runs shell commands with ``e`` (and the ``e`` flag of ``s``) and writes
files with ``w``/``W`` (and the ``w`` flag). The reader skips addresses, the
two fields of ``s``/``y`` and text arguments; anything it does not follow counts
as running code, so it fails closed.
"""

from __future__ import annotations

import re

__all__ = ["sed_runs_code"]

_SED_ADDRESS = re.compile(r"\s*(?:\d+|\$|/(?:[^/\\\n]|\\.)*/[IM]*|\\(.)(?:(?!\1).|\\.)*\1[IM]*)")
_SED_TO_EOL = frozenset("aicrRwWbtTvlLqQ:#")


def sed_runs_code(script: str) -> bool:
    """Whether a sed script executes commands or writes files; True when unsure."""
    index = 0
    while index < len(script):
        char = script[index]
        if char in " \t\n;{}!":
            index += 1
            continue
        address = _SED_ADDRESS.match(script, index)
        while address is not None and address.end() > index:
            index = address.end()
            if script[index : index + 1] in (",", "~", "+"):
                index += 1
            address = _SED_ADDRESS.match(script, index)
        if index >= len(script):
            return False
        command = script[index]
        if command in "ewW":
            return True
        if command in "sy":
            end = _sed_substitution_end(script, index + 1)
            if end is None:
                return True
            flags = re.match(r"[^;}\n]*", script[end:])
            if command == "s" and flags is not None and re.search(r"[ew]", flags.group()):
                return True
            index = end
        elif command in _SED_TO_EOL:
            newline = script.find("\n", index)
            index = len(script) if newline == -1 else newline
        elif command in "=dDgGhHlnNpPxzF":
            index += 1
        else:
            return True  # something this reader does not follow
    return False


def _sed_substitution_end(script: str, start: int) -> int | None:
    if start >= len(script) or script[start] in "\\\n":
        return None
    delimiter = script[start]
    index = start + 1
    for _ in range(2):
        while index < len(script) and script[index] != delimiter:
            index += 2 if script[index] == "\\" else 1
        if index >= len(script):
            return None
        index += 1
    return index
