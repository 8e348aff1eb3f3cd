"""What the approver sees: a faithful preview of each call, built at pause time.

bash shows the whole command; write shows path, mode, size, sha256 and the
content; edit shows the unified diff against the file as it is at pause time;
any other tool shows its arguments as JSON. Control and invisible characters
(ANSI escapes, carriage returns, bidi overrides, zero-width marks) are shown
escaped so a command cannot paint over what the approver reads; real newlines
stay line breaks. Whenever something is escaped, literal backslashes are
doubled and a note says so, so ``\\x1b`` typed by the model and an escaped ESC
never look alike. Nothing is cut silently: every cut says how much it left out
(lines and bytes) and how to see the whole (``harness approvals show ID --full``,
``render_full_call``). One-line texts (summaries, tool names, risk reasons) are
escaped with ``escape_line``, newlines too, so a newline in a file name cannot
forge a line of the prompt.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from harness.core.messages import ToolCall
from harness.effects import FULL_HINT, PREVIEW_BUDGET, ChangesetPreview, escape_line, unified
from harness.tools import Tool, ToolInput

__all__ = [
    "ApprovalPreview",
    "CallPreview",
    "build_approval_preview",
    "count_lines",
    "escape_line",
    "escape_text",
    "preview_call",
    "render_changeset",
    "render_full_call",
    "render_preview",
]

HEAD_LINES = 40
TAIL_LINES = 10
MAX_LINE_CHARS = 2000
DIFF_HEAD_LINES = 300
DIFF_TAIL_LINES = 50

# Zs too: a no-break space looks like a word break to the eye but not to bash.
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp", "Zs"})
_NAMED = {"\t": "\\t", "\r": "\\r"}

ToolLookup = Callable[[str], Tool | None]


class CallPreview(BaseModel):
    """One call as the approver sees it.

    Attributes:
        kind: how ``body`` shows the call: the bash command, the written content,
            the edit's diff, or the arguments as JSON.
        summary: one line: the tool and the key facts (path, mode, size, sha256).
        body: the command, content, diff or JSON, control characters escaped.
        left_out: what ``body`` leaves out and how much, when anything.
        escaped_characters: control or invisible characters shown escaped.
        non_ascii_characters: other non-ASCII characters, shown as they are
            (a look-alike letter is one of them).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    tool_call_id: str
    tool_name: str
    kind: Literal["bash", "write", "edit", "arguments"]
    summary: str
    body: str
    left_out: str | None = None
    escaped_characters: int = 0
    non_ascii_characters: int = 0
    path: str | None = None
    mode: str | None = None
    byte_count: int | None = None
    sha256: str | None = None


class ApprovalPreview(BaseModel):
    """The paused call and the calls of its batch that run after it.

    ``changeset`` is set when the call already ran over an overlay: what it
    changed (per-file diffs) and its output, which approving applies.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    call: CallPreview
    later_calls: tuple[CallPreview, ...] = ()
    changeset: ChangesetPreview | None = None


def _hidden(char: str) -> bool:
    return char not in "\n " and unicodedata.category(char) in _HIDDEN_CATEGORIES


def _escape_char(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def escape_text(text: str) -> tuple[str, int]:
    """``text`` with control/invisible characters escaped, and how many there were.

    Text without such characters comes back unchanged; otherwise backslashes
    are doubled too, so every escape in the result stands for one character.
    """
    count = sum(1 for char in text if _hidden(char))
    if count == 0:
        return text, 0
    out = [
        "\\\\" if char == "\\" else _escape_char(char) if _hidden(char) else char for char in text
    ]
    return "".join(out), count


def count_lines(text: str) -> int:
    """Lines as an editor numbers them: a final newline ends the last line, it starts none."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def _split_lines(text: str) -> tuple[list[str], bool]:
    """The lines of ``text`` (``count_lines`` of them), and whether a newline ends it."""
    if not text:
        return [], False
    ends_with_newline = text.endswith("\n")
    return (text[:-1] if ends_with_newline else text).split("\n"), ends_with_newline


def _cut_lines(lines: list[str], head: int, tail: int, noun: str) -> tuple[list[str], str | None]:
    if len(lines) <= head + tail:
        return lines, None
    missing = len(lines) - head - tail
    size = sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines[head:-tail])
    note = (
        f"{missing} {noun} ({size} bytes) left out ({noun} {head + 1}-{head + missing} "
        f"of {len(lines)}); {FULL_HINT}"
    )
    return [*lines[:head], f"[... {note} ...]", *lines[-tail:]], note


