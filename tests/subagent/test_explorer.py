"""The Explorer subagent: isolation, report, exhaustion, errors, logs and trace."""

from __future__ import annotations

import logging
import re
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.core import LLMRequest, LLMResponse, ProviderError, Role, ToolCall
from harness.providers import FunctionProvider
from harness.subagent import ExplorerSubagentTool
from harness.testing.assertions.trace_assertions import assert_trace_shape, load_trace
from harness.tools import ToolInput

README_SENTINEL = "SENTINEL-README-7F3A"
ARCH_SENTINEL = "SENTINEL-ARCH-91C2"
SENTINEL = re.compile(r"SENTINEL-[A-Z0-9-]+")


def _tool_texts(request: LLMRequest) -> list[str]:
    return [m.content for m in request.messages if m.role is Role.TOOL]


def reactive_model(request: LLMRequest) -> LLMResponse:
    """Acts on what it is shown, like a model would; no fixed script."""
    tools = {t.name for t in request.tools}
    results = _tool_texts(request)
    if "explore" in tools:  # the parent
        if not results:
            return LLMResponse(
                tool_calls=(ToolCall(name="explore", arguments={"task": "Find the sentinels."}),)
            )
        found = sorted(set(SENTINEL.findall(results[-1])))
        return LLMResponse(text="The explorer found: " + ", ".join(found))
    if not results:  # the child, first step: read both files at once
        return LLMResponse(
            tool_calls=(
                ToolCall(name="read", arguments={"path": "README.md"}),
                ToolCall(name="read", arguments={"path": "notes/architecture.txt"}),
            )
        )
    found = sorted({s for text in results for s in SENTINEL.findall(text)})
    return LLMResponse(text="Report: " + ", ".join(found))


