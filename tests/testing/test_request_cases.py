"""A case file's ``request:`` block (pytester + the simulator + harness's runtime):
checked after the run, a wrong value fails naming the request, a bad key is one
line naming the file and the key, and under ``--harness-mutants`` the case that
checks its requests kills the request mutants while the one that does not lets
them survive."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.evals import load_report
from harness.evals._mutant_table import render_mutants
from harness.evals.cases import load_case_file
from harness.testing import sent_requests

ROOT = Path(__file__).resolve().parents[2]
MARKER = "SENTINEL-NOTE-5C2D"
SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {
            "when": {"has_tool_results": False},
            "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "note.txt"}}]},
        },
        {
            "when": {"has_tool_results": True},
            "fill": "SENTINEL-NOTE-[A-Z0-9]+",
            "reply": "The marker is {match}.",
        },
    ],
}
REQUEST_OPS = {"drop_system_line", "change_effort", "rename_param", "reorder_prefix"}


def _case(name: str, request: str = "") -> str:
    block = f"    request:\n{request}" if request else ""
    return f"""
  - name: {name}
    workspace: cases/note
    prompt: Read note.txt and tell me the marker.
    tools: [read]
{block}    checks:
      answer_contains: [{MARKER}]
"""


def _project(pytester: pytest.Pytester, cases: str) -> Path:
    evals = pytester.path / "evals"
    evals.mkdir(exist_ok=True)
    shutil.copy(ROOT / "evals" / "conftest.py", evals / "conftest.py")
    shutil.copy(ROOT / "evals" / "test_cases.py", evals / "test_user_cases.py")
    workspace = pytester.path / "fixtures" / "cases" / "note"
    workspace.mkdir(parents=True, exist_ok=True)
    (workspace / "note.txt").write_text(f"marker: {MARKER}\n", "utf-8")
    folder = pytester.path / "evals" / "cases"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "note.yaml"
    path.write_text("version: 1\ncases:" + cases, "utf-8")
    return path


COMMON = ("--harness-provider", "openai", "-p", "no:randomly")


def test_a_request_block_is_checked_after_the_run_and_kills_request_mutants(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    prefix = "      stable_prefix: true\n      complete_history: true\n"
    path = _project(pytester, _case("checked", prefix) + _case("unchecked"))
    server = sim_server(SIM_SCRIPT)
    recorded = pytester.runpytest(
        *COMMON, "--record-mode", "once", "--harness-base-url", server.url
    )
    recorded.assert_outcomes(passed=2)
    server.stop()
    (cassette,) = pytester.path.glob("cassettes/openai/*/evals/*/test_cases-checked.yaml")
    sent = sent_requests(cassette)
    assert len(sent) == 2 and sent[0].system is not None
    pins = (
        f"      model: {sent[0].model}\n      effort: null\n"
        f"      system_sha256: {sent[0].system_sha256}\n"
        f"      tools_sha256: {sent[0].tools_sha256}\n"
    )
    wrong = "      model: gpt-5-mini\n"
    path.write_text(
        "version: 1\ncases:"
        + _case("checked", prefix + pins)
        + _case("unchecked")
        + _case("wrong-model", wrong),
        "utf-8",
    )
    shutil.copy(cassette, cassette.with_name(cassette.name.replace("checked", "wrong-model")))
    replayed = pytester.runpytest(*COMMON)
    replayed.assert_outcomes(passed=2, failed=1)
    replayed.stdout.fnmatch_lines(
        ["*request: request 0 of 2 (harness): model: expected 'gpt-5-mini', sent 'gpt-4.1-mini'*"]
    )

    path.write_text(
        "version: 1\ncases:" + _case("checked", prefix + pins) + _case("unchecked"), "utf-8"
    )
    pytester.runpytest(*COMMON, "--harness-mutants", "--harness-report", "m.json")
    report = load_report(pytester.path / "m.json")
    outcomes: dict[str, dict[str, str]] = {}
    for found in report.mutants:
        if found.operator in REQUEST_OPS:
            outcomes.setdefault(found.scenario, {})[found.operator] = found.outcome.value
        elif found.mutant == "original":
            assert found.outcome.value == "pass", (found.scenario, found.message)
    assert outcomes["case[checked]"] == dict.fromkeys(REQUEST_OPS, "killed")
    assert outcomes["case[unchecked]"] == dict.fromkeys(REQUEST_OPS, "survived")
    table = render_mutants(report)
    assert "request mutants: 0/4 killed — no check looks at what was sent" in table
    assert "request mutants: 4/4 killed" in table


@pytest.mark.parametrize(
    ("request_block", "expected"),
    [
        pytest.param(
            "      modle: gpt-4.1-mini\n",
            "note.yaml: case 'bad': request.modle: unknown field; check its spelling",
            id="unknown-key",
        ),
        pytest.param(
            "      system_sha256: abc\n",
            "note.yaml: case 'bad': request.system_sha256: String should match pattern",
            id="not-a-digest",
        ),
        pytest.param(
            "      stable_prefix: false\n",
            "note.yaml: case 'bad': request: an empty request block checks nothing",
            id="checks-nothing",
        ),
    ],
)
def test_a_bad_request_block_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, request_block: str, expected: str
) -> None:
    from harness.core.errors import ConfigurationError

    path = tmp_path / "note.yaml"
    text = "version: 1\ncases:" + _case("bad", request_block)
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigurationError) as caught:
        load_case_file(path, root=tmp_path)
    message = str(caught.value)
    assert expected in message and "\n" not in message, message


def test_the_shipped_example_case_checks_what_was_sent() -> None:
    import harness.testing.cases_suite

    shipped = Path(harness.testing.cases_suite.__file__).with_name("example_cases")
    (case,) = load_case_file(shipped / "release.yaml")
    assert case.request is not None
    assert case.request.stable_prefix and case.request.complete_history
