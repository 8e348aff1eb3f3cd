"""``write`` and ``edit`` judged by their effect: the same policy as bash changesets.

Before the call runs, the change it would make is built as a one-file
``Changeset`` (the file as it is now against the text the call would leave)
and judged by ``EffectPolicy``: emptying or replacing a file, removing or
replacing lines (summed over the run), sensitive paths, setuid bits. An
``edit`` whose change cannot be planned (no match, a bad argument) changes
nothing, so only its path is judged; the tool then refuses it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.effects import Changeset, EffectPolicy, FileChange, FileState, line_counts, read_bytes

__all__ = ["planned_changeset", "write_edit_reasons"]

_MAX_BYTES = 16 * 1024 * 1024


def write_edit_reasons(
    policy: EffectPolicy,
    tool_name: str,
    arguments: Mapping[str, Any],
    workdir: Path,
    run: str | None,
    new_text: str | None,
) -> list[str]:
    """The effect policy's reasons for a ``write`` or ``edit`` (``new_text``: an edit's result)."""
    planned = planned_changeset(tool_name, arguments, workdir, new_text)
    if planned is None:
        return []
    changeset, data = planned
    decision = policy.evaluate(changeset, workdir.resolve(), lambda path: data, run=run)
    return list(decision.reasons)


def planned_changeset(
    tool_name: str, arguments: Mapping[str, Any], workdir: Path, new_text: str | None
) -> tuple[Changeset, bytes] | None:
    """The one-file changeset the call would make and its new bytes; None: no change."""
    path = arguments.get("path")
    if not isinstance(path, str) or not path.strip():
        return None
    try:
        root = workdir.resolve()
        target = (root / path).resolve()
        rel = target.relative_to(root).as_posix()
    except (OSError, ValueError, RuntimeError):
        return None  # outside the workdir, a NUL byte, a loop: the tool refuses it
    try:
        old = read_bytes(target, _MAX_BYTES)
        before = _state(target)
    except OSError:
        return None  # e.g. a name too long: the tool gives the model its own clean error
    data = _new_bytes(tool_name, arguments, old, new_text)
    if data is None:
        return None
    after = FileState(
        kind="file",
        mode=before.mode if before is not None else 0o644,
        size=len(data),
        sha256=_sha(data),
    )
    if before is not None and before.sha256 == after.sha256:
        return Changeset(), data
    if before is not None and old is None:
        added, removed, binary = 0, before.size, True  # too big to diff: all counts as removed
    else:
        added, removed, binary = line_counts(old, data)
    change = FileChange(
        path=rel,
        change="created" if before is None else "modified",
        before=before,
        after=after,
        added_lines=added,
        removed_lines=removed,
        binary=binary,
    )
    return Changeset(changes=(change,)), data


def _new_bytes(
    tool_name: str, arguments: Mapping[str, Any], old: bytes | None, new_text: str | None
) -> bytes | None:
    if tool_name == "edit":
        return None if new_text is None else new_text.encode("utf-8", "surrogatepass")
    content = arguments.get("content")
    if not isinstance(content, str):
        return None
    data = content.encode("utf-8", "surrogatepass")
    mode = arguments.get("mode") or "create"
    if mode == "append":
        return (old or b"") + data
    if mode == "create" and old is not None:
        return None  # create refuses an existing file: nothing changes
    return data


def _state(target: Path) -> FileState | None:
    from harness.effects import file_state

    state = file_state(target)
    return state if state is not None and state.kind == "file" else None


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()
