"""Versioned JSON documents on disk: validated on read, refused when foreign.

Approvals, checkpoints and eval reports are each a pydantic model with a
``schema_version`` field. ``read_document`` turns every way such a file can be
wrong (missing, unreadable, not JSON, nested too deep, another version, invalid fields) into one
error of the caller's kind whose message names the file and the fix.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from harness.core.errors import HarnessError
from harness.jsonload import JsonTooDeepError, load_json

__all__ = ["read_document"]

ModelT = TypeVar("ModelT", bound=BaseModel)


def read_document(
    path: Path,
    model: type[ModelT],
    version: int | tuple[int, ...],
    *,
    what: str,
    error: type[HarnessError],
    consequence: str = "",
    required: tuple[str, ...] = (),
) -> ModelT:
    """Load ``path`` as ``model`` of ``schema_version`` ``version`` (or one of several).

    Args:
        what: how to name the file in messages ("approval file", "eval report").
        error: the error class to raise.
        consequence: appended to every message (e.g. "nothing was executed").
        required: top-level fields every document of this kind has: their absence means
            the file is another kind of document (a trace read as a report, say), which
            a version number alone does not tell (versions of kinds overlap).
    """
    tail = f"; {consequence}" if consequence else ""
    try:
        data = load_json(path.read_bytes(), source=f"{what} {path}")
    except FileNotFoundError:
        raise error(f"{what} {path} does not exist{tail}") from None
    except JsonTooDeepError as exc:
        raise error(f"{exc}{tail}") from None
    except (OSError, ValueError) as exc:  # also UnicodeDecodeError, JSONDecodeError
        raise error(f"{what} {path} is unreadable or corrupt ({exc}){tail}") from None
    found = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(data, dict) and (missing := [key for key in required if key not in data]):
        other = _kind_of(data)
        raise error(
            f"{path} is not an {what}: it has no {missing[0]!r} field"
            f"{f' (it looks like {other})' if other else ''}{tail}"
        )
    readable = version if isinstance(version, tuple) else (version,)
    if found not in readable or isinstance(found, bool):
        shown = " to ".join(map(str, sorted({min(readable), max(readable)})))
        plural = "s" if len(readable) > 1 else ""
        raise error(
            f"{what} {path} has schema_version {found!r}; this harness reads version{plural} "
            f"{shown}{tail}"
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise error(f"{what} {path} is invalid: {exc}{tail}") from None


def _kind_of(data: dict[str, object]) -> str:
    """A guess at what a foreign JSON document is, for the refusal's message."""
    if "root" in data and "trace_id" in data:
        return "a trace"
    if "approval_id" in data or "pending" in data:
        return "an approval record"
    return ""
