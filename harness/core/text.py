"""Text that can always be written: lone surrogates replaced.

A model answer decoded from JSON may hold a lone surrogate (``"\\ud800"`` is
valid JSON but no Unicode character), and so may a prompt that came through
``argv`` as undecodable bytes. Python keeps such a string, but nothing can
encode it as UTF-8: memory, traces and checkpoints would fail to save it and
the run would lose its answer. The protocol types pass their texts through
:func:`without_surrogates`, which replaces each one with U+FFFD.
"""

from __future__ import annotations

import re
from typing import Any, Final

__all__ = ["REPLACEMENT", "without_surrogates"]

REPLACEMENT: Final = "\ufffd"
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _clean_text(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, text)
    return text


def without_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too) replaced.

    Mappings, lists and tuples are walked; the same object comes back when
    nothing needed replacing, so the common case costs one encode per string.
    """
    if isinstance(value, str):
        return _clean_text(value)
    if isinstance(value, dict):
        cleaned = {without_surrogates(k): without_surrogates(v) for k, v in value.items()}
        same = all(a is b for a, b in zip(value.values(), cleaned.values(), strict=True))
        return value if same and list(cleaned) == list(value) else cleaned
    if isinstance(value, list | tuple):
        items = [without_surrogates(item) for item in value]
        if all(a is b for a, b in zip(value, items, strict=True)):
            return value
        return type(value)(items) if isinstance(value, tuple) else items
    return value
