"""read, write and edit never reach the harness state dir, whatever the spelling."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness import Settings, build_application
from harness.core import LLMRequest, LLMResponse, Role, ToolCall, ToolError
from harness.providers import FunctionProvider
from harness.tools import ToolInput
from harness.tools.builtin import EditTool, ReadTool, WriteTool

RECORD = '{"status": "pending", "expires_at": "2026-12-01T00:00:00Z"}\n'
RECORD_PATH = ".harness/sessions/s1/approvals/ap-1.json"


def _call(tool_name: str, workdir: Path, state_dir: Path | None, path: str) -> Any:
    """One call of a file tool that would change or show the approval record."""
    tools: dict[str, Callable[[], Any]] = {
        "read": lambda: ReadTool(state_dir=state_dir),
        "write-create": lambda: WriteTool(state_dir=state_dir),
        "write-overwrite": lambda: WriteTool(state_dir=state_dir),
        "write-append": lambda: WriteTool(state_dir=state_dir),
        "edit": lambda: EditTool(state_dir=state_dir),
    }
    arguments: dict[str, Any] = {"path": path}
    if tool_name.startswith("write"):
        arguments |= {"content": '{"status": "approved"}\n', "mode": tool_name.split("-")[1]}
    elif tool_name == "edit":
        arguments |= {"old_text": '"pending"', "new_text": '"approved"'}
    return tools[tool_name]().run(ToolInput(arguments=arguments, workdir=workdir))


TOOLS = ["read", "write-create", "write-overwrite", "write-append", "edit"]

# name -> (setup in the workdir, the path the model gives)
SPELLINGS: dict[str, tuple[str, str]] = {
    "plain": ("", RECORD_PATH),
    "dot-slash-dotdot": ("", "./.harness/../.harness/sessions/s1/approvals/ap-1.json"),
    "double-slashes": ("", ".harness//sessions//s1/approvals//ap-1.json"),
    "via-subdir-dotdot": ("sub", "sub/../.harness/sessions/s1/approvals/ap-1.json"),
    "absolute": ("", "{state}/sessions/s1/approvals/ap-1.json"),
    "symlinked-file": ("link-file", "innocent.json"),
    "symlinked-parent": ("link-dir", "approvals-alias/ap-1.json"),
    "symlinked-state-dir": ("link-state", "st/sessions/s1/approvals/ap-1.json"),
    "new-file-inside": ("", ".harness/sessions/s1/approvals/ap-2.json"),
    "the-dir-itself": ("", ".harness/"),
}


def _workspace(tmp_path: Path, setup: str) -> tuple[Path, Path, Path]:
    workdir = tmp_path / "work"
    state = workdir / ".harness"
    record = state / "sessions" / "s1" / "approvals" / "ap-1.json"
    record.parent.mkdir(parents=True)
    record.write_text(RECORD)
    if setup == "sub":
        (workdir / "sub").mkdir()
    elif setup == "link-file":
        (workdir / "innocent.json").symlink_to(record)
    elif setup == "link-dir":
        (workdir / "approvals-alias").symlink_to(record.parent)
    elif setup == "link-state":
        (workdir / "st").symlink_to(".harness")
    return workdir, state, record


@pytest.mark.parametrize("spelling", list(SPELLINGS), ids=list(SPELLINGS))
@pytest.mark.parametrize("tool_name", TOOLS, ids=TOOLS)
def test_the_state_dir_is_refused_by_any_spelling(
    tmp_path: Path, tool_name: str, spelling: str
) -> None:
    setup, raw = SPELLINGS[spelling]
    workdir, state, record = _workspace(tmp_path, setup)
    before = sorted(p.relative_to(state) for p in state.rglob("*"))
    for state_dir in (None, state):  # the default location, and the one harness passes
        with pytest.raises(ToolError) as caught:
            _call(tool_name, workdir, state_dir, raw.format(state=state))
        message = str(caught.value)
        assert caught.value.error_type == "state_dir", message
        assert "HARNESS_STATE_DIR" in message and "belongs to harness" in message
        assert "pending" not in message  # nothing of the record leaks either
    assert record.read_text() == RECORD
    assert sorted(p.relative_to(state) for p in state.rglob("*")) == before


@pytest.mark.parametrize("tool_name", TOOLS, ids=TOOLS)
@pytest.mark.parametrize("how", ["absolute", "symlink"])
def test_a_state_dir_outside_the_workdir_is_named_in_the_refusal(
    tmp_path: Path, tool_name: str, how: str
) -> None:
    workdir = tmp_path / "work"
    workdir.mkdir()
    state = tmp_path / "state"
    record = state / "sessions" / "s1" / "approvals" / "ap-1.json"
    record.parent.mkdir(parents=True)
    record.write_text(RECORD)
    raw = str(record)
    if how == "symlink":
        (workdir / "rec.json").symlink_to(record)
        raw = "rec.json"
    with pytest.raises(ToolError) as caught:
        _call(tool_name, workdir, state, raw)
    assert caught.value.error_type == "state_dir"
    assert "HARNESS_STATE_DIR" in str(caught.value)
    assert record.read_text() == RECORD


def test_files_next_to_the_state_dir_are_fine(tmp_path: Path) -> None:
    workdir, _, _ = _workspace(tmp_path, "")
    (workdir / ".harness-notes.txt").write_text("mine\n")  # a prefix, not inside
    out = ReadTool().run(ToolInput(arguments={"path": ".harness-notes.txt"}, workdir=workdir))
    assert out == "     1\tmine"


def test_a_hard_link_into_the_state_dir_is_not_read(tmp_path: Path) -> None:
    workdir, _, record = _workspace(tmp_path, "")
    os.link(record, workdir / "copy.json")
    with pytest.raises(ToolError) as caught:
        _call("read", workdir, None, "copy.json")
    assert caught.value.error_type == "state_dir"
    with pytest.raises(ToolError) as caught:
        _call("edit", workdir, None, "copy.json")
    assert caught.value.error_type == "state_dir"
    assert record.read_text() == RECORD


def test_overwriting_a_hard_link_never_changes_the_state_dir_copy(tmp_path: Path) -> None:
    # A write replaces the workdir's name with a new inode (temp file + rename),
    # so the record's inode, still named in the state dir, keeps its content.
    workdir, _, record = _workspace(tmp_path, "")
    os.link(record, workdir / "copy.json")
    _call("write-overwrite", workdir, None, "copy.json")
    assert record.read_text() == RECORD
    assert (workdir / "copy.json").read_text() == '{"status": "approved"}\n'
    assert record.stat().st_nlink == 1


def test_hard_links_inside_the_workdir_still_work(tmp_path: Path) -> None:
    workdir, _, _ = _workspace(tmp_path, "")
    (workdir / "a.txt").write_text("shared\n")
    os.link(workdir / "a.txt", workdir / "b.txt")
    out = ReadTool().run(ToolInput(arguments={"path": "b.txt"}, workdir=workdir))
    assert out == "     1\tshared"


def _app_observation(tmp_path: Path, call: ToolCall) -> tuple[str, Path]:
    workdir = tmp_path / "work"
    state = workdir / "custom-state"  # not the default name: the app must pass it
    workdir.mkdir()
    # A first run makes (and marks) the state dir, as a real one would have been.
    first = Settings(workdir=workdir, state_dir=state, approval_provider="off")
    build_application(first, provider=FunctionProvider(lambda _: LLMResponse(text="ok"))).run(
        "init", session="s0"
    )
    record = state / "sessions" / "s1" / "approvals" / "ap-1.json"
    record.parent.mkdir(parents=True)
    record.write_text(RECORD)
    seen: list[str] = []

    def model(request: LLMRequest) -> LLMResponse:
        results = [m.content for m in request.messages if m.role is Role.TOOL]
        if not results:
            return LLMResponse(tool_calls=(call,))
        seen.extend(results)
        return LLMResponse(text="done")

    settings = Settings(
        workdir=workdir,
        state_dir=state,
        enabled_tools=("read", "write", "edit"),
        approval_provider="off",
    )
    app = build_application(settings, provider=FunctionProvider(model))
    try:
        app.run("go", session="s2")
    finally:
        app.close()
    assert record.read_text() == RECORD
    return seen[0], record


@pytest.mark.parametrize(
    "call",
    [
        ToolCall(name="read", arguments={"path": "custom-state/sessions/s1/approvals/ap-1.json"}),
        ToolCall(
            name="write",
            arguments={
                "path": "custom-state/sessions/s1/approvals/ap-1.json",
                "content": "{}",
                "mode": "overwrite",
            },
        ),
        ToolCall(
            name="edit",
            arguments={
                "path": "custom-state/sessions/s1/approvals/ap-1.json",
                "old_text": "pending",
                "new_text": "approved",
            },
        ),
    ],
    ids=["read", "write", "edit"],
)
def test_the_application_passes_its_state_dir_to_the_file_tools(
    tmp_path: Path, call: ToolCall
) -> None:
    observation, _ = _app_observation(tmp_path, call)
    assert "HARNESS_STATE_DIR" in observation and "pending" not in observation


def test_the_explorer_child_cannot_read_the_state_dir(tmp_path: Path) -> None:
    workdir = tmp_path / "work"
    state = workdir / "custom-state"
    state.mkdir(parents=True)
    (state / "secret.txt").write_text("SENTINEL-STATE-5D1E\n")
    child_results: list[str] = []

    def model(request: LLMRequest) -> LLMResponse:
        results = [m.content for m in request.messages if m.role is Role.TOOL]
        if "explore" in {t.name for t in request.tools}:
            if not results:
                return LLMResponse(tool_calls=(ToolCall(name="explore", arguments={"task": "t"}),))
            return LLMResponse(text="parent done")
        if not results:
            return LLMResponse(
                tool_calls=(ToolCall(name="read", arguments={"path": "custom-state/secret.txt"}),)
            )
        child_results.extend(results)
        return LLMResponse(text="child done")

    settings = Settings(workdir=workdir, state_dir=state, enabled_tools=("explore",))
    app = build_application(settings, provider=FunctionProvider(model))
    try:
        app.run("explore", session="parent")
    finally:
        app.close()
    assert len(child_results) == 1
    assert "HARNESS_STATE_DIR" in child_results[0]
    assert "SENTINEL-STATE" not in child_results[0]


SEGMENTS = st.sampled_from([".", "..", "", "sub", ".harness", "st", "alias", "ap-1.json", "x"])


@pytest.mark.deep
@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(parts=st.lists(SEGMENTS, min_size=1, max_size=7), absolute=st.booleans())
def test_no_spelling_reads_or_changes_the_state_dir(
    tmp_path_factory: pytest.TempPathFactory, parts: list[str], absolute: bool
) -> None:
    root = tmp_path_factory.mktemp("spell")
    workdir, state, record = _workspace(root, "link-state")  # st -> .harness
    (workdir / "sub").mkdir()
    (workdir / "alias").symlink_to(record.parent)
    (workdir / "ap-1.json").write_text("an ordinary file: pending\n")
    snapshot = {p: p.read_bytes() for p in state.rglob("*") if p.is_file()}
    raw = "/".join(parts)
    if absolute:
        raw = f"{workdir}/{raw}"
    for tool_name in TOOLS:
        try:
            out = _call(tool_name, workdir, None, raw)
        except ToolError as exc:
            out = str(exc)
        assert '"expires_at"' not in str(out), (tool_name, raw)
    assert {p: p.read_bytes() for p in state.rglob("*") if p.is_file()} == snapshot, raw