def _cut_line(line: str) -> tuple[str, bool]:
    if len(line) <= MAX_LINE_CHARS:
        return line, False
    extra = len(line) - MAX_LINE_CHARS
    return f"{line[:MAX_LINE_CHARS]}[... {extra} more characters on this line ...]", True


def _bounded(
    text: str, head: int, tail: int, noun: str, *, full: bool = False
) -> tuple[str, str | None, int]:
    escaped, count = escape_text(text)
    # Cut and number the lines the summary counts; the final newline stays in the body.
    pieces, ends_with_newline = _split_lines(escaped)
    lines, note = (pieces, None) if full else _cut_lines(pieces, head, tail, noun)
    shown = [(line, False) if full else _cut_line(line) for line in lines]
    notes = [note] if note else []
    long_lines = sum(1 for _, cut in shown if cut)
    if long_lines:
        notes.append(
            f"{long_lines} long line(s) cut at {MAX_LINE_CHARS} characters (each says how much)"
        )
    body = "\n".join(line for line, _ in shown) + ("\n" if ends_with_newline else "")
    return body, "; ".join(notes) or None, count


def _arguments_json(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, indent=2, sort_keys=True, ensure_ascii=False, default=str)


def _bash(call: ToolCall) -> CallPreview:
    command = call.arguments.get("command")
    if not isinstance(command, str):
        return _generic(call)
    body, count = escape_text(command)
    others = {k: v for k, v in call.arguments.items() if k != "command"}
    summary = f"bash: {count_lines(command)} line(s), {len(command)} characters"
    if others:
        summary += f"; other arguments {json.dumps(others, sort_keys=True, default=str)}"
    return CallPreview(
        tool_call_id=call.id,
        tool_name=call.name,
        kind="bash",
        summary=escape_line(summary),
        body=body,
        escaped_characters=count,
    )


def _write(call: ToolCall, tool: Any, tool_input: ToolInput) -> CallPreview:
    path, content = call.arguments.get("path"), call.arguments.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return _generic(call)
    mode = str(call.arguments.get("mode", "create"))
    data = content.encode("utf-8", errors="surrogatepass")
    digest = hashlib.sha256(data).hexdigest()
    body, left_out, count = _bounded(content, HEAD_LINES, TAIL_LINES, "lines")
    lines = count_lines(content)
    summary = (
        f"write {path}: mode {mode}, {len(data)} bytes, {lines} line(s), sha256 {digest}"
        f"{_existing(tool, tool_input, path)}"
    )
    return CallPreview(
        tool_call_id=call.id,
        tool_name=call.name,
        kind="write",
        summary=escape_line(summary),
        body=body,
        left_out=left_out,
        escaped_characters=count,
        path=path,
        mode=mode,
        byte_count=len(data),
        sha256=digest,
    )


def _existing(tool: Any, tool_input: ToolInput, raw: str) -> str:
    from harness.effects import lstat_beneath
    from harness.tools.paths import FileScope

    try:
        # The write tool's own scope, so the approver sees the refusal the tool will
        # give (the state dir included), not a stat of a path it will never touch.
        scope = FileScope.of(tool_input.workdir, tool.state_dir)
        path = scope.resolve(raw)
        rel = path.relative_to(scope.workdir).as_posix()
        # No symlink followed: one swapped in since the resolve shows nothing, never
        # the size of a file outside the workdir.
        info = lstat_beneath(scope.workdir, "" if rel == "." else rel)
        if info is None:
            return "; the file does not exist yet"
        return f"; the file exists now ({info.st_size} bytes)"
    except Exception as exc:  # the tool will refuse it; the approver should know why
        return f"; the path cannot be resolved ({exc})"


