"""Session keys, JSONL memory tolerance and plans."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core import ConfigurationError
from harness.session import MemoryEntry, SessionManager, SessionMemoryStore, SessionRef


def test_truncated_last_line_is_skipped_and_appends_continue(tmp_path: Path) -> None:
    store = SessionMemoryStore(tmp_path)
    store.append("s", MemoryEntry(role="user", content="one"))
    path = store.path_for("s")
    with path.open("a") as handle:
        handle.write('{"role": "assistant", "cont')  # a crash mid-write
    store.append("s", MemoryEntry(role="user", content="two"))
    assert [e.content for e in store.load("s")] == ["one", "two"]


@pytest.mark.parametrize(
    "key",
    ["../evil", "a/b", ".hidden", "", "x" * 300, "a..b"],
    ids=["dotdot", "slash", "dot", "empty", "long", "double-dot"],
)
def test_bad_session_keys_are_refused(tmp_path: Path, key: str) -> None:
    with pytest.raises(ConfigurationError, match="session key"):
        SessionManager(tmp_path, tmp_path).resolve(key)


def test_session_ref_gets_the_workdir(tmp_path: Path) -> None:
    manager = SessionManager(tmp_path / "state", tmp_path)
    assert manager.resolve("abc").workdir == tmp_path
    ref = SessionRef(key="k", source="feishu", display_name="chat")
    assert manager.resolve(ref).workdir == tmp_path and manager.resolve(ref).label == "chat"
