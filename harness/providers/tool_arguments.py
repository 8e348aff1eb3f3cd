"""Tool-call arguments on the wire: JSON text in, a dict out, and back.

Models sometimes send arguments that are not a JSON object (truncated output,
a stray quote, a bare list). An adapter must not crash on that: the engine turns
the call into an error observation so the model can try again. Such arguments
are kept verbatim under ``RAW_ARGUMENTS_KEY``:

    {"__raw_arguments__": "{\\"path\\": \\"READ"}

and sent back unchanged when the conversation is replayed to the provider.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from harness.core.messages import RAW_ARGUMENTS_KEY

__all__ = ["RAW_ARGUMENTS_KEY", "encode_tool_arguments", "parse_tool_arguments", "raw_arguments"]


def parse_tool_arguments(raw: str | None) -> dict[str, Any]:
    """Parse a model's JSON argument text into a dict, never raising.

    Empty text means "no arguments" (some models send ``""`` for tools without
    parameters). Anything that is not a JSON object comes back as
    ``{RAW_ARGUMENTS_KEY: raw}``.
    """
    if raw is None or not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {RAW_ARGUMENTS_KEY: raw}
    if not isinstance(value, dict):
        return {RAW_ARGUMENTS_KEY: raw}
    return value


def raw_arguments(arguments: Mapping[str, Any]) -> str | None:
    """Return the unparsed text if ``arguments`` is the invalid-JSON marker, else None."""
    if len(arguments) == 1 and isinstance(arguments.get(RAW_ARGUMENTS_KEY), str):
        return str(arguments[RAW_ARGUMENTS_KEY])
    return None


def encode_tool_arguments(arguments: Mapping[str, Any]) -> str:
    """Serialise arguments for the wire; a marker dict replays the model's own text."""
    raw = raw_arguments(arguments)
    if raw is not None:
        return raw
    # Compact, as the models themselves write arguments.
    return json.dumps(dict(arguments), ensure_ascii=False, separators=(",", ":"))
