"""Conversation cases (a case with ``user:``) in the case runner, on either kind of agent.

On harness's runtime (``test_cases``) the user model, the agent and the judge
all call the row's ``provider``, so one cassette holds the whole conversation;
each request's role is read from its system text (``harness.core.roles``), and
the conversation is one trace on the application's tracer. On an agent of your
own (``test_target_cases``) the target is called with the history under
``llm_cassette``, and a model user calls the openai wire through that cassette.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.app import Application
    from harness.conversations import ConversationResult
    from harness.evals.cases import Case
    from harness.evals.judge import JudgeResult
    from harness.providers import LLMProvider
    from harness.testing.rows.runlog import RunLog
    from harness.tracing import Tracer

__all__ = ["RuntimeConversation", "converse_on_runtime", "converse_with_target"]


class RuntimeConversation:
    """A conversation on harness's runtime: its result, the judge's verdict, its failures."""

    def __init__(self, result: ConversationResult, judged: JudgeResult | None, errors: list[str]):
        self.result = result
        self.judged = judged
        self.errors = errors


def _goal(case: Case, workdir: Path) -> Any:
    from harness.evals.builtin_checks import goal_failures

    state = case.checks.state
    if state is None:
        return None
    return lambda: not goal_failures(state, workdir)


def converse_on_runtime(
    case: Case,
    app: Application,
    provider: LLMProvider,
    workdir: Path,
    run_log: RunLog,
    *,
    judge_model: str | None,
    calls: Any,
) -> RuntimeConversation:
    """Run ``case``'s conversation with harness's runtime as the agent.

    The run log then holds one result for the whole conversation (its trace,
    every turn's steps and tool calls, the agent's and the user model's tokens).
    ``calls()`` gives the agent's tool calls so far, for the judge.
    """
    from harness.conversations import RuntimeAgent, run_conversation, speaker_for
    from harness.providers.tracking import UsageTrackingProvider

    assert case.user is not None
    tracer = app.tracer
    agent = RuntimeAgent(app, session=case.session_name, mode=case.mode, max_steps=case.max_steps)
    user = speaker_for(case.user, UsageTrackingProvider(provider, tracer))
    judged: list[JudgeResult] = []
    errors: list[str] = []

    def judge(tracer: Tracer, result: ConversationResult) -> None:
        spec = case.checks.judge
        if spec is None:
            return
        from harness.core.errors import HarnessError
        from harness.evals.conversation_checks import transcript_text
        from harness.evals.judge import run_judge

        with tracer.span("judge.call") as span:
            try:
                verdict = run_judge(
                    UsageTrackingProvider(provider, tracer),
                    spec.rubric,
                    task=case.task,
                    answer=transcript_text(result),
                    tool_calls=calls(),
                    model=judge_model,
                )
            except HarnessError as exc:
                tracer.set_status(span, "error")
                errors.append(f"judge: {exc}")
                return
            tracer.set_attributes(span, verdict=verdict.verdict)
            judged.append(verdict)

    result = run_conversation(
        case.user,
        user,
        agent,
        tracer=tracer,
        workdir=workdir,
        goal_reached=_goal(case, workdir),
        session_key=case.session_name,
        after=judge,
    )
    _one_result(run_log, agent.results, result)
    return RuntimeConversation(result, judged[0] if judged else None, errors)


def _one_result(run_log: RunLog, turns: list[Any], result: ConversationResult) -> None:
    """Replace the turns' results in the run log by one for the whole conversation."""
    from harness.core.messages import Usage
    from harness.engine import RunResult, StopReason

    last = turns[-1] if turns else None
    # A turn that stopped otherwise than with an answer is the conversation's verdict,
    # even when later turns went on: checks.stop_reason sees the first that failed.
    worst = next((turn for turn in turns if turn.stop_reason is not StopReason.FINAL), last)
    usage = sum((turn.usage for turn in turns), Usage()) + result.user_usage
    whole = RunResult(
        text=result.last_reply,
        stop_reason=worst.stop_reason if worst is not None else StopReason.FINAL,
        steps=sum(turn.steps for turn in turns),
        usage=usage,
        mode=last.mode if last is not None else "act",
        session_key=last.session_key if last is not None else None,
        tool_calls=sum(turn.tool_calls for turn in turns),
        error=worst.error if worst is not None else None,
        trace_id=result.trace_id,
        trace_path=result.trace_path,
    )
    kept = [r for r in run_log.results if r not in turns]
    run_log.results[:] = [*kept, whole]


def converse_with_target(case: Case, workdir: Path, llm_cassette: Any) -> ConversationResult:
    """Run ``case``'s conversation with its ``target`` as the agent, under ``llm_cassette``.

    Raises:
        ConfigurationError: the target cannot be loaded.
    """
    from harness.conversations import load_conversation_target, run_conversation, speaker_for
    from harness.testing.cassettes.recorded import DEFAULT_MODELS
    from harness.tracing import FileTraceRecorder, Tracer

    assert case.user is not None and case.target is not None
    target = load_conversation_target(case.target)
    provider = None
    if not case.user.scripted:
        from harness.wires.openai.provider import OpenAIProvider

        provider = OpenAIProvider(DEFAULT_MODELS["openai"], client=llm_cassette.openai())
    state = workdir.parent / "conversation-state"
    state.mkdir(mode=0o700, exist_ok=True)
    tracer = Tracer(FileTraceRecorder(state))
    return run_conversation(
        case.user,
        speaker_for(case.user, provider),
        target,
        tracer=tracer,
        workdir=workdir,
        goal_reached=_goal(case, workdir),
        session_key=case.session_name,
    )
