"""Case files end to end (pytester + the simulator): every check type passes where it
holds and fails where it does not, with a message naming the check; a malformed
case file is one clear error; ``--harness-cases`` and the ini key choose the folder."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.evals import load_report
from harness.simulator import SimulatorServer

ROOT = Path(__file__).resolve().parents[2]
MARKER = "SENTINEL-NOTE-4A1B"
REJECT = "SENTINEL-REJECT-77C0"

# The simulated model reads note.txt and missing.txt together, writes the marker it
# read to the target, then reports it; on a rejected write it reports the reason.
SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {"kind": "judge", "when": {"last_user_contains": "<rubric>"}},
        {
            "kind": "echo_sentinels",
            "when": {"last_tool_result_contains": "Rejected by a human"},
            "pattern": "SENTINEL-REJECT-[A-Z0-9]+",
            "template": "A human rejected the write: {sentinels}",
        },
        {
            "when": {"last_user_contains": "deploy-key.txt", "has_tool_results": True},
            "fill": "SENTINEL-NOTE-[A-Z0-9]+",
            "reply": {
                "tool_calls": [
                    {"name": "write", "arguments": {"path": "deploy-key.txt", "content": "{match}"}}
                ]
            },
        },
        {
            "when": {"last_tool_result_contains": "Wrote"},
            "fill": "SENTINEL-NOTE-[A-Z0-9]+",
            "reply": "Copied {match} to out.txt.",
        },
        {
            "when": {"has_tool_results": True},
            "fill": "SENTINEL-NOTE-[A-Z0-9]+",
            "reply": {
                "tool_calls": [
                    {"name": "write", "arguments": {"path": "out.txt", "content": "{match}\n"}}
                ]
            },
        },
        {
            "when": {"has_tool_results": False},
            "reply": {
                "tool_calls": [
                    {"name": "read", "arguments": {"path": "note.txt"}},
                    {"name": "read", "arguments": {"path": "missing.txt"}},
                ]
            },
        },
    ],
}

ALL_CHECKS = f"""
      stop_reason: final
      steps: 3
      files:
        - {{path: out.txt, equals: "{MARKER}\\n"}}
        - {{path: out.txt, ends_with: "4A1B\\n", contains: [{MARKER}], not_contains: [nope]}}
        - {{path: missing.txt, exists: false}}
      answer_contains: [{MARKER}]
      answer_not_contains: [SENTINEL-OTHER-1]
      tools_called: {{read: 2, write: 1}}
      tools_failed: {{read: 1}}
      tools_not_called: [edit]
      calls: [read note.txt, read missing.txt, {{name: write, arguments: {{path: out.txt}}}}]
      trajectory:
        calls: [read note.txt, read missing.txt, {{name: write, args: {{path: out.txt}}}}]
        args: superset
      observations:
        - {{tool: read, path: note.txt, contains: [{MARKER}]}}
      trace_outline: |
        agent.run
          agent.step
            tool.call read
            tool.call read !error
          agent.step
            tool.call write
      judge: {{rubric: "The answer reports the marker {MARKER}."}}
