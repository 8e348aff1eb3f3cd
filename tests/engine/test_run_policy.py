"""Per-step phases and tool visibility of every mode, through real runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import RunMode, Settings, build_application
from harness.core import LLMRequest, ToolChoice
from harness.engine._run_policy import phase_for_step, tool_policy_for_phase, visible_tools
from harness.engine._run_types import Phase
from harness.providers import ScriptedProvider, tool_call

ENABLED = ("read", "write", "bash")


@pytest.mark.parametrize(
    ("mode", "step", "plan_required", "phase", "visible", "choice"),
    [
        (RunMode.ACT, 1, True, Phase.ACT, ENABLED, ToolChoice.AUTO),
        (RunMode.ACT, 5, True, Phase.ACT, ENABLED, ToolChoice.AUTO),
        (RunMode.PLAN, 1, True, Phase.PLAN, ("read",), ToolChoice.AUTO),
        (RunMode.PLAN, 3, True, Phase.PLAN, ("read",), ToolChoice.AUTO),
        (RunMode.THINK, 1, True, Phase.THINK, (), ToolChoice.NONE),
        (RunMode.PLAN_ACT, 1, True, Phase.PLAN, (), ToolChoice.NONE),
        (RunMode.PLAN_ACT, 2, True, Phase.ACT, ENABLED, ToolChoice.AUTO),
        (RunMode.PLAN_ACT, 1, False, Phase.ACT, ENABLED, ToolChoice.AUTO),
    ],
    ids=[
        "act-1",
        "act-5",
        "plan-1",
        "plan-3",
        "think",
        "plan-act-plans",
        "plan-act-acts",
        "plan-act-has-plan",
    ],
)
def test_policy_table(
    mode: RunMode,
    step: int,
    plan_required: bool,
    phase: Phase,
    visible: tuple[str, ...],
    choice: ToolChoice,
) -> None:
    got = phase_for_step(mode=mode, step=step, plan_required=plan_required)
    policy = tool_policy_for_phase(got, mode=mode)
    assert got is phase
    assert visible_tools(policy, ENABLED) == visible
    assert policy.tool_choice is choice


def _seen(requests: list[LLMRequest]) -> list[tuple[tuple[str, ...], str]]:
    return [(tuple(t.name for t in r.tools), r.tool_choice.value) for r in requests]


@pytest.mark.parametrize(
    ("mode", "turns", "expected"),
    [
        (
            "act",
            [tool_call("read", path="a.txt"), "done"],
            [(("read", "write"), "auto"), (("read", "write"), "auto")],
        ),
        ("plan", [tool_call("read", path="a.txt"), "1. do it"], [(("read",), "auto")] * 2),
        ("think", ["thought"], [((), "none")]),
        (
            "plan-act",
            ["1. read a.txt", tool_call("read", path="a.txt"), "done"],
            [((), "none"), (("read", "write"), "auto"), (("read", "write"), "auto")],
        ),
    ],
    ids=["act", "plan", "think", "plan-act"],
)
def test_runs_show_the_right_tools_each_step(
    tmp_path: Path, mode: str, turns: list[object], expected: list[object]
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    provider = ScriptedProvider(turns)
    settings = Settings(
        workdir=tmp_path,
        state_dir=tmp_path / ".state",
        enabled_tools=("read", "write"),
        trace_mode="off",
        approval_provider="off",
    )
    result = build_application(settings, provider=provider).run("task", mode=mode, session="s")
    assert result.stop_reason == "final"
    assert _seen(provider.requests) == expected
    provider.assert_complete()


def test_plan_act_keeps_the_plan_for_the_next_run(tmp_path: Path) -> None:
    provider = ScriptedProvider(["1. step one"])
    settings = Settings(workdir=tmp_path, state_dir=tmp_path / ".s", trace_mode="off")
    app = build_application(settings, provider=provider)
    first = app.run("big task", mode="plan-act", session="p", max_steps=1)
    assert first.stop_reason == "max_steps"
    provider.add("finished")
    second = app.run("continue", mode="plan-act", session="p")
    assert second.text == "finished"
    system = provider.requests[-1].messages[0].content
    assert "1. step one" in system  # the stored plan reached the second run
    assert _seen(provider.requests[-1:]) == [(("read",), "auto")]
