"""Large deletions: edits and overwrites that remove or blank lines, summed over a run.

Without a workdir an edit is judged by its arguments (lines); with one, by the
bytes of existing content it destroys: five of these short lines are 35 to 40
bytes, so the fourth five-line edit of a run reaches the 128-byte threshold.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.approval._risk import DefaultRiskPolicy, RiskVerdict
from harness.approval._risk_deletion import DeletionTally, count_overwritten_lines
from harness.core.messages import ToolCall
from harness.providers import ScriptedProvider, tool_call
from harness.session._ref import SessionRef
from harness.tools._execution import ToolExecutionContext
from harness.tools._protocol import ToolInput
from harness.tools.builtin._edit import EditTool


def lines(count: int, prefix: str = "line") -> str:
    return "".join(f"{prefix} {i}\n" for i in range(count))


def five_line_edit(start: int) -> dict[str, Any]:
    old = "".join(f"line {i}\n" for i in range(start, start + 5))
    return {"path": "big.txt", "old_text": old, "new_text": ""}


def test_blanked_lines_count_as_deleted() -> None:
    policy = DefaultRiskPolicy()
    blank = {"path": "a.py", "old_text": lines(20), "new_text": "\n" * 20}
    spaces = {"path": "a.py", "old_text": lines(20), "new_text": "   \n" * 20}
    rewrite = {"path": "a.py", "old_text": lines(20), "new_text": lines(20, "new")}

    assert policy.evaluate_call("edit", blank).requires_approval
    assert policy.evaluate_call("edit", spaces).requires_approval
    assert not policy.evaluate_call("edit", rewrite).requires_approval


@pytest.mark.parametrize(
    ("existing", "content", "mode", "removed"),
    [(30, 5, "overwrite", 25), (30, 15, "overwrite", 15), (30, 0, "overwrite", 30),
     (30, 5, "create", 0), (30, 5, "append", 0), (None, 5, "overwrite", 0)],
    ids=["shrinks-25", "shrinks-15", "emptied", "create", "append", "new-file"],
)  # fmt: skip
def test_overwrite_counts_the_lines_it_removes(
    tmp_path: Path, existing: int | None, content: int, mode: str, removed: int
) -> None:
    if existing is not None:
        (tmp_path / "f.txt").write_text(lines(existing))
    arguments = {"path": "f.txt", "content": lines(content), "mode": mode}

    assert count_overwritten_lines(arguments, tmp_path) == removed


def test_overwrite_blanking_a_file_counts(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(lines(30))
    arguments = {"path": "f.txt", "content": "\n" * 30, "mode": "overwrite"}

    assert count_overwritten_lines(arguments, tmp_path) == 30


def test_overwrite_of_a_fifo_is_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    arguments = {"path": "pipe", "content": "x\n", "mode": "overwrite"}

    # Reading a FIFO with no writer would block forever; the policy only stats it.
    assert count_overwritten_lines(arguments, tmp_path) == 0


def test_a_large_overwrite_needs_approval_and_says_why(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text(lines(30))
    decision = DefaultRiskPolicy().evaluate_call(
        "write", {"path": "f.txt", "content": "x", "mode": "overwrite"}, workdir=tmp_path
    )

    assert decision.verdict is RiskVerdict.APPROVAL_REQUIRED
    assert decision.reasons == (
        # all 230 bytes are gone, whatever the new content
        "large loss: overwrites or deletes 230 bytes of existing content (f.txt 230) "
        "(threshold 128 bytes)",
    )


def test_deletions_add_up_over_one_run_and_start_again_once_shown() -> None:
    policy = DefaultRiskPolicy()
    verdicts = [
        policy.evaluate_call("edit", five_line_edit(5 * i), run="run-1").requires_approval
        for i in range(5)
    ]

    assert verdicts == [False, False, False, True, False]


def test_runs_are_counted_apart() -> None:
    policy = DefaultRiskPolicy()
    for _ in range(3):
        policy.evaluate_call("edit", five_line_edit(0), run="run-1")
    other = policy.evaluate_call("edit", five_line_edit(0), run="run-2")
    same = policy.evaluate_call("edit", five_line_edit(0), run="run-1")

    assert not other.requires_approval
    assert same.requires_approval
    assert "20 lines removed in this run so far" in same.reasons[0]


def test_without_a_run_each_call_stands_alone() -> None:
    policy = DefaultRiskPolicy()

    assert not any(
        policy.evaluate_call("edit", five_line_edit(0)).requires_approval for _ in range(6)
    )


def test_the_tally_keeps_a_bounded_number_of_runs() -> None:
    tally = DeletionTally(max_runs=3)
    for run in range(10):
        tally.add(f"run-{run}", 1)

    assert len(tally) == 3
    assert tally.add("run-0", 1) == 1  # forgotten, so counted from zero


def _ctx(
    tmp_path: Path, step: int, arguments: dict[str, Any], **metadata: Any
) -> ToolExecutionContext:
    call = ToolCall(name="edit", arguments=arguments)
    tool_input = ToolInput(arguments=arguments, workdir=tmp_path, session=SessionRef(key="s1"))
    return ToolExecutionContext(call, EditTool(), tool_input, step=step, metadata=metadata)


def test_a_new_run_of_the_session_starts_a_new_tally(tmp_path: Path) -> None:
    policy = DefaultRiskPolicy()
    first_run = [policy.evaluate(_ctx(tmp_path, step, five_line_edit(0))) for step in (1, 2, 3)]
    second_run = policy.evaluate(_ctx(tmp_path, 1, five_line_edit(0)))

    assert not any(d.requires_approval for d in first_run)
    assert not second_run.requires_approval


def test_the_engine_run_id_names_the_run_when_given(tmp_path: Path) -> None:
    policy = DefaultRiskPolicy()
    for step in (1, 2, 3):
        policy.evaluate(_ctx(tmp_path, step, five_line_edit(0), run_id="r1"))
    # Step 1 again, but the engine says it is the same run (a resumed one).
    decision = policy.evaluate(_ctx(tmp_path, 1, five_line_edit(0), run_id="r1"))

    assert decision.requires_approval


def test_a_real_run_of_small_edits_pauses_when_the_total_reaches_the_threshold(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "big.txt").write_text(lines(40))
    provider = ScriptedProvider(
        [tool_call("edit", **five_line_edit(5 * i)) for i in range(5)] + ["done"]
    )
    settings = Settings(  # type: ignore[call-arg]
        workdir=work, state_dir=tmp_path / "state", enabled_tools=("read", "edit"),
        approval_provider="cli",
    )  # fmt: skip
    app = build_application(settings, provider=provider)

    result = app.run("trim big.txt", session="trim")

    assert result.stop_reason == "approval_required"
    record = app.approvals.load(result.approval_id or "")
    assert record.arguments == five_line_edit(15)  # the 4th edit: 110 bytes already lost
    assert "150 in this run so far" in record.risk_reasons[0]
    assert (work / "big.txt").read_text() == lines(40)[len(lines(15)) :]


def test_overwrite_outside_the_workdir_is_not_read(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "outside.txt").write_text(lines(100))
    os.symlink(tmp_path / "outside.txt", work / "link.txt")

    for path in ("../outside.txt", "link.txt", str(tmp_path / "outside.txt")):
        arguments = {"path": path, "content": "", "mode": "overwrite"}
        assert count_overwritten_lines(arguments, work) == 0


@pytest.mark.parametrize("path", ["bad\x00name", "loop"], ids=["nul-byte", "symlink-loop"])
def test_an_unresolvable_overwrite_path_counts_nothing(tmp_path: Path, path: str) -> None:
    os.symlink(tmp_path / "loop", tmp_path / "loop")
    arguments = {"path": path, "content": "", "mode": "overwrite"}

    assert count_overwritten_lines(arguments, tmp_path) == 0
    assert not DefaultRiskPolicy().evaluate_call("write", arguments, workdir=tmp_path).reasons


def test_the_tally_follows_a_run_through_an_approval_of_another_rule(tmp_path: Path) -> None:
    # 110 bytes lost, then a write to a sensitive file pauses for its own reason;
    # after approval the same run loses 40 more, which reaches the threshold.
    work = tmp_path / "work"
    work.mkdir()
    (work / "big.txt").write_text(lines(40))
    provider = ScriptedProvider(
        [tool_call("edit", **five_line_edit(5 * i)) for i in range(3)]
        + [tool_call("write", path=".env.example", content="X=1\n")]
        + [tool_call("edit", **five_line_edit(15)), "done"]
    )
    settings = Settings(  # type: ignore[call-arg]
        workdir=work, state_dir=tmp_path / "state", enabled_tools=("read", "edit", "write"),
        approval_provider="cli",
    )  # fmt: skip
    app = build_application(settings, provider=provider)

    first = app.run("trim big.txt", session="trim")
    assert first.stop_reason == "approval_required"
    assert app.approvals.load(first.approval_id or "").tool_name == "write"

    second = app.resume_approval(first.approval_id or "", "approve", session="trim")

    assert second.stop_reason == "approval_required"
    record = app.approvals.load(second.approval_id or "")
    assert record.arguments == five_line_edit(15)
    assert "150 in this run so far" in record.risk_reasons[0]


def test_the_tally_crosses_processes_in_the_checkpoint(tmp_path: Path) -> None:
    # As above, but the approval is decided by a fresh application (another
    # process's view): the 110 bytes travel in the signed checkpoint.
    work = tmp_path / "work"
    work.mkdir()
    (work / "big.txt").write_text(lines(40))
    settings = Settings(  # type: ignore[call-arg]
        workdir=work, state_dir=tmp_path / "state", enabled_tools=("read", "edit", "write"),
        approval_provider="cli",
    )  # fmt: skip
    turns = [tool_call("edit", **five_line_edit(5 * i)) for i in range(3)]
    turns.append(tool_call("write", path=".env.example", content="X=1\n"))
    first = build_application(settings, provider=ScriptedProvider(turns)).run("trim", session="t")
    assert first.stop_reason == "approval_required"

    later = build_application(
        settings, provider=ScriptedProvider([tool_call("edit", **five_line_edit(15)), "done"])
    )
    second = later.resume_approval(first.approval_id or "", "approve", session="t")

    assert second.stop_reason == "approval_required"
    reason = later.approvals.load(second.approval_id or "").risk_reasons[0]
    assert "150 in this run so far" in reason
