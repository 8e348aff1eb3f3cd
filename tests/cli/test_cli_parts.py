"""The parts behind the CLI's shape: the progress line, plain error words, settings
wording and the loopback key rule (in-process), plus `harness run` against a real
simulator without a key (a subprocess)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

from harness import Settings, build_application
from harness.cli._errors import describe_error, plain_words
from harness.cli._progress import RunProgress
from harness.core.errors import ConfigurationError, ProviderError
from harness.providers import ScriptedProvider, tool_call
from harness.providers.credentials import (
    LOOPBACK_PLACEHOLDER_KEY,
    is_loopback_url,
    loopback_placeholder_key,
)
from harness.simulator import SimulatorServer
from harness.tools._protocol import ToolInput

# -- the progress line -------------------------------------------------------------


class _Spy:
    """A user tool that notes what the progress line said while it ran."""

    name = "spy"
    description = "Look at the progress line."
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    def __init__(self, progress: RunProgress) -> None:
        self.progress = progress
        self.seen: list[str] = []

    def run(self, tool_input: ToolInput) -> str:
        self.seen.append(self.progress.line())
        return "ok"


def test_progress_reports_step_tool_and_elapsed(tmp_path: Path) -> None:
    progress = RunProgress(enabled=True)
    spy = _Spy(progress)
    provider = progress.wrap_provider(ScriptedProvider([tool_call("spy"), "done"]))
    settings = Settings(workdir=tmp_path, state_dir=tmp_path / "state", approval_provider="off")
    application = build_application(settings, provider=provider, tools=[spy])
    progress.attach(application)
    result = application.run("look", session="p")
    application.close()
    assert result.text == "done"
    [line] = spy.seen
    assert line.startswith("step 1 · tool spy · ") and line.endswith("s")
    assert progress.line().startswith("step 2 · waiting for the model · ")


def test_disabled_progress_changes_nothing(tmp_path: Path) -> None:
    progress = RunProgress(enabled=False)
    inner = ScriptedProvider(["x"])
    assert progress.wrap_provider(inner) is inner
    settings = Settings(workdir=tmp_path, state_dir=tmp_path / "state")
    application = build_application(settings, provider=inner)
    before = application.registry.middleware
    progress.attach(application)
    assert application.registry.middleware == before
    application.close()


# -- plain words ----------------------------------------------------------------------


class _Doc(BaseModel):
    count: int
    names: tuple[str, ...]
    ratio: float = 0.5


@pytest.mark.deep
@given(
    count=st.one_of(st.text(max_size=5), st.none(), st.lists(st.integers(), max_size=2)),
    names=st.one_of(st.text(max_size=5), st.integers(), st.none()),
    ratio=st.one_of(st.text(min_size=1, max_size=5), st.none()),
    tail=st.sampled_from(["", "; nothing was executed", "; fix the file"]),
)
def test_plain_words_folds_any_pydantic_report_into_one_line(
    count: object, names: object, ratio: object, tail: str
) -> None:
    try:
        _Doc.model_validate({"count": count, "names": names, "ratio": ratio})
    except ValidationError as exc:
        folded = plain_words(f"report x.json is invalid: {exc}{tail}")
    else:  # pragma: no cover - some draws are valid (a numeric string)
        return
    assert "\n" not in folded
    assert "errors.pydantic.dev" not in folded and "[type=" not in folded
    assert "validation error" not in folded
    assert folded.startswith("report x.json is invalid: ") and folded.endswith(tail)


def test_plain_words_keeps_other_messages() -> None:
    assert plain_words("first\nsecond") == "first\nsecond"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (ConfigurationError("bad"), 2),
        (ProviderError("down"), 1),
        (FileNotFoundError(2, "No such file or directory", "/x"), 1),
        (RecursionError(), 2),
        (RuntimeError("bug"), 1),
    ],
    ids=["config", "provider", "os", "recursion", "bug"],
)
def test_describe_error_codes(error: BaseException, code: int) -> None:
    message, exit_code = describe_error(error)
    assert exit_code == code and message and "\n" not in message


# -- settings wording -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "expected"),
    [
        ("HARNESS_MAX_STEPS", "0", "HARNESS_MAX_STEPS='0' is too small; use at least 1"),
        ("HARNESS_MAX_STEPS", "5000", "HARNESS_MAX_STEPS='5000' is too large; use at most 1000"),
        ("HARNESS_TRACE_MODE", "v", "HARNESS_TRACE_MODE='v' is not one of the choices; use one"),
        ("HARNESS_PROVIDER", "gpt5", "HARNESS_PROVIDER='gpt5' is not one of the choices; use"),
        ("HARNESS_MAX_RETRIES", "x", "HARNESS_MAX_RETRIES='x' is not a whole number"),
    ],
    ids=["too-small", "too-large", "literal", "validator", "not-int"],
)
def test_settings_errors_in_plain_words(variable: str, value: str, expected: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_env({variable: value})
    message = str(caught.value)
    assert expected in message
    for pydantic_words in ("Value error", "Input should", "pydantic.dev", "[type="):
        assert pydantic_words not in message


# -- a simulator needs no key --------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "loopback"),
    [
        ("http://127.0.0.1:8765/v1", True),
        ("http://127.9.9.9", True),
        ("http://localhost:1/v1", True),
        ("http://[::1]:8000", True),
        ("https://api.openai.com/v1", False),
        ("http://127.0.0.1.example.com/v1", False),
        ("http://10.0.0.1/v1", False),
        ("not a url", False),
        ("", False),
        (None, False),
    ],
)
def test_is_loopback_url(url: str | None, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


def test_placeholder_only_without_a_real_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert loopback_placeholder_key("OPENAI_API_KEY", "http://127.0.0.1:1") == (
        LOOPBACK_PLACEHOLDER_KEY
    )
    assert loopback_placeholder_key("OPENAI_API_KEY", "https://api.openai.com/v1") is None
    monkeypatch.setenv("OPENAI_API_KEY", "sk-real")
    assert loopback_placeholder_key("OPENAI_API_KEY", "http://127.0.0.1:1") is None


@pytest.mark.deep
@pytest.mark.parametrize(
    ("provider", "suffix"), [("openai", "/v1"), ("anthropic", "")], ids=["openai", "anthropic"]
)
def test_run_against_the_simulator_needs_no_key(tmp_path: Path, provider: str, suffix: str) -> None:
    script = tmp_path / "sim.yaml"
    script.write_text("version: 1\nrules:\n  - reply: {text: hello from the simulator}\n")
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HARNESS_", "OPENAI_", "ANTHROPIC_"))
    }
    with SimulatorServer(script, port=0) as server:
        env.update(
            HARNESS_PROVIDER=provider,
            HARNESS_BASE_URL=server.url + suffix,
            HARNESS_WORKDIR=str(tmp_path),
            HARNESS_STATE_DIR=str(tmp_path / "state"),
        )
        done = subprocess.run(
            [sys.executable, "-m", "harness", "run", "hi"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "hello from the simulator"


def test_engine_stop_warning_is_dropped_only_where_the_cli_prints_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import logging

    from harness.cli._application import configure_logging, print_stops_once

    logger = logging.getLogger("harness")
    saved = list(logger.handlers)
    logger.handlers.clear()
    try:
        configure_logging("WARNING")
        engine = logging.getLogger("harness.engine")
        engine.warning("run in session %s stopped: %s", "s", "first")  # e.g. harness serve
        print_stops_once()
        engine.warning("run in session %s stopped: %s", "s", "second")  # harness run
        engine.warning("something else")
    finally:
        logger.handlers[:] = saved
    err = capsys.readouterr().err
    assert "first" in err and "second" not in err and "something else" in err


def test_run_evals_refuses_zero_epochs(tmp_path: Path) -> None:
    from harness.evals import run_evals

    (tmp_path / "evals").mkdir()
    with pytest.raises(ConfigurationError, match="epochs must be at least 1, got 0"):
        run_evals([], cwd=tmp_path, epochs=0)
