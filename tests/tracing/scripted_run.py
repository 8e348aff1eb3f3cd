"""A scripted run that exercises every span kind the viewer and the mirror mark.

The parent reads two files at once (concurrent ``tool.call read`` spans), asks
the explorer subagent (``subagent.run``), then wants to write a file, which
pauses for approval (``approval.pause``); approving resumes the run in a second
trace (``approval.resume``). Real application, real files, scripted model.
"""

from __future__ import annotations

from pathlib import Path

from harness import Settings, build_application
from harness.app import Application
from harness.providers import ScriptedProvider, tool_call
from harness.tracing import Tracer, TraceTree

SESSION = "demo"
SECRET = "sk-live-0123456789abcdefghij0123456789"


def scripted_turns() -> list[object]:
    """The model's turns, parent and subagent interleaved in call order."""
    return [
        [tool_call("read", path="a.txt"), tool_call("read", path="b.txt")],
        tool_call("explore", task="Find the version marker."),
        "Report: version 7",  # the explorer's final answer
        tool_call("write", path="deploy-key.txt", content=f"version 7, key {SECRET}\n"),
        "Wrote deploy-key.txt after approval.",
    ]


def make_app(
    tmp_path: Path, *, trace_mode: str = "replay", tracer: Tracer | None = None
) -> Application:
    """The application with a workspace of two small files."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "a.txt").write_text("alpha\nversion 7\n", "utf-8")
    (work / "b.txt").write_text("beta\n", "utf-8")
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("read", "write", "explore"),
        approval_provider="cli",
        trace_mode=trace_mode,  # type: ignore[arg-type]
    )
    return build_application(settings, provider=ScriptedProvider(scripted_turns()), tracer=tracer)


def run_and_resume(app: Application) -> tuple[Path | None, Path | None]:
    """Run until the approval pause, approve, and return both trace paths."""
    paused = app.run("Check the files and write the version down.", session=SESSION)
    assert paused.stop_reason == "approval_required", paused
    assert paused.approval_id is not None
    resumed = app.resume_approval(paused.approval_id, decision="approve", session=SESSION)
    assert resumed.stop_reason == "final", resumed
    return paused.trace_path, resumed.trace_path


def record_traces(tmp_path: Path, *, trace_mode: str = "replay") -> tuple[TraceTree, TraceTree]:
    """Run the scenario with the file recorder and load both traces back."""
    app = make_app(tmp_path, trace_mode=trace_mode)
    try:
        first, second = run_and_resume(app)
    finally:
        app.close()
    assert first is not None and second is not None
    return TraceTree.load(first), TraceTree.load(second)
