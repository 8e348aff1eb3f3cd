"""The recorded judge: an LLM grades a run against a rubric, through the eval's provider.

The judge's request goes through the same ``provider`` as the run (in evals, the
test's cassette), so its verdict is recorded once and replayed deterministically.
The judge must answer with exactly one JSON object::

    {"verdict": "pass" | "fail", "reason": "<one sentence>"}

Anything else (prose around it, another verdict, a missing reason) is a
malformed answer and fails the check: a judge that cannot be parsed strictly is
not evidence. The request shows the judge the rubric, the task, the tool calls
(names and arguments) and the final answer, each in its own tagged section.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.core import LLMRequest, Message, ToolCall
from harness.core.errors import HarnessError
from harness.providers import LLMProvider

__all__ = [
    "JUDGE_INSTRUCTIONS",
    "JudgeFormatError",
    "JudgeResult",
    "judge_request",
    "parse_judge_answer",
    "run_judge",
]

JUDGE_INSTRUCTIONS = (
    "You grade one run of an AI agent against a rubric. Judge only what the run shows. "
    'Reply with one JSON object and nothing else: {"verdict": "pass" or "fail", '
    '"reason": "<one sentence>"}.'
)
_MAX_ARGUMENT_CHARS = 400
_MAX_ANSWER_CHARS = 8000


class JudgeFormatError(HarnessError):
    """The judge's answer is not the strict JSON verdict it was asked for."""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")

    verdict: Literal["pass", "fail"]
    reason: str = Field(min_length=1)


class JudgeResult(BaseModel):
    """What the judge decided, and what it cost; stored on the eval row."""

    model_config = ConfigDict(frozen=True)

    verdict: Literal["pass", "fail"]
    reason: str
    model: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"


def _section(tag: str, body: str) -> str:
    return f"<{tag}>\n{body.strip()}\n</{tag}>"


def judge_request(
    rubric: str,
    *,
    task: str,
    answer: str,
    tool_calls: Sequence[ToolCall] = (),
    model: str | None = None,
) -> LLMRequest:
    """The request that asks the judge for a verdict on one run."""
    calls = "\n".join(
        f"{call.name} {json.dumps(call.arguments, sort_keys=True)[:_MAX_ARGUMENT_CHARS]}"
        for call in tool_calls
    )
    body = "\n".join(
        (
            _section("rubric", rubric),
            _section("task", task),
            _section("tool_calls", calls or "(none)"),
            _section("answer", answer[:_MAX_ANSWER_CHARS] or "(empty)"),
        )
    )
    return LLMRequest(
        messages=(Message.system(JUDGE_INSTRUCTIONS), Message.user(body)),
        model=model,
        max_tokens=300,
        metadata={"purpose": "judge"},
    )


def parse_judge_answer(text: str) -> tuple[Literal["pass", "fail"], str]:
    """``(verdict, reason)`` from the judge's answer, parsed strictly.

    Raises:
        JudgeFormatError: the answer is not exactly the JSON object asked for.
    """
    shown = text if len(text) <= 300 else text[:300] + "..."
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JudgeFormatError(
            f"the judge did not answer with a JSON object ({exc.msg}); it said: {shown!r}"
        ) from exc
    try:
        answer = _Answer.model_validate(data)
    except ValidationError as exc:
        problem = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in problem["loc"]) or "answer"
        raise JudgeFormatError(
            f'the judge answer is not {{"verdict": "pass"|"fail", "reason": "..."}}: '
            f"{where}: {problem['msg']}; it said: {shown!r}"
        ) from exc
    return answer.verdict, answer.reason


def run_judge(
    provider: LLMProvider,
    rubric: str,
    *,
    task: str,
    answer: str,
    tool_calls: Sequence[ToolCall] = (),
    model: str | None = None,
) -> JudgeResult:
    """Ask ``provider`` to grade a run; the answer is parsed strictly.

    Raises:
        JudgeFormatError: the judge's answer is malformed.
        ProviderError: the judge's request failed (or is not in the cassette).
    """
    request = judge_request(rubric, task=task, answer=answer, tool_calls=tool_calls, model=model)
    response = provider.complete(request)
    if response.tool_calls:
        raise JudgeFormatError("the judge answered with tool calls instead of a JSON verdict")
    verdict, reason = parse_judge_answer(response.text.strip())
    return JudgeResult(
        verdict=verdict,
        reason=reason,
        model=response.model or model,
        input_tokens=response.usage.input_tokens,
        output_tokens=response.usage.output_tokens,
    )
