"""A JSON response body replays as the bytes that were recorded, though stored indented.

Cassettes store JSON bodies indented, for reading and for diffs. The code under
test may read the text itself, though, not the parsed value: a tool that hands
``response.text`` to the model sends the model whatever the replay gives it,
and the next model request then matches the cassette only if those bytes are
the recorded ones. So a response body keeps beside its indented text the name
of the rendering that gives the recorded bytes back (``harness_form: compact``,
next to ``string``); reading the cassette renders it again. A body no rendering
reproduces (its own number spellings, spacing or key duplicates) is stored
verbatim instead. A body whose credentials were redacted cannot replay
exactly, by design, and is stored indented as before.

Old cassettes have no ``harness_form`` and read as before; vanilla vcrpy ignores
the key and replays the indented text.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final

__all__ = ["FORM_KEY", "INDENTED", "exact_form", "render_form"]

FORM_KEY: Final = "harness_form"
_NEWLINE: Final = "+newline"


def _dumps(**options: Any) -> Callable[[Any], str]:
    return lambda value: json.dumps(value, **options)


INDENTED: Final = _dumps(indent=2, ensure_ascii=False)  # how a cassette stores JSON
# The renderings servers and frameworks send, by name: the file keeps the name.
_FORMS: Final[dict[str, Callable[[Any], str]]] = {
    "compact": _dumps(separators=(",", ":"), ensure_ascii=False),
    "compact-ascii": _dumps(separators=(",", ":")),
    "spaced": _dumps(ensure_ascii=False),  # Python's default: ", " and ": "
    "spaced-ascii": _dumps(),
    "indented-ascii": _dumps(indent=2),
}


def exact_form(text: str, value: Any) -> str | None:
    """The name of the rendering of ``value`` that is exactly ``text``, or None.

    None also when the indented storage itself is ``text`` (nothing to name).
    """
    body, newline = (text[:-1], _NEWLINE) if text.endswith("\n") else (text, "")
    if not newline and INDENTED(value) == text:
        return None
    if newline and INDENTED(value) == body:
        return "indented" + newline
    for name, render in _FORMS.items():
        if render(value) == body:
            return name + newline
    return None


def render_form(stored: str, form: object) -> str | None:
    """The recorded bytes of a body stored as ``stored`` (indented) with ``form``.

    None when ``form`` is not a rendering harness knows, or ``stored`` is no
    longer JSON (edited by hand): the stored text is then replayed as it is.
    """
    if not isinstance(form, str):
        return None
    name, newline = (form[: -len(_NEWLINE)], "\n") if form.endswith(_NEWLINE) else (form, "")
    render = INDENTED if name == "indented" else _FORMS.get(name)
    if render is None:
        return None
    try:
        value = json.loads(stored)
    except ValueError:
        return None
    return render(value) + newline
