"""A cheap first check of tool arguments against the tool's JSON schema.

Only what catches real model mistakes fast: missing required keys, unknown keys
when the schema forbids them, and wrong top-level JSON types. Tools validate the
rest themselves and answer with a ``ToolError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["check_arguments"]

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (dict,),
    "null": (type(None),),
}


def check_arguments(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
    """Return a one-line description of what is wrong, or None when the call looks fine."""
    properties: Mapping[str, Any] = schema.get("properties") or {}
    missing = [key for key in schema.get("required", ()) if key not in arguments]
    if missing:
        return f"missing required argument(s): {', '.join(missing)}; expected {_summary(schema)}"
    if schema.get("additionalProperties") is False:
        unknown = sorted(key for key in arguments if key not in properties)
        if unknown:
            return f"unknown argument(s): {', '.join(unknown)}; expected {_summary(schema)}"
    for key, value in arguments.items():
        spec = properties.get(key)
        if not isinstance(spec, Mapping):
            continue
        expected = spec.get("type")
        if expected is None or _has_type(value, expected):
            continue
        return f"argument {key!r} must be of type {expected}, got {type(value).__name__}"
    return None


def _has_type(value: Any, expected: str | list[str]) -> bool:
    names = [expected] if isinstance(expected, str) else list(expected)
    for name in names:
        types = _JSON_TYPES.get(name)
        if types is None:
            return True
        if isinstance(value, bool) and name in ("integer", "number"):
            continue
        if isinstance(value, types):
            return True
    return False


def _summary(schema: Mapping[str, Any]) -> str:
    properties: Mapping[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required", ()))
    parts = [f"{name}{'' if name in required else '?'}" for name in properties]
    return "{" + ", ".join(parts) + "}"
