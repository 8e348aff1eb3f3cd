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
) -> ModelT:
    """Load ``path`` as ``model`` of ``schema_version`` ``version`` (or one of several).

    Args:
        what: how to name the file in messages ("approval file", "eval report").
        error: the error class to raise.
        consequence: appended to every message (e.g. "nothing was executed").
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
