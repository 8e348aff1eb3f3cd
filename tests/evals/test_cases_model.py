"""Case files: the model, the loader's errors (file, case, field), the honesty rule,
and the committed suite's coverage."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import ConfigurationError
from harness.evals.cases import CallSpec, Case, load_case_file, load_cases

ROOT = Path(__file__).resolve().parents[2]
HEAD = "version: 1\ncases:\n  - name: c1\n    workspace: w\n    prompt: do it\n"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, "utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            HEAD + "    checks:\n      files: [{path: a.py, contains: SENTINEL-A-1}]\n",
            "cases.yaml: case 'c1': checks.files[0].contains: expected a list of strings",
            id="not-a-list",
        ),
        pytest.param(
            HEAD + "    mode: sideways\n    checks: {steps: 1}\n",
            "cases.yaml: case 'c1': mode: Input should be 'act', 'plan', 'think' or 'plan-act'",
            id="mode",
        ),
        pytest.param(
            HEAD + "    checks: {steps: 1, answer_contain: [x]}\n",
            "cases.yaml: case 'c1': checks.answer_contain: unknown field",
            id="typo",
        ),
        pytest.param(
            HEAD + "    checks: {}\n",
            "cases.yaml: case 'c1': checks: a case needs a check that can fail",
            id="cannot-fail",
        ),
        pytest.param(HEAD, "cases.yaml: case 'c1': checks: Field required", id="no-checks"),
        pytest.param(
            HEAD + "    checks: {files: [{path: a.txt}]}\n",
            "checks.files[0]: give equals, ends_with, contains or not_contains",
            id="empty-file-check",
        ),
        pytest.param(
            HEAD + "    checks: {tools_called: {read: 0}}\n",
            "checks.tools_called: counts must be >= 1",
            id="zero-count",
        ),
        pytest.param(
            HEAD + "    approval: {tool: write, decision: approve}\n    checks: {steps: 1}\n",
            "case 'c1': (top level): approval.tool 'write' is not in tools",
            id="approval-tool",
        ),
        pytest.param(
            "version: 1\ncases:\n  - workspace: w\n    prompt: p\n    checks: {steps: 1}\n",
            "cases.yaml: cases[0]: name: Field required",
            id="no-name",
        ),
        pytest.param("cases: []\n", "cases.yaml: cases: List should have at least 1", id="empty"),
        pytest.param("version: 2\ncases: []\n", "cases.yaml: version:", id="version"),
        pytest.param("cases: [\n", "cases.yaml: cannot read the case file", id="yaml"),
    ],
)
def test_a_bad_case_file_names_file_case_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, "cases.yaml", text)
    with pytest.raises(ConfigurationError) as caught:
        load_case_file(path, root=tmp_path)
    assert message in str(caught.value)
    assert str(caught.value).startswith("cases.yaml: ")


def test_case_names_are_unique_across_the_folder(tmp_path: Path) -> None:
    _write(tmp_path, "a.yaml", HEAD + "    checks: {steps: 1}\n")
    _write(tmp_path, "b.yaml", HEAD + "    checks: {steps: 2}\n")
    with pytest.raises(ConfigurationError, match=r"b.yaml: case 'c1': name already used in a.yaml"):
        load_cases(tmp_path, root=tmp_path)


def test_a_missing_folder_says_how_to_choose_one(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="--harness-cases"):
        load_cases(tmp_path / "nope")


_SENTINELS = st.from_regex(r"SENTINEL-[A-Z0-9]{4,10}", fullmatch=True)


@pytest.mark.deep
@given(st.text(max_size=40), _SENTINELS, st.text(max_size=40), st.booleans())
def test_a_prompt_holding_a_checked_sentinel_is_refused(
    before: str, sentinel: str, after: str, in_file: bool
) -> None:
    checks = (
        {"files": [{"path": "a.txt", "contains": [sentinel]}]}
        if in_file
        else {"answer_contains": [sentinel]}
    )
    data = {"name": "c", "workspace": "w", "prompt": f"{before}{sentinel}{after}", "checks": checks}
    with pytest.raises(ValueError, match="the prompt contains the sentinel"):
        Case.model_validate(data)


@given(
    st.from_regex(r"[a-z_]{1,8}", fullmatch=True), st.from_regex(r"[\w./-]{0,20}", fullmatch=True)
)
def test_the_short_call_form_is_name_then_path(name: str, path: str) -> None:
    spec = CallSpec.model_validate(f"{name} {path}")
    assert spec.name == name
    assert spec.arguments == ({"path": path} if path else {})


def test_the_committed_suite_has_twenty_cases_of_every_kind() -> None:
    cases = load_cases(ROOT / "evals" / "cases", root=ROOT)
    assert len(cases) >= 20
    for case in cases:
        assert (ROOT / "fixtures" / case.workspace).is_dir(), case.name
        # Every case checks a value the model could only learn by running it.
        assert any(s.startswith("SENTINEL-") for s in case.checks.sentinels()) or any(
            "SENTINEL-" in c for o in case.checks.observations for c in o.contains
        ), case.name
        assert case.checks.calls is not None, f"{case.name}: no call sequence"
    kinds = {
        "approve": any(c.approval and c.approval.decision == "approve" for c in cases),
        "reject": any(c.approval and c.approval.decision == "reject" for c in cases),
        "deny": any(c.deny for c in cases),
        "allow": any(c.allow for c in cases),
        "plan": any(c.mode == "plan" for c in cases),
        "plan-act": any(c.mode == "plan-act" for c in cases),
        "max-steps": any(c.checks.stop_reason == "max_steps" for c in cases),
        "explore": any("explore" in c.tools for c in cases),
        "judge": any(c.checks.judge for c in cases),
    }
    assert all(kinds.values()), kinds