"""

# One wrong expectation per case; the failure must name that check.
BROKEN: dict[str, tuple[str, str]] = {
    "stop-reason": ("stop_reason: max_steps", "stop_reason: final, expected max_steps"),
    "steps": ("steps: 2", "steps: 3, expected 2"),
    "equals": ('files: [{path: out.txt, equals: "other"}]', "files: out.txt holds"),
    "ends-with": ('files: [{path: out.txt, ends_with: "x"}]', "does not end with 'x'"),
    "contains": ("files: [{path: out.txt, contains: [SENTINEL-NOTE-9]}]", "out.txt lacks"),
    "not-contains": (f"files: [{{path: out.txt, not_contains: [{MARKER}]}}]", "still holds"),
    "exists": ("files: [{path: out.txt, exists: false}]", "out.txt exists, but must not"),
    "answer": ("answer_contains: [SENTINEL-NOTE-9]", "answer: lacks ['SENTINEL-NOTE-9']"),
    "answer-not": (f"answer_not_contains: [{MARKER}]", "answer: must not say"),
    "called": ("tools_called: {read: 1}", "tools_called: read ran 2 time(s), expected 1"),
    "failed": ("tools_called: {write: 1}", "tools_failed: read failed 1 time(s), expected 0"),
    "not-called": ("tools_not_called: [write]", "tools_not_called: write ran 1 time(s)"),
    "calls": ("calls: [read note.txt, write out.txt]", "calls: the model called"),
    "trajectory": (
        "trajectory: {calls: [read note.txt, write out.txt]}",
        "trajectory: trajectory does not match (match='strict', args='exact')",
    ),
    "observation": (
        "observations: [{tool: read, path: missing.txt, contains: [SENTINEL-NOTE-4A1B]}]",
        "observations: the result of read missing.txt lacks",
    ),
    "outline": (
        'trace_outline: "agent.run\\n  tool.call edit\\n"',
        "trace_outline: trace shape does not match",
    ),
    "judge": (
        'judge: {rubric: "The answer reports SENTINEL-NOTE-9."}',
        "judge: fail: the answer does not show SENTINEL-NOTE-9",
    ),
}


def _case(
    name: str, checks: str, prompt: str = "Copy the marker from note.txt into out.txt."
) -> str:
    return f"""
  - name: {name}
    workspace: cases/copy
    prompt: {prompt}
    tools: [read, write, edit]
    max_steps: 5
    checks:
{checks.strip(chr(10))}
"""


def _indent(line: str) -> str:
    return "      " + line


def _project(pytester: pytest.Pytester, cases_dir: str = "evals/cases") -> Path:
    evals = pytester.path / "evals"
    evals.mkdir(exist_ok=True)
    # Another module name than the suite's own evals/test_cases.py, which an
    # outer session may have imported already (pytester runs in-process).
    shutil.copy(ROOT / "evals" / "conftest.py", evals / "conftest.py")
    shutil.copy(ROOT / "evals" / "test_cases.py", evals / "test_user_cases.py")
    workspace = pytester.path / "fixtures" / "cases" / "copy"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "note.txt").write_text(f"marker: {MARKER}\n", "utf-8")
    folder = pytester.path / cases_dir
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _case_file() -> str:
    text = "version: 1\ncases:" + _case("all-checks", ALL_CHECKS)
    text += _case(
        "approval-reject",
        f"""
      files: [{{path: deploy-key.txt, exists: false}}]
      answer_contains: [{REJECT}]
      tools_not_called: [write]
      tools_failed: {{read: 1}}""",
        prompt="Copy the marker from note.txt into deploy-key.txt.",
    ).replace(
        "    checks:",
        f'    approval: {{tool: write, decision: reject, reason: "{REJECT}: no"}}\n    checks:',
    )
    for name, (check, _) in BROKEN.items():
        text += _case(f"broken-{name}", _indent(check))
    return text


def _failures(result: pytest.RunResult) -> dict[str, str]:
    """The failure text of each failed case, by case name."""
    found: dict[str, str] = {}
    current = None
    for line in result.outlines:
        if line.startswith("_") and "test_cases[" in line:
            current = line.split("test_cases[", 1)[1].split("-openai]", 1)[0]
            found[current] = ""
        elif current is not None:
            found[current] += line + "\n"
    return found


@pytest.mark.deep
def test_every_check_type_passes_where_it_holds_and_fails_where_it_does_not(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    folder = _project(pytester)
    (folder / "copy.yaml").write_text(_case_file(), "utf-8")
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    common = ("--harness-provider", "openai", "-p", "no:randomly")
    recorded = pytester.runpytest(
        *common, "--record-mode", "once", "--harness-base-url", server.url
    )
    recorded.assert_outcomes(passed=2, failed=len(BROKEN))
    server.stop()
    report = pytester.path / "report.json"
    replayed = pytester.runpytest(*common, "--harness-report", str(report))
    replayed.assert_outcomes(passed=2, failed=len(BROKEN))

    for run in (recorded, replayed):
        failures = _failures(run)
        assert sorted(failures) == sorted(f"broken-{name}" for name in BROKEN)
        for name, (_, expected) in BROKEN.items():
            assert expected in failures[f"broken-{name}"], (name, failures[f"broken-{name}"])
    rows = {row.scenario: row for row in load_report(report).rows}
    judged = rows["case[all-checks]"].judge
    assert judged is not None and judged.verdict == "pass" and judged.input_tokens > 0
    failed = rows["case[broken-judge]"].judge
    assert failed is not None and failed.verdict == "fail"
    assert rows["case[approval-reject]"].verdict.value == "pass"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            "version: 1\ncases:\n  - name: rename-var\n    workspace: cases/copy\n"
            "    prompt: go\n    checks:\n      files: [{path: a.py, contains: SENTINEL-X-1}]\n",
            "evals/cases/edits.yaml: case 'rename-var': checks.files[0].contains: "
            "expected a list of strings",
            id="not-a-list",
            marks=pytest.mark.deep,
        ),
        pytest.param(
            "version: 1\ncases:\n  - name: leak\n    workspace: cases/copy\n"
            "    prompt: Say SENTINEL-X-1\n    checks:\n      answer_contains: [SENTINEL-X-1]\n",
            "evals/cases/edits.yaml: case 'leak': (top level): the prompt contains the "
            "sentinel(s) ['SENTINEL-X-1']",
            id="sentinel-in-prompt",
        ),
    ],
)
def test_a_malformed_case_file_is_one_clear_error(
    pytester: pytest.Pytester, text: str, expected: str
) -> None:
    folder = _project(pytester)
    (folder / "edits.yaml").write_text(text, "utf-8")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    output = result.stdout.str()
    assert expected in output
    assert "Traceback" not in output  # one message, not a stack


@pytest.mark.deep
@pytest.mark.parametrize("how", ["option", "ini"])
def test_harness_cases_points_at_another_folder(
    pytester: pytest.Pytester, sim_server: Any, how: str
) -> None:
    folder = _project(pytester, "mycases")
    checks = _indent(f"answer_contains: [{MARKER}]") + "\n" + _indent("tools_failed: {read: 1}")
    (folder / "mine.yaml").write_text("version: 1\ncases:" + _case("mine", checks), "utf-8")
    args: tuple[str, ...] = ("--harness-cases", "mycases") if how == "option" else ()
    if how == "ini":
        pytester.makeini("[pytest]\nharness_cases = mycases\n")
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    result = pytester.runpytest(
        *args, "--harness-provider", "openai", "--record-mode", "once",
        "--harness-base-url", server.url, "-v",
    )  # fmt: skip
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*test_cases?mine-openai? PASSED*"])
