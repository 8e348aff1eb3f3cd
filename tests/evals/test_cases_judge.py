"""The recorded judge: strict parsing, and an honest simulated judge end to end
(a broken answer gets a recorded ``fail`` verdict that replays the same)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

import harness.app
import harness.recording
import harness.tools.builtin
import harness.wires.openai.provider
from harness import Settings
from harness.core import LLMResponse, Role, Usage
from harness.evals import load_report
from harness.evals.judge import JudgeFormatError, judge_request, parse_judge_answer, run_judge
from harness.providers import FunctionProvider
from harness.simulator import SimulatorServer

PRELOADED = (openai, harness.app, harness.wires.openai.provider, harness.recording)
PRELOADED_TOOLS = harness.tools.builtin
ROOT = Path(__file__).resolve().parents[2]
MARKER = "SENTINEL-INCIDENT-5D2A"


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ('{"verdict": "pass", "reason": "shows it"}', "pass"),
        ('{"reason": "lacks it", "verdict": "fail"}', "fail"),
    ],
)
def test_a_well_formed_verdict_parses(text: str, verdict: str) -> None:
    assert parse_judge_answer(text)[0] == verdict


@pytest.mark.parametrize(
    ("text", "says"),
    [
        pytest.param(
            'Sure! {"verdict": "pass", "reason": "ok"}', "not answer with a JSON", id="prose"
        ),
        pytest.param('```json\n{"verdict": "pass", "reason": "ok"}\n```', "JSON", id="fenced"),
        pytest.param('{"verdict": "PASS", "reason": "ok"}', "verdict", id="verdict-case"),
        pytest.param('{"verdict": "maybe", "reason": "ok"}', "verdict", id="verdict-value"),
        pytest.param('{"verdict": "pass"}', "reason", id="no-reason"),
        pytest.param('{"verdict": "pass", "reason": ""}', "reason", id="empty-reason"),
        pytest.param('{"verdict": "pass", "reason": "ok", "score": 1}', "score", id="extra"),
        pytest.param('["pass", "ok"]', "answer", id="array"),
        pytest.param("", "not answer with a JSON", id="empty"),
    ],
)
def test_a_malformed_verdict_is_a_clear_error(text: str, says: str) -> None:
    with pytest.raises(JudgeFormatError, match=says):
        parse_judge_answer(text)


@given(st.text(max_size=200))
def test_no_judge_answer_makes_the_parser_raise_anything_else(text: str) -> None:
    try:
        verdict, reason = parse_judge_answer(text)
    except JudgeFormatError:
        return
    assert verdict in ("pass", "fail") and reason


@given(st.sampled_from(["pass", "fail"]), st.text(min_size=1, max_size=80))
def test_every_well_formed_verdict_round_trips(verdict: str, reason: str) -> None:
    assert parse_judge_answer(json.dumps({"verdict": verdict, "reason": reason})) == (
        verdict,
        reason,
    )


def test_run_judge_sends_the_answer_apart_from_the_rubric_and_keeps_tokens() -> None:
    sent = []

    def answer(request: Any) -> LLMResponse:
        sent.append(request)
        return LLMResponse(
            text='{"verdict": "fail", "reason": "no marker"}',
            usage=Usage(input_tokens=50, output_tokens=9),
            model="judge-model",
        )

    result = run_judge(
        FunctionProvider(answer), "Says SENTINEL-A-1.", task="do it", answer="done", model="m"
    )
    assert (result.verdict, result.reason, result.model) == ("fail", "no marker", "judge-model")
    assert (result.input_tokens, result.output_tokens) == (50, 9)
    (request,) = sent
    body = request.messages[-1].content
    assert request.model == "m" and request.tools == () and request.messages[-1].role is Role.USER
    assert "<rubric>\nSays SENTINEL-A-1.\n</rubric>" in body and "<answer>\ndone\n</answer>" in body
    assert (
        judge_request("r", task="t", answer="")
        .messages[-1]
        .content.endswith("<answer>\n(empty)\n</answer>")
    )


def test_the_judge_model_is_a_setting() -> None:
    assert Settings.from_env({"HARNESS_JUDGE_MODEL": "judge-1"}).judge_model == "judge-1"
    assert Settings().judge_model is None  # the run's own model


def _script(answer: str) -> dict[str, Any]:
    return {
        "version": 1,
        "rules": [
            {"kind": "judge", "when": {"last_user_contains": "<rubric>"}},
            {"when": {"has_tool_results": True}, "reply": answer},
            {
                "when": {"has_tool_results": False},
                "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "incident.md"}}]},
            },
        ],
    }


CASES = f"""
version: 1
cases:
  - name: summary
    workspace: cases/incident
    prompt: Summarise incident.md with its tracking id.
    tools: [read]
    max_steps: 3
    checks:
      tools_called: {{read: 1}}
      judge: {{rubric: "The answer gives the tracking id {MARKER}."}}
"""


@pytest.mark.deep
@pytest.mark.parametrize(
    ("answer", "verdict"),
    [
        pytest.param(f"Expired certificate; tracking id {MARKER}.", "pass", id="good"),
        pytest.param("Expired certificate; tracking id unknown.", "fail", id="broken"),
    ],
)
def test_the_simulated_judge_grades_honestly_recorded_and_replayed(
    pytester: pytest.Pytester,
    sim_server: Any,
    monkeypatch: pytest.MonkeyPatch,
    answer: str,
    verdict: str,
) -> None:
    (pytester.path / "evals" / "cases").mkdir(parents=True)
    # Another module name than the suite's evals/test_cases.py (pytester runs in-process).
    shutil.copy(ROOT / "evals" / "conftest.py", pytester.path / "evals" / "conftest.py")
    shutil.copy(ROOT / "evals" / "test_cases.py", pytester.path / "evals" / "test_user_cases.py")
    (pytester.path / "evals" / "cases" / "judge.yaml").write_text(CASES, "utf-8")
    workspace = pytester.path / "fixtures" / "cases" / "incident"
    workspace.mkdir(parents=True)
    (workspace / "incident.md").write_text(f"Tracking id: {MARKER}\n", "utf-8")
    server: SimulatorServer = sim_server(_script(answer))
    common: tuple[str, ...] = ("--harness-provider", "openai")
    if verdict == "pass":  # the option, or else the variable, names the judge's model
        common += ("--harness-judge-model", "sim-judge-1")
    else:
        monkeypatch.setenv("HARNESS_JUDGE_MODEL", "sim-judge-1")
    outcome = {"passed": 1} if verdict == "pass" else {"failed": 1}
    recorded = pytester.runpytest(
        *common, "--record-mode", "once", "--harness-base-url", server.url
    )
    recorded.assert_outcomes(**outcome)
    server.stop()
    report = pytester.path / "report.json"
    replayed = pytester.runpytest(*common, "--harness-report", str(report))
    replayed.assert_outcomes(**outcome)
    (row,) = load_report(report).rows
    assert row.judge is not None and row.judge.verdict == verdict
    assert row.judge.model == "sim-judge-1" and row.judge.input_tokens > 0
    cassette = next((pytester.path / "cassettes").rglob("*.yaml")).read_text("utf-8")
    assert "<rubric>" in cassette  # the judge's exchange is in the test's own cassette
    if verdict == "fail":
        replayed.stdout.fnmatch_lines([f"*judge: fail: the answer does not show {MARKER}*"])
