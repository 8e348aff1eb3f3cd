"""MainLoop behaviour: errors stay observations, limits and provider failures stop cleanly."""

from __future__ import annotations

from pathlib import Path

from harness import Settings, build_application
from harness.core import ProviderError, Role
from harness.providers import ScriptedProvider, tool_call


def _app(tmp_path: Path, provider: ScriptedProvider, **overrides: object):  # type: ignore[no-untyped-def]
    values: dict[str, object] = {
        "workdir": tmp_path,
        "state_dir": tmp_path / ".state",
        "trace_mode": "off",
    }
    values.update(overrides)
    return build_application(Settings(**values), provider=provider)  # type: ignore[arg-type]


def test_unknown_tool_and_bad_arguments_do_not_end_the_run(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [tool_call("launch_rockets"), tool_call("read", pathh="x"), "recovered"]
    )
    result = _app(tmp_path, provider).run("go", session="s")
    assert (result.stop_reason, result.text, result.steps) == ("final", "recovered", 3)
    tool_messages = [m for m in provider.requests[-1].messages if m.role is Role.TOOL]
    assert [m.metadata["error_type"] for m in tool_messages] == [
        "unknown_tool",
        "invalid_arguments",
    ]


def test_provider_error_stops_with_reason(tmp_path: Path) -> None:
    provider = ScriptedProvider([ProviderError("HTTP 500 from upstream", status_code=500)])
    result = _app(tmp_path, provider).run("go", session="s")
    assert result.stop_reason == "provider_error"
    assert result.error is not None and "HTTP 500" in result.error


def test_max_steps(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("x")
    provider = ScriptedProvider([tool_call("read", path="a")] * 3)
    result = _app(tmp_path, provider).run("go", session="s", max_steps=3)
    assert (result.stop_reason, result.steps, result.tool_calls) == ("max_steps", 3, 3)


def test_memory_carries_answers_between_runs(tmp_path: Path) -> None:
    provider = ScriptedProvider(["the answer is 42", "ok"])
    app = _app(tmp_path, provider)
    app.run("what is it?", session="m")
    app.run("and again?", session="m")
    contents = [m.content for m in provider.requests[-1].messages]
    assert contents[1:] == ["what is it?", "the answer is 42", "and again?"]
    memory = tmp_path / ".state" / "sessions" / "m" / "memory.jsonl"
    assert len(memory.read_text().splitlines()) == 4


def test_usage_sums_over_steps(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("x")
    provider = ScriptedProvider([tool_call("read", path="a"), "one two three"])
    result = _app(tmp_path, provider).run("go", session="s")
    assert result.usage.output_tokens == 3
