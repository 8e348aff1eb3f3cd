"""A path too long for the OS is one clean tool error, never a logged traceback."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.providers import ScriptedProvider, tool_call

LONG_NAME = "a" * 6000
LONG_NESTED = "d/" * 2100 + "f.txt"  # each part short, the whole over PATH_MAX


@pytest.mark.parametrize(
    "call",
    [
        tool_call("write", path=LONG_NAME, content="x"),
        tool_call("write", path=LONG_NAME, content="x", mode="overwrite"),
        tool_call("read", path=LONG_NAME),
        tool_call("edit", path=LONG_NAME, old_text="x", new_text="y"),
        tool_call("read", path=LONG_NESTED),
    ],
    ids=["write", "overwrite", "read", "edit", "nested-read"],
)
def test_a_too_long_path_is_an_error_observation(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, call: object
) -> None:
    (tmp_path / "work").mkdir()
    provider = ScriptedProvider([call, "done"])
    settings = Settings(
        workdir=tmp_path / "work",
        state_dir=tmp_path / "state",
        enabled_tools=("read", "write", "edit"),
    )
    caplog.set_level(logging.DEBUG)
    result = build_application(settings, provider=provider).run("go", session="s")
    assert result.stop_reason == "final" and result.text == "done"
    observation = provider.requests[-1].messages[-1].content
    assert observation.startswith("Error:")
    assert "too long" in observation or "No such file" in observation or "not exist" in observation
    assert "Traceback" not in observation
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"
