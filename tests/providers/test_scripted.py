"""The fake providers: scripted turns, exhaustion, completeness, functions."""

from __future__ import annotations

import pytest

from harness.core import LLMRequest, LLMResponse, Message, ProviderError, ToolCall
from harness.providers import EchoProvider, FunctionProvider, ScriptedProvider, tool_call

REQUEST = LLMRequest(messages=(Message.user("hello"),))


def test_turn_kinds() -> None:
    provider = ScriptedProvider(
        [
            "text",
            tool_call("read", path="a"),
            [tool_call("read", path="a"), tool_call("read", path="b")],
            LLMResponse(text="raw"),
            lambda request: f"saw {request.messages[-1].content}",
        ]
    )
    assert provider.complete(REQUEST).text == "text"
    one = provider.complete(REQUEST).tool_calls
    assert [(c.name, c.arguments) for c in one] == [("read", {"path": "a"})]
    assert len(provider.complete(REQUEST).tool_calls) == 2
    assert provider.complete(REQUEST).text == "raw"
    assert provider.complete(REQUEST).text == "saw hello"
    assert len(provider.requests) == 5
    provider.assert_complete()


def test_exception_turn_is_raised() -> None:
    provider = ScriptedProvider([ProviderError("overloaded", status_code=529)])
    with pytest.raises(ProviderError, match="overloaded"):
        provider.complete(REQUEST)


def test_exhaustion_names_the_step() -> None:
    provider = ScriptedProvider(["only"])
    provider.complete(REQUEST)
    with pytest.raises(ProviderError, match=r"ran out of turns at step 2.*1 turn"):
        provider.complete(REQUEST)


def test_assert_complete_fails_on_unused_turns() -> None:
    provider = ScriptedProvider(["a", "b"])
    provider.complete(REQUEST)
    with pytest.raises(AssertionError, match="1 unused turn"):
        provider.assert_complete()


def test_tool_call_ids_are_generated_and_unique() -> None:
    ids = {tool_call("read", path="x").id for _ in range(50)}
    assert len(ids) == 50
    assert tool_call("read", id="fixed").id == "fixed"


def test_unsupported_turn_is_a_clear_error() -> None:
    with pytest.raises(ProviderError, match="not supported"):
        ScriptedProvider([42]).complete(REQUEST)


def test_function_provider_checks_return_type() -> None:
    good = FunctionProvider(lambda r: LLMResponse(text=str(len(r.messages))))
    assert good.complete(REQUEST).text == "1"
    bad = FunctionProvider(lambda r: "text")  # type: ignore[arg-type,return-value]
    with pytest.raises(ProviderError, match="must return an LLMResponse"):
        bad.complete(REQUEST)


def test_echo_replies_with_last_user_message() -> None:
    request = LLMRequest(messages=(Message.user("first"), Message.user("second")))
    assert EchoProvider().complete(request).text == "second"


def test_tool_call_round_trips_through_json() -> None:
    call = ToolCall(name="read", arguments={"path": "a"})
    assert ToolCall.model_validate_json(call.model_dump_json()) == call
