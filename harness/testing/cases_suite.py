"""The case-file runner: one eval per case of ``--harness-cases DIR`` (``*.yaml``).

It ships with the plugin, so case files run in any project: when no collected
module re-exports these tests, the plugin collects this module itself (see
``harness.testing.plugin``). Two evals share the row name ``case[<name>]``:

- ``test_cases`` runs harness's own runtime on the case, through the
  ``provider`` fixture (a per-case, per-provider cassette);
- ``test_target_cases`` calls the case's ``target`` (``package.module:function``,
  an agent harness did not build) as ``fn(prompt, workspace) -> str`` under
  ``llm_cassette``; its row's numbers come from the HTTP traffic.

The verdicts are the case's checks (:mod:`harness.evals.checks`): harness's
own and any registered with ``harness.evals.register_check``; the recorded judge
grades a case that has one.

A module that re-exports the runner re-exports ``vcr`` and ``block_network``
too (``__all__`` lists them): with pytest-recording installed, its autouse
fixtures of those names cost each row three fixtures (0.35 ms) to do nothing,
since a row plays harness's own cassette. These stand in for them and hand over
to pytest-recording's whenever it has work: a test marked ``vcr`` or
``block_network``, or a run with ``--block-network``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.core.wires import runtime_wires
from harness.testing.options import HarnessOptions

if TYPE_CHECKING:
    from harness.app import Application
    from harness.evals.cases import Case
    from harness.evals.check_configs import TrajectorySpec
    from harness.evals.judge import JudgeResult
    from harness.providers import LLMProvider
    from harness.testing.rows.runlog import RunLog
    from harness.testing.rows.workspace import Workspace

__all__ = [
    "block_network",
    "llm_cassette_config",
    "load_target",
    "pytest_generate_tests",
    "test_cases",
    "test_target_cases",
    "vcr",
]

# The registry's runtime wires: a wire added there gets a row of every case.
PROVIDERS = tuple(w.name for w in runtime_wires())
_CASES: dict[str, Case] = {}
# A session's loaded case folders: (folder, rootdir) -> its cases, or why they failed to load.
_LOADED_KEY = pytest.StashKey[dict[tuple[Path, Path], "list[Case] | str"]]()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case_name" not in metafunc.fixturenames:
        return
    from harness.core.errors import ConfigurationError
    from harness.evals.cases import load_cases

    options = HarnessOptions.from_config(metafunc.config)
    folder = options.cases_dir or options.rootdir / "evals" / "cases"
    # Both runners (and any module re-exporting them) read the same folder: it is
    # read once a session (80 ms for 334 cases, in every xdist worker too).
    loaded = metafunc.config.stash.setdefault(_LOADED_KEY, {})
    key = (folder, options.rootdir)
    if key not in loaded:
        try:
            loaded[key] = load_cases(folder, root=options.rootdir)
        except ConfigurationError as exc:
            loaded[key] = str(exc)
    cases = loaded[key]
    if isinstance(cases, str):  # outside any except block: one message, no chained traceback
        pytest.fail(f"harness cases: {cases}", pytrace=False)
    _CASES.update({case.name: case for case in cases})
    targeted = metafunc.function.__name__ == "test_target_cases"
    names = [case.name for case in cases if (case.target is not None) == targeted]
    metafunc.parametrize("case_name", names, ids=names)


@pytest.fixture
def llm_cassette_config(request: pytest.FixtureRequest) -> dict[str, Any]:
    """A target case's ``profile`` for its ``llm_cassette``."""
    name = getattr(getattr(request.node, "callspec", None), "params", {}).get("case_name")
    case = _CASES.get(str(name)) if name is not None else None
    return {"profile": case.profile} if case is not None and case.profile else {}


def _recording_has_work(request: pytest.FixtureRequest) -> bool:
    """Whether pytest-recording's fixture of this name would do anything for the test."""
    if not request.config.pluginmanager.has_plugin("recording"):
        return False  # not installed (or -p no:recording): nothing to hand over to
    node = request.node
    if node.get_closest_marker("vcr") is not None:
        return True
    if node.get_closest_marker("block_network") is not None:
        return True
    return bool(request.config.getoption("block_network", default=False))


@pytest.fixture
def vcr(request: pytest.FixtureRequest) -> Any:
    """pytest-recording's ``vcr`` for a test marked ``vcr``; None for anything else."""
    if not _recording_has_work(request):
        return None
    return request.getfixturevalue("vcr")  # the one this overrides: pytest-recording's


@pytest.fixture
def block_network(request: pytest.FixtureRequest) -> None:
    """pytest-recording's ``block_network`` when it would block; nothing otherwise."""
    if _recording_has_work(request):
        request.getfixturevalue("block_network")


def load_target(spec: str) -> Callable[[str, Path], str]:
    """The function ``package.module:function`` names.

    Raises:
        ConfigurationError: the module cannot be imported or has no such function.
    """
    from harness.core.errors import ConfigurationError

    module_name, _, function = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"case target {spec!r}: cannot import {module_name} ({exc}); is it on sys.path?"
        ) from None
    found = getattr(module, function, None)
    if not callable(found):
        raise ConfigurationError(f"case target {spec!r}: {module_name} has no function {function}")
    return found  # type: ignore[no-any-return]


def _run(case: Case, app: Application) -> None:
    assert case.prompt is not None
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


def _judged(judged: JudgeResult | None, run_log: RunLog, failures: list[str]) -> None:
    if judged is None:
        return
    run_log.judge = judged.model_dump()
    if not judged.passed:
        failures.append(f"judge: fail: {judged.reason}")