def _edit(call: ToolCall, tool: Any, tool_input: ToolInput) -> CallPreview:
    path = call.arguments.get("path")
    try:
        plan = tool.plan(tool_input)
    except Exception as exc:  # the approver sees why no diff exists, and the arguments
        preview = _generic(call)
        note = f"no diff: the edit does not apply to the file at pause time ({exc})"
        return preview.model_copy(
            update={"kind": "edit", "summary": escape_line(f"edit {path}: {note}")}
        )
    diff = _edit_diff(plan.original, plan.updated, plan.shown)
    body, left_out, count = _bounded(
        "\n".join(diff), DIFF_HEAD_LINES, DIFF_TAIL_LINES, "diff lines"
    )
    summary = (
        f"edit {plan.shown}: +{plan.lines_added} -{plan.lines_deleted} lines "
        "(diff against the file at pause time)"
    )
    return CallPreview(
        tool_call_id=call.id,
        tool_name=call.name,
        kind="edit",
        summary=escape_line(summary),
        body=body,
        left_out=left_out,
        escaped_characters=count,
        path=plan.shown,
    )


def _edit_diff(original: str, updated: str, shown: str) -> list[str]:
    """The edit's unified diff, or, over the diff budget, sizes and digests."""
    name = escape_line(shown)
    lines = unified(
        original.splitlines(keepends=True),
        updated.splitlines(keepends=True),
        f"a/{name}",
        f"b/{name}",
        PREVIEW_BUDGET.max_cells,
    )
    if lines is None:
        old, new = (text.encode("utf-8", "surrogatepass") for text in (original, updated))
        return [
            f"diff too large: {max(len(old), len(new))} bytes, sizes/digests shown; "
            f"{FULL_HINT} for the edit's arguments",
            f"before: {len(old)} bytes, sha256 {hashlib.sha256(old).hexdigest()}",
            f"after: {len(new)} bytes, sha256 {hashlib.sha256(new).hexdigest()}",
        ]
    diff: list[str] = []
    for line in lines:
        diff.append(line.removesuffix("\n"))
        if not line.endswith("\n"):
            diff.append("\\ No newline at end of file")
    return diff


def _generic(call: ToolCall) -> CallPreview:
    text = _arguments_json(call.arguments)
    body, left_out, count = _bounded(text, 400, 50, "lines")
    return CallPreview(
        tool_call_id=call.id,
        tool_name=call.name,
        kind="arguments",
        summary=escape_line(f"{call.name}: arguments as JSON"),
        body=body,
        left_out=left_out,
        escaped_characters=count,
    )


def preview_call(call: ToolCall, tool: Tool | None, tool_input: ToolInput) -> CallPreview:
    """The preview of ``call`` run by ``tool`` (None: an unknown tool, arguments shown)."""
    from harness.tools import builtin

    # bash by name too: a wrapped or sandboxed bash tool still shows its command whole.
    if isinstance(tool, builtin.BashTool) or call.name == "bash":
        preview = _bash(call)
    elif isinstance(tool, builtin.WriteTool):
        preview = _write(call, tool, tool_input)
    elif isinstance(tool, builtin.EditTool):
        preview = _edit(call, tool, tool_input)
    else:
        preview = _generic(call)
    others = sum(1 for char in preview.body if ord(char) > 0x7F)
    return preview.model_copy(update={"non_ascii_characters": others}) if others else preview


def build_approval_preview(
    call: ToolCall,
    tool: Tool | None,
    tool_input: ToolInput,
    later: Sequence[ToolCall],
    lookup: ToolLookup,
) -> ApprovalPreview:
    """The paused ``call`` and the ``later`` calls of its batch, each previewed."""
    rest = tuple(
        preview_call(
            item,
            lookup(item.name),
            ToolInput(
                arguments=dict(item.arguments),
                workdir=tool_input.workdir,
                session=tool_input.session,
                visible_tool_names=tool_input.visible_tool_names,
            ),
        )
        for item in later
    )
    return ApprovalPreview(call=preview_call(call, tool, tool_input), later_calls=rest)


def _render_one(preview: CallPreview, indent: str) -> list[str]:
    lines = [f"{indent}{preview.summary}"]
    if preview.escaped_characters:
        lines.append(
            f"{indent}note: {preview.escaped_characters} control/invisible character(s) "
            "shown escaped (\\xNN, \\uNNNN, \\t, \\r); literal backslashes shown as \\\\"
        )
    if preview.non_ascii_characters:
        lines.append(
            f"{indent}note: {preview.non_ascii_characters} other non-ASCII character(s) shown "
            "as they are; a letter that looks like an ASCII one may be another"
        )
    if preview.left_out:
        lines.append(f"{indent}cut: {preview.left_out}")
    fence = f"{indent}----- {preview.kind} -----"
    lines.append(fence)
    lines.extend(f"{indent}{line}" for line in preview.body.split("\n"))
    lines.append(f"{indent}----- end -----")
    return lines


