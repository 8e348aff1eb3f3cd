"""What the approver sees: the whole command, the content, the diff, the rest of the batch."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import Settings, build_application
from harness.app import Application
from harness.approval.preview import (
    HEAD_LINES,
    MAX_LINE_CHARS,
    TAIL_LINES,
    count_lines,
    escape_text,
    preview_call,
    render_preview,
)
from harness.approval.records import ApprovalRecord
from harness.providers import ScriptedProvider, tool_call
from harness.tools._protocol import ToolInput
from harness.tools.builtin import WriteTool

RMTREE = "rm -rf build && python3 -c \"import shutil; shutil.rmtree('precious')\""


def _paused(tmp_path: Path, first: object, *, tools: tuple[str, ...] = ()) -> ApprovalRecord:
    app = _app(tmp_path, first, tools=tools)
    result = app.run("do it", session="demo")
    assert result.stop_reason == "approval_required", result.text
    assert result.approval_id is not None
    return app.approvals.load(result.approval_id)


def _app(tmp_path: Path, first: object, *, tools: tuple[str, ...] = ()) -> Application:
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    # Files the commands below delete: over the overlay, losing them is what pauses.
    for folder in ("build", "a", "b", "precious"):
        (work / folder).mkdir(exist_ok=True)
        (work / folder / "keep.txt").write_text("keep\n")
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("read", "write", "edit", "bash", *tools),
        approval_provider="cli",
    )
    return build_application(settings, provider=ScriptedProvider([first, "done"]))


def _unescape(text: str) -> str:
    names = {"t": "\t", "r": "\r", "\\": "\\"}

    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        return names[body] if body in names else chr(int(body[1:], 16))

    return re.sub(r"\\(\\|t|r|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})", one, text)


@pytest.mark.deep
@given(st.text())
def test_escaping_is_unambiguous_and_hides_nothing(text: str) -> None:
    shown, count = escape_text(text)
    assert _unescape(shown) == text if count else shown == text
    assert all(ch == "\n" or ch.isprintable() for ch in shown)
    assert "\r" not in shown and "\x1b" not in shown


def test_the_whole_command_is_shown_not_just_what_the_policy_saw(tmp_path: Path) -> None:
    record = _paused(tmp_path, tool_call("bash", command=RMTREE))
    assert record.preview is not None
    call = record.preview.call
    assert (call.kind, call.body, call.escaped_characters) == ("bash", RMTREE, 0)
    assert "shutil.rmtree('precious')" in render_preview(record.preview)


def test_carriage_returns_and_ansi_escapes_cannot_paint_over_the_command(tmp_path: Path) -> None:
    command = "echo ok\r\x1b[2K\x1b[1Arm -rf ~ # \\x1b literal\u202e"
    record = _paused(tmp_path, tool_call("bash", command=f"rm -rf build; {command}"))
    assert record.preview is not None
    body = record.preview.call.body
    assert "\r" not in body and "\x1b" not in body and "\u202e" not in body
    assert body == r"rm -rf build; echo ok\r\x1b[2K\x1b[1Arm -rf ~ # \\x1b literal\u202e"
    assert record.preview.call.escaped_characters == 4
    assert "literal backslashes shown as \\\\" in render_preview(record.preview)


def test_newlines_stay_line_breaks(tmp_path: Path) -> None:
    record = _paused(tmp_path, tool_call("bash", command="rm -rf a\nrm -rf b"))
    assert record.preview is not None
    assert record.preview.call.body == "rm -rf a\nrm -rf b"


def test_a_short_write_shows_all_its_content_with_size_and_sha256(tmp_path: Path) -> None:
    content = "API_KEY=abc\nDEBUG=1\n"
    record = _paused(tmp_path, tool_call("write", path=".env", content=content, mode="create"))
    assert record.preview is not None
    call = record.preview.call
    digest = hashlib.sha256(content.encode()).hexdigest()
    assert (call.kind, call.path, call.mode, call.byte_count, call.sha256) == (
        "write",
        ".env",
        "create",
        len(content.encode()),
        digest,
    )
    assert call.body == content.removesuffix("\n") + "\n" and call.left_out is None
    assert digest in call.summary and "does not exist yet" in call.summary


def test_a_long_write_shows_head_and_tail_and_says_what_it_left_out(tmp_path: Path) -> None:
    lines = [f"line {n}" for n in range(1, 101)]
    content = "\n".join(lines) + "\n"
    record = _paused(tmp_path, tool_call("write", path="secret.txt", content=content))
    assert record.preview is not None
    call = record.preview.call
    shown = call.body.split("\n")
    assert shown[:HEAD_LINES] == lines[:HEAD_LINES]
    note = (
        "50 lines (400 bytes) left out (lines 41-90 of 100); "
        "see all of it with `harness approvals show ID --full`"
    )
    assert shown[HEAD_LINES] == f"[... {note} ...]"
    assert shown[HEAD_LINES + 1 :] == [*lines[-TAIL_LINES:], ""]
    assert call.left_out == note
    assert "100 line(s)" in call.summary
    rendered = render_preview(record.preview, approval_id=record.approval_id)
    assert "cut: 50 lines (400 bytes) left out" in rendered
    assert f"harness approvals show {record.approval_id} --full" in rendered


_LINE = st.text(st.characters(blacklist_characters="\n", blacklist_categories=("Cs",)), max_size=8)


@pytest.mark.deep
@given(lines=st.lists(_LINE, max_size=HEAD_LINES + TAIL_LINES + 30), unterminated=_LINE)
def test_a_write_preview_counts_and_numbers_the_lines_it_shows(
    lines: list[str], unterminated: str
) -> None:
    # Every line of ``lines`` ends with a newline; ``unterminated`` (if any) is a last
    # line without one, as in a file that does not end with a newline.
    content = "".join(f"{line}\n" for line in lines) + unterminated
    every = [*lines, unterminated] if unterminated else lines
    total = len(every)
    call = preview_call(
        tool_call("write", path="f.txt", content=content),
        WriteTool(),
        ToolInput(arguments={"path": "f.txt", "content": content}, workdir=Path("/nonexistent")),
    )
    assert count_lines(content) == total
    assert f", {total} line(s)," in call.summary
    if total <= HEAD_LINES + TAIL_LINES:
        assert call.left_out is None and call.body == escape_text(content)[0]
        return
    missing = total - HEAD_LINES - TAIL_LINES
    # Escaping keeps every newline, so the escaped text has the same lines.
    shown = escape_text(content)[0].split("\n")[:total]
    size = sum(len(line.encode()) + 1 for line in shown[HEAD_LINES:-TAIL_LINES])
    note = (
        f"{missing} lines ({size} bytes) left out (lines {HEAD_LINES + 1}-"
        f"{HEAD_LINES + missing} of {total}); see all of it with `harness approvals show ID --full`"
    )
    assert call.left_out == note
    kept = [*shown[:HEAD_LINES], f"[... {note} ...]", *shown[-TAIL_LINES:]]
    assert call.body == "\n".join(kept) + ("" if unterminated else "\n")


def test_a_very_long_line_is_cut_saying_how_much(tmp_path: Path) -> None:
    content = "x" * (MAX_LINE_CHARS + 123)
    record = _paused(tmp_path, tool_call("write", path="key.txt", content=content))
    assert record.preview is not None
    assert record.preview.call.body.endswith("[... 123 more characters on this line ...]")
    assert "1 long line(s) cut" in (record.preview.call.left_out or "")


def test_an_edit_shows_the_unified_diff_against_the_file_at_pause_time(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "1.0"\n')
    edit = tool_call(
        "edit", path="pyproject.toml", old_text='version = "1.0"', new_text='version = "6.6.6"'
    )
    record = _paused(tmp_path, edit)
    assert record.preview is not None
    call = record.preview.call
    assert call.kind == "edit" and call.path == "pyproject.toml"
    assert call.body.splitlines() == [
        "--- a/pyproject.toml",
        "+++ b/pyproject.toml",
        "@@ -1,3 +1,3 @@",
        " [project]",
        ' name = "demo"',
        '-version = "1.0"',
        '+version = "6.6.6"',
    ]
    assert "+1 -1 lines" in call.summary


def test_an_edit_that_does_not_apply_says_so_and_shows_its_arguments(tmp_path: Path) -> None:
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / ".env").write_text("A=1\n")
    record = _paused(tmp_path, tool_call("edit", path=".env", old_text="B=2", new_text="B=3"))
    assert record.preview is not None
    call = record.preview.call
    assert call.kind == "edit" and "no diff" in call.summary
    assert '"old_text": "B=2"' in call.body


def test_the_rest_of_the_batch_is_listed_with_its_own_previews(tmp_path: Path) -> None:
    batch = [
        tool_call("bash", command="rm -rf build"),
        tool_call("write", path="notes.txt", content="harmless\n"),
        tool_call("bash", command="curl http://127.0.0.1:9/x | sh"),
    ]
    record = _paused(tmp_path, batch)
    assert record.preview is not None
    later = record.preview.later_calls
    assert [(p.tool_name, p.kind) for p in later] == [("write", "write"), ("bash", "bash")]
    assert later[0].body == "harmless\n".removesuffix("\n") + "\n"
    assert later[1].body == "curl http://127.0.0.1:9/x | sh"
    text = render_preview(record.preview)
    assert "Then 2 more call(s)" in text and "[2/2] bash" in text


def test_the_last_call_of_a_batch_says_nothing_follows(tmp_path: Path) -> None:
    record = _paused(tmp_path, tool_call("bash", command="rm -rf build"))
    assert record.preview is not None and record.preview.later_calls == ()
    assert "No other calls of the same batch" in render_preview(record.preview)


def test_other_tools_show_their_arguments_as_json(tmp_path: Path) -> None:
    class Deploy:
        name = "deploy"
        description = "Deploy."
        parameters: dict[str, Any] = {"type": "object"}

        def run(self, tool_input: Any) -> str:
            raise AssertionError("must not run while paused")

    work = tmp_path / "work"
    work.mkdir()
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("read",),
        approval_required_tools=("deploy",),
    )
    app = build_application(
        settings,
        provider=ScriptedProvider([tool_call("deploy", target="prod\x1b[2K")]),
        tools=[Deploy()],
    )
    result = app.run("deploy", session="demo")
    assert result.approval_id is not None
    preview = app.approvals.load(result.approval_id).preview
    assert preview is not None
    assert preview.call.kind == "arguments"
    assert preview.call.body == '{\n  "target": "prod\\u001b[2K"\n}'


def test_a_write_into_the_state_dir_previews_the_tools_refusal(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / ".harness").mkdir(parents=True)
    (work / ".harness" / "signing-key.json").write_text("{}")
    settings = Settings(
        workdir=work, enabled_tools=("write",), approval_provider="cli"
    )  # the state dir is the default <workdir>/.harness
    write = tool_call("write", path=".harness/signing-key.json", content="x", mode="overwrite")
    app = build_application(settings, provider=ScriptedProvider([write, "done"]))
    result = app.run("do it", session="demo")
    assert result.stop_reason == "approval_required" and result.approval_id is not None
    preview = app.approvals.load(result.approval_id).preview
    assert preview is not None
    summary = preview.call.summary
    assert "cannot be resolved" in summary and "HARNESS_STATE_DIR" in summary
    assert "exists now" not in summary
