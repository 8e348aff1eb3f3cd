"""Choosing the reply to a request from a :class:`Script` (thread-safe)."""

from __future__ import annotations

import json
import re
import threading
from typing import Any

from harness.core.roles import role_of_system
from harness.simulator._conversation import Conversation
from harness.simulator._script import (
    Condition,
    EchoSentinelsRule,
    JudgeRule,
    Reply,
    ReplyRule,
    Script,
    ScriptToolCall,
)

__all__ = ["ScriptExhausted", "ScriptRunner"]


class ScriptExhausted(Exception):
    """No rule applies and no turn is left for this request."""


def _holds(condition: Condition, conversation: Conversation) -> bool:
    last_result = (
        conversation.trailing_tool_results[-1] if conversation.trailing_tool_results else None
    )
    checks = (
        condition.last_tool_result_contains is None
        or (last_result is not None and condition.last_tool_result_contains in last_result),
        condition.last_user_contains is None
        or condition.last_user_contains in (conversation.last_user_text or ""),
        condition.tool_results_match is None
        or any(re.search(condition.tool_results_match, r) for r in conversation.tool_results),
        condition.model is None or condition.model == conversation.model,
        condition.tools_include is None or condition.tools_include in conversation.tool_names,
        condition.has_tool_results is None
        or condition.has_tool_results == bool(conversation.trailing_tool_results),
        condition.role is None or condition.role == role_of_system(conversation.system),
    )
    return all(checks)


def _echo(rule: EchoSentinelsRule, conversation: Conversation) -> Reply | None:
    if not conversation.trailing_tool_results or not _holds(rule.when, conversation):
        return None
    found: dict[str, None] = {}
    for result in conversation.tool_results:
        found.update(dict.fromkeys(re.findall(rule.pattern, result)))
    if not found:
        return None
    return Reply(text=rule.template.format(sentinels=", ".join(found)))


def _tagged(text: str, tag: str) -> str | None:
    found = re.search(rf"<{tag}>\n(.*?)\n</{tag}>", text, re.DOTALL)
    return found.group(1) if found else None


def _judge(rule: JudgeRule, conversation: Conversation) -> Reply | None:
    text = conversation.last_user_text or ""
    rubric, answer = _tagged(text, "rubric"), _tagged(text, "answer")
    if rubric is None or answer is None or not _holds(rule.when, conversation):
        return None
    expected = list(dict.fromkeys(re.findall(rule.pattern, rubric)))
    if not expected:
        return None
    missing = [s for s in expected if s not in answer]
    verdict = "fail" if missing else "pass"
    reason = (
        f"the answer does not show {', '.join(missing)}"
        if missing
        else "the answer shows every marker the rubric requires"
    )
    return Reply(text=json.dumps({"verdict": verdict, "reason": reason}))


def _filled(rule: ReplyRule, conversation: Conversation) -> Reply | None:
    if rule.fill is None:
        return rule.reply
    pattern = re.compile(rule.fill)
    for result in reversed(conversation.tool_results):
        if (found := pattern.search(result)) is not None:
            value = found.group(1) if pattern.groups else found.group(0)
            return _substitute(rule.reply, value)
    return None


def _substitute(reply: Reply, value: str) -> Reply:
    # str.replace, not str.format: scripted code arguments hold braces of their own.
    def fill(item: Any) -> Any:
        if isinstance(item, str):
            return item.replace("{match}", value)
        if isinstance(item, dict):
            return {key: fill(inner) for key, inner in item.items()}
        if isinstance(item, list):
            return [fill(inner) for inner in item]
        return item

    calls = tuple(
        ScriptToolCall(name=call.name, arguments=fill(call.arguments), id=call.id)
        for call in reply.tool_calls
    )
    return Reply(text=fill(reply.text), tool_calls=calls)


class ScriptRunner:
    """Answers requests from a script; counts the turns it has used."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self._lock = threading.Lock()
        self._next_turn = 0

    def reply(self, conversation: Conversation) -> Reply:
        """The reply for ``conversation``.

        Raises:
            ScriptExhausted: no rule applies and the turns have run out.
        """
        return self.choose(conversation)[0]

    def choose(self, conversation: Conversation) -> tuple[Reply, str]:
        """The reply for ``conversation`` and which part of the script gave it
        (``rule 2 (reply)``, ``turn 3 of 4``), for the request log.

        Raises:
            ScriptExhausted: no rule applies and the turns have run out.
        """
        for number, rule in enumerate(self.script.rules, start=1):
            if isinstance(rule, ReplyRule):
                if (
                    _holds(rule.when, conversation)
                    and (filled := _filled(rule, conversation)) is not None
                ):
                    return filled, f"rule {number} ({'fill' if rule.fill else 'reply'})"
            elif isinstance(rule, JudgeRule):
                if (judged := _judge(rule, conversation)) is not None:
                    return judged, f"rule {number} (judge)"
            elif (echoed := _echo(rule, conversation)) is not None:
                return echoed, f"rule {number} (echo_sentinels)"
        return self._turn(conversation)

    def _turn(self, conversation: Conversation) -> tuple[Reply, str]:
        turns = self.script.turns
        if self.script.turn_order == "conversation":
            position = conversation.assistant_turns
        else:
            with self._lock:
                position = self._next_turn
                self._next_turn += 1
        if position < len(turns):
            return turns[position], f"turn {position + 1} of {len(turns)}"
        if turns and self.script.when_exhausted == "repeat_last":
            return turns[-1], f"turn {len(turns)} of {len(turns)} (repeat_last)"
        raise ScriptExhausted(
            f"harness simulator: no scripted turn left for this request "
            f"(turn {position + 1}, the script has {len(turns)}); add turns or rules "
            "to the script, or set when_exhausted: repeat_last"
        )