def render_preview(
    preview: ApprovalPreview | None, indent: str = "", approval_id: str | None = None
) -> str:
    """The preview as plain text for a terminal or a chat message.

    ``approval_id``: named in the line that says how to see what was cut.
    """
    if preview is None:
        return f"{indent}(no preview was recorded for this approval)"
    lines = _render_one(preview.call, indent)
    if preview.changeset is not None:
        lines.extend(render_changeset(preview.changeset, indent))
    if preview.later_calls:
        count = len(preview.later_calls)
        lines.append(
            f"{indent}Then {count} more call(s) of the same batch run after it "
            "(each still checked by the risk policy):"
        )
        for number, item in enumerate(preview.later_calls, 1):
            lines.append(f"{indent}  [{number}/{count}] {escape_line(item.tool_name)}")
            lines.extend(_render_one(item, indent + "    "))
    else:
        lines.append(f"{indent}No other calls of the same batch run after it.")
    if _was_cut(preview):
        lines.append(
            f"{indent}Parts of this preview were cut (each cut above says how much); "
            f"see everything with `harness approvals show {approval_id or 'ID'} --full`."
        )
    return "\n".join(lines)


def _was_cut(preview: ApprovalPreview) -> bool:
    calls = (preview.call, *preview.later_calls)
    changeset = preview.changeset
    cut_changes = changeset is not None and any(
        (changeset.files_left_out, changeset.diff_left_out, changeset.output_left_out)
    )
    return cut_changes or any(call.left_out for call in calls)


def render_full_call(tool_name: str, arguments: dict[str, Any], indent: str = "") -> str:
    """The call's whole text, nothing cut: bash's command, write's content, else the JSON."""
    command, content = arguments.get("command"), arguments.get("content")
    if tool_name == "bash" and isinstance(command, str):
        kind, text = "bash", command
    elif tool_name == "write" and isinstance(content, str):
        kind, text = "write content", content
    else:
        kind, text = "arguments", _arguments_json(arguments)
    body, _, count = _bounded(text, 0, 0, "lines", full=True)
    lines = [f"{indent}{escape_line(tool_name)}: the whole call, nothing cut"]
    if count:
        lines.append(
            f"{indent}note: {count} control/invisible character(s) shown escaped "
            "(\\xNN, \\uNNNN, \\t, \\r); literal backslashes shown as \\\\"
        )
    if kind == "write content":
        others = {k: v for k, v in arguments.items() if k != "content"}
        lines.append(f"{indent}arguments: {escape_line(_arguments_json(others))}")
    lines.append(f"{indent}----- {kind} -----")
    lines.extend(f"{indent}{line}" for line in body.split("\n"))
    lines.append(f"{indent}----- end -----")
    return "\n".join(lines)


def render_changeset(changeset: ChangesetPreview, indent: str) -> list[str]:
    """The held changes: what approving applies to the workdir (nothing yet applied)."""
    lines = [
        f"{indent}The command already ran in the sandbox; nothing has reached the workdir yet.",
        f"{indent}Approving applies exactly these changes ({escape_line(changeset.summary)}):",
    ]
    if changeset.discarded:
        lines.append(
            f"{indent}Written outside the workdir and discarded, whatever you decide: "
            + ", ".join(escape_line(note) for note in changeset.discarded)
        )
    # The listing was bounded when it was built (every deletion kept): never cut here.
    for title, text, cut, full in (
        ("changed paths", changeset.files, changeset.files_left_out, True),
        ("changes", changeset.diff, changeset.diff_left_out, changeset.full),
        ("output", changeset.output, changeset.output_left_out, changeset.full),
    ):
        body, _, count = _bounded(text, 10_000, 10_000, "lines", full=full)
        if cut:
            lines.append(f"{indent}cut: {cut}")
        if count:
            lines.append(f"{indent}note: {count} control/invisible character(s) shown escaped")
        lines.append(f"{indent}----- {title} -----")
        lines.extend(f"{indent}{line}" for line in body.split("\n"))
        lines.append(f"{indent}----- end -----")
    return lines