def _failed(case: Case, failures: list[str]) -> str:
    lines = "\n".join(f"  - {line}" for line in failures)
    return f"verdict: case {case.name!r} ({case.source}):\n{lines}"


@pytest.mark.eval("case")
@pytest.mark.parametrize("provider_name", PROVIDERS)
def test_cases(
    case_name: str,
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    provider: LLMProvider,
    harness_options: HarnessOptions,
    harness_run_log: RunLog,
) -> None:
    """A case on harness's own runtime."""
    from harness.core import Role
    from harness.core.errors import HarnessError
    from harness.evals.check import CheckContext
    from harness.evals.checks import run_checks
    from harness.evals.judge import run_judge
    from harness.testing.rows.evidence import Evidence

    case = _CASES[case_name]
    workspace.copy_fixture(case.workspace)
    app = make_harness_app(
        enabled_tools=case.tools, tool_allowlist=case.allow, tool_denylist=case.deny
    )
    judge_model = harness_options.judge_model or harness_run_log.model
    conversation = None
    if case.user is None:
        _run(case, app)
    else:
        from harness.testing.rows.conversation_cases import converse_on_runtime

        conversation = converse_on_runtime(
            case,
            app,
            provider,
            workspace.root,
            harness_run_log,
            judge_model=judge_model,
            calls=lambda: Evidence(app).calls(),
        )
    seen = Evidence(app)  # not the fixture: one fewer to set up per row
    shown = {
        str(message.tool_call_id): str(message.content)
        for request in seen.requests
        for message in request.messages
        if message.role is Role.TOOL
    }
    results = tuple(harness_run_log.results)
    told = (case.task, *(case.user.texts() if case.user is not None else ()))
    for result in results:  # metadata traces hold none of the case's secrets
        tree = harness_run_log.trace_of(result) if result.trace_path is not None else None
        seen.assert_metadata_trace(result, (*case.checks.sentinels(), *told), tree=tree)
    judge: list[str] = []
    if conversation is not None:
        _judged(conversation.judged, harness_run_log, judge)
    elif case.checks.judge is not None:
        try:
            judged = run_judge(
                provider,
                case.checks.judge.rubric,
                task=case.task,
                answer=results[-1].text or "",
                tool_calls=seen.calls(),
                model=judge_model,
            )
        except HarnessError as exc:
            judge.append(f"judge: {exc}")
        else:
            _judged(judged, harness_run_log, judge)
    evidence = CheckContext(
        answer=results[-1].text or "",
        workdir=workspace.root,
        results=results,
        traces=tuple(harness_run_log.traces()),
        calls=tuple(seen.calls()),
        shown=shown,
        judge=tuple(judge),
        trajectory=_trajectory_of(seen.calls()),
        conversation=conversation.result if conversation is not None else None,
        assert_shape=_subset_shape,
    )
    failures = run_checks(case.checks, evidence)
    if case.request is not None:
        from harness.testing.assertions.request_checks import request_spec_failures

        failures += request_spec_failures(case.request, app)
    if conversation is not None:
        failures += conversation.errors
    assert not failures, _failed(case, failures)


@pytest.mark.eval("case")
def test_target_cases(case_name: str, workspace: Workspace, llm_cassette: Any) -> None:
    """A case on an agent of your own (``target:``), under ``llm_cassette``."""
    from harness.core.errors import ConfigurationError
    from harness.evals.check import CheckContext
    from harness.evals.checks import run_checks

    case = _CASES[case_name]
    assert case.target is not None
    workspace.copy_fixture(case.workspace)
    conversation = None
    if case.user is not None:
        from harness.testing.rows.conversation_cases import converse_with_target

        try:
            conversation = converse_with_target(case, workspace.root, llm_cassette)
        except ConfigurationError as exc:
            pytest.fail(f"{case.source}: case {case.name!r}: {exc}", pytrace=False)
        answer = conversation.last_reply
    else:
        try:
            target = load_target(case.target)
        except ConfigurationError as exc:
            pytest.fail(f"{case.source}: case {case.name!r}: {exc}", pytrace=False)
        assert case.prompt is not None
        answer = target(case.prompt, workspace.root)
        if not isinstance(answer, str):
            pytest.fail(
                f"case target {case.target} returned {type(answer).__name__}, not the answer text",
                pytrace=False,
            )
    evidence = CheckContext(
        answer=answer,
        workdir=workspace.root,
        trajectory=_trajectory_of(llm_cassette),
        conversation=conversation,
    )
    failures = run_checks(case.checks, evidence)
    if case.request is not None:
        from harness.testing.assertions.request_checks import request_spec_failures

        failures += request_spec_failures(case.request, llm_cassette)
    assert not failures, _failed(case, failures)


def _trajectory_of(source: Any) -> Callable[[TrajectorySpec], str | None]:
    """The ``trajectory:`` check's matcher: the model's calls (harness's request log,
    or the traffic of a target) against the listed ones, as ``assert_trajectory``
    matches."""

    def matches(spec: TrajectorySpec) -> str | None:
        from harness.core.errors import ConfigurationError
        from harness.testing.assertions.trajectory import trajectory_failure

        try:
            return trajectory_failure(
                source,
                [call.model_dump() for call in spec.calls],
                match=spec.match,
                args=spec.args,
                per_tool=spec.per_tool,
                include_output_tools=spec.include_output_tools,
            )
        except ConfigurationError as exc:
            return str(exc)

    return matches


def _subset_shape(tree: Any, outline: str) -> None:
    from harness.testing.assertions.trace_assertions import assert_trace_shape

    assert_trace_shape(tree, outline, match="subset")
