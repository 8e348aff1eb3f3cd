"""Scenario cases as data: one eval runs every case of ``evals/cases/*.yaml``.

Each case (format: :mod:`harness.evals.cases`) runs under the same fixtures as
the hand-written scenarios: a fresh ``workspace`` with the case's fixture
copied in, ``make_harness_app`` on the ``provider`` fixture (a per-case,
per-provider cassette), provenance on the row. Point ``--harness-cases DIR`` at
another folder to run your own cases. The verdicts are the case's checks
(:mod:`harness.evals.checks`), plus the recorded judge when the case has one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from harness.app import Application
from harness.core import Role
from harness.core.errors import ConfigurationError, HarnessError
from harness.evals.cases import Case, load_cases
from harness.evals.checks import CaseRun, check_case
from harness.evals.judge import run_judge
from harness.providers.protocol import LLMProvider
from harness.testing.options import HarnessOptions
from harness.testing.runlog import RunLog
from harness.testing.trace_assertions import assert_trace_shape
from harness.testing.workspace import Workspace
from harness.tracing import TraceTree

PROVIDERS = ("openai", "openai-responses", "anthropic")
_CASES: dict[str, Case] = {}


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case_name" not in metafunc.fixturenames:
        return
    options = HarnessOptions.from_config(metafunc.config)
    folder = options.cases_dir or options.rootdir / "evals" / "cases"
    try:
        cases = load_cases(folder, root=options.rootdir)
    except ConfigurationError as exc:
        problem = str(exc)
    else:
        problem = ""
    if problem:  # outside the except block: one message, no chained traceback
        pytest.fail(f"harness cases: {problem}", pytrace=False)
    _CASES.update({case.name: case for case in cases})
    names = [case.name for case in cases]
    metafunc.parametrize("case_name", names, ids=names)


def _subset_shape(tree: TraceTree, outline: str) -> None:
    assert_trace_shape(tree, outline, match="subset")


def _run(case: Case, app: Application) -> None:
    first = app.run(
        case.prompt, mode=case.mode, session=case.session_name, max_steps=case.max_steps
    )
    if case.approval is None:
        return
    step = case.approval
    assert first.stop_reason == "approval_required" and first.approval_id is not None, (
        f"verdict: the run did not pause for approval of {step.tool} "
        f"(stop reason {first.stop_reason}: {first.error})"
    )
    record = app.approvals.load(first.approval_id)
    assert record.tool_name == step.tool, (
        f"verdict: the approval asks about {record.tool_name}, expected {step.tool}"
    )
    app.resume_approval(
        first.approval_id, step.decision, session=case.session_name, reason=step.reason
    )


@pytest.mark.eval("case")
@pytest.mark.parametrize("provider_name", PROVIDERS)
def test_cases(
    case_name: str,
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    provider: LLMProvider,
    harness_options: HarnessOptions,
    harness_run_log: RunLog,
    evidence: Callable[[Application], Any],
) -> None:
    case = _CASES[case_name]
    workspace.copy_fixture(case.workspace)
    app = make_harness_app(
        enabled_tools=case.tools, tool_allowlist=case.allow, tool_denylist=case.deny
    )
    _run(case, app)
    seen = evidence(app)
    shown = {
        str(message.tool_call_id): str(message.content)
        for request in seen.requests
        for message in request.messages
        if message.role is Role.TOOL
    }
    run = CaseRun(
        tuple(harness_run_log.results),
        tuple(harness_run_log.traces()),
        workspace.root,
        calls=tuple(seen.calls()),
        shown=shown,
    )
    failures = check_case(case, run, assert_shape=_subset_shape)
    for result in run.results:  # metadata traces hold none of the case's secrets
        seen.assert_metadata_trace(result, (*case.checks.sentinels(), case.prompt))
    if case.checks.judge is not None:
        try:
            judged = run_judge(
                provider,
                case.checks.judge.rubric,
                task=case.prompt,
                answer=run.final.text or "",
                tool_calls=seen.calls(),
                model=harness_options.judge_model or harness_run_log.model,
            )
        except HarnessError as exc:
            failures.append(f"judge: {exc}")
        else:
            harness_run_log.judge = judged.model_dump()
            if not judged.passed:
                failures.append(f"judge: fail: {judged.reason}")
    assert not failures, f"verdict: case {case.name!r} ({case.source}):\n" + "\n".join(
        f"  - {line}" for line in failures
    )
