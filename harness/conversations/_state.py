"""The state file of a conversation: what the user's tools change, and what the goal reads.

τ-bench judges a conversation by the database it leaves behind: the state file
(JSON, in the workspace) after the conversation must equal the expected one.
The user's own tools (τ²'s dual control: the user restarts the router) write
dotted paths of the same file, atomically (a temporary file, then a rename).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.conversations._spec import UserToolSpec
from harness.core.errors import ConfigurationError

__all__ = ["read_state", "run_user_tool", "set_path", "state_failures"]


def read_state(path: Path) -> Any:
    """The JSON value of the state file.

    Raises:
        ConfigurationError: the file is missing or not JSON.
    """
    try:
        return json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise ConfigurationError(
            f"state file {path.name}: cannot read it ({exc.strerror})"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"state file {path.name}: not JSON ({exc})") from None


def _write_state(path: Path, value: Any) -> None:
    text = json.dumps(value, indent=2, sort_keys=True) + "\n"
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:  # its folder is missing or read-only: the user sees why
        raise ConfigurationError(
            f"state file {path.name}: cannot write it ({exc.strerror})"
        ) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def set_path(document: Any, dotted: str, value: Any) -> Any:
    """A copy of ``document`` with ``value`` at ``dotted`` (``a.b.c``); missing objects
    on the way are made, a list index is a number (``orders.0.status``).

    Raises:
        ConfigurationError: a step goes through something that is neither an object
            nor a list with that index.
    """
    head, _, rest = dotted.partition(".")
    if isinstance(document, list):
        if not head.isdigit() or int(head) >= len(document):
            raise ConfigurationError(f"state path {dotted!r}: no item {head!r} in a list")
        items = list(document)
        position = int(head)
        items[position] = set_path(items[position], rest, value) if rest else value
        return items
    if isinstance(document, dict) or document is None:
        mapping = dict(document or {})
        mapping[head] = set_path(mapping.get(head), rest, value) if rest else value
        return mapping
    raise ConfigurationError(f"state path {dotted!r}: {head!r} is inside a plain value")


def run_user_tool(tool: UserToolSpec, state: Path) -> str:
    """Apply ``tool``'s writes to the state file; the text the user sees.

    Raises:
        ConfigurationError: the state file cannot be read, written, or has no such path.
    """
    document = read_state(state) if state.exists() else {}
    for dotted, value in tool.sets.items():
        document = set_path(document, dotted, value)
    _write_state(state, document)
    return tool.result


def _differences(actual: Any, expected: Any, where: str, subset: bool) -> list[str]:
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        found: list[str] = []
        keys = expected.keys() if subset else expected.keys() | actual.keys()
        for key in sorted(keys, key=str):
            here = f"{where}.{key}" if where else str(key)
            if key not in actual:
                found.append(f"{here} is missing (expected {expected[key]!r})")
            elif key not in expected:
                found.append(f"{here} = {actual[key]!r} is not expected")
            else:
                found += _differences(actual[key], expected[key], here, subset)
        return found
    if actual != expected:
        return [f"{where or '(the whole state)'} = {actual!r}, expected {expected!r}"]
    return []


def state_failures(path: Path, expected: Any, *, subset: bool = False) -> list[str]:
    """How the state file differs from ``expected`` (empty: it holds); with ``subset``
    only the keys ``expected`` names are compared."""
    if not path.is_file():
        return [f"state: {path.name} does not exist"]
    try:
        actual = read_state(path)
    except ConfigurationError as exc:
        return [f"state: {exc}"]
    return [f"state: {line}" for line in _differences(actual, expected, "", subset)[:10]]