def _workspace(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    (work / "notes").mkdir(parents=True)
    (work / "README.md").write_text(f"# Demo\nversion marker {README_SENTINEL}\n")
    (work / "notes" / "architecture.txt").write_text(f"layers: core, engine\n{ARCH_SENTINEL}\n")
    return work


def _app(tmp_path: Path, fn: object) -> Application:
    settings = Settings(
        workdir=_workspace(tmp_path), state_dir=tmp_path / "state", enabled_tools=("explore",)
    )
    return build_application(settings, provider=FunctionProvider(fn))  # type: ignore[arg-type]


def test_sentinels_reach_the_parent_only_through_the_report(tmp_path: Path) -> None:
    requests: list[LLMRequest] = []

    def model(request: LLMRequest) -> LLMResponse:
        requests.append(request)
        return reactive_model(request)

    app = _app(tmp_path, model)
    result = app.run("What do the docs say?", session="parent")
    assert result.stop_reason == "final"
    assert README_SENTINEL in result.text and ARCH_SENTINEL in result.text

    parent_requests = [r for r in requests if "explore" in {t.name for t in r.tools}]
    child_requests = [r for r in requests if r not in parent_requests]
    assert {t.name for r in parent_requests for t in r.tools} == {"explore"}
    assert {t.name for r in child_requests for t in r.tools} == {"read"}
    child_ids = {c.id for r in child_requests for m in r.messages for c in m.tool_calls}
    assert child_ids
    parent_text = "\n".join(
        m.content + repr(m.tool_calls) + str(m.tool_call_id) for m in parent_requests[-1].messages
    )
    assert not any(child_id in parent_text for child_id in child_ids)
    assert "layers: core, engine" not in parent_text  # raw file text never leaks
    assert "[Explorer Subagent Report]" in parent_text

    sessions = tmp_path / "state" / "sessions"
    parent_memory = (sessions / "parent" / "memory.jsonl").read_text()
    assert len(parent_memory.splitlines()) == 2  # the prompt and the final answer only
    assert "Report:" not in parent_memory and "Find the sentinels." not in parent_memory
    children = [p for p in sessions.iterdir() if p.name.startswith("parent-parent-explore-")]
    assert len(children) == 1
    child_memory = (children[0] / "memory.jsonl").read_text()
    assert "Find the sentinels." in child_memory and ARCH_SENTINEL in child_memory

    assert result.trace_path is not None
    assert_trace_shape(
        load_trace(result.trace_path),
        """
        agent.run
          agent.step
            llm.call
            tool.call explore
              subagent.run
                llm.call
                tool.call read
                tool.call read
                llm.call
          agent.step
            llm.call
        """,
        match="exact",
    )


def test_max_steps_exhaustion_says_so_and_lists_reads(tmp_path: Path) -> None:
    def model(request: LLMRequest) -> LLMResponse:
        if "explore" in {t.name for t in request.tools}:
            if not _tool_texts(request):
                return LLMResponse(
                    tool_calls=(ToolCall(name="explore", arguments={"task": "t", "max_steps": 2}),)
                )
            return LLMResponse(text=_tool_texts(request)[-1])
        return LLMResponse(tool_calls=(ToolCall(name="read", arguments={"path": "README.md"}),))

    result = _app(tmp_path, model).run("go", session="p")
    assert "stop_reason: max_steps_exhausted" in result.text
    assert "No definite answer was found within 2 steps" in result.text
    assert "Files read: README.md" in result.text


def test_provider_error_in_child_is_an_error_observation(tmp_path: Path) -> None:
    seen: list[LLMRequest] = []

    def model(request: LLMRequest) -> LLMResponse:
        if "explore" not in {t.name for t in request.tools}:
            raise ProviderError("upstream 503", status_code=503)
        seen.append(request)
        if not _tool_texts(request):
            return LLMResponse(tool_calls=(ToolCall(name="explore", arguments={"task": "t"}),))
        return LLMResponse(text="carried on")

    result = _app(tmp_path, model).run("go", session="p")
    assert (result.stop_reason, result.text) == ("final", "carried on")
    observation = [m for m in seen[-1].messages if m.role is Role.TOOL][-1]
    assert observation.metadata["error_type"] == "subagent_provider_error"
    assert "upstream 503" in observation.content


@pytest.mark.parametrize(
    ("arguments", "with_session", "fragment"),
    [
        ({"task": "  "}, True, "non-empty"),
        ({"task": "x", "max_steps": 13}, True, "between 1 and 12"),
        ({"task": "x"}, False, "needs a runtime session"),
    ],
    ids=["empty-task", "too-many-steps", "no-session"],
)
def test_explore_refusals(
    tmp_path: Path, arguments: dict[str, object], with_session: bool, fragment: str
) -> None:
    from harness.core import ToolError
    from harness.session import SessionRef

    app = _app(tmp_path, reactive_model)
    tool = app.registry.get("explore")
    assert isinstance(tool, ExplorerSubagentTool)
    session = SessionRef(key="p", workdir=app.workdir) if with_session else None
    with pytest.raises(ToolError, match=fragment):
        tool.run(ToolInput(arguments=arguments, workdir=app.workdir, session=session))


def test_logs_tag_child_tools_and_never_the_task(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="harness")
    _app(tmp_path, reactive_model).run("What do the docs say?", session="parent")
    lines = [r.getMessage() for r in caplog.records]
    start = next(line for line in lines if line.startswith("explorer start"))
    finish = next(line for line in lines if line.startswith("explorer finish"))
    child = re.search(r"child_session=(\S+)", start)
    assert child is not None
    assert "parent_session=parent" in start and "task_chars=19" in start
    assert "Find the sentinels" not in "\n".join(lines)
    assert "reason=final" in finish and "report_chars=" in finish
    tool_lines = [line for line in lines if "tool=" in line]
    read_lines = [line for line in tool_lines if "tool=read" in line]
    assert len(read_lines) == 2
    assert all(line.startswith(f"[subagent_session={child.group(1)}] ") for line in read_lines)
    explore_line = next(line for line in tool_lines if "tool=explore" in line)
    assert not explore_line.startswith("[subagent_session=")


def test_error_path_logs_are_tagged(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def model(request: LLMRequest) -> LLMResponse:
        if "explore" in {t.name for t in request.tools}:
            if not _tool_texts(request):
                return LLMResponse(tool_calls=(ToolCall(name="explore", arguments={"task": "t"}),))
            return LLMResponse(text="done")
        if not _tool_texts(request):
            return LLMResponse(tool_calls=(ToolCall(name="read", arguments={"path": "../x"}),))
        return LLMResponse(text="could not read")

    caplog.set_level(logging.INFO, logger="harness")
    _app(tmp_path, model).run("go", session="p")
    read_line = next(r.getMessage() for r in caplog.records if "tool=read" in r.getMessage())
    assert read_line.startswith("[subagent_session=parent-p-explore-")
    assert "error_type=path_outside_workdir" in read_line
