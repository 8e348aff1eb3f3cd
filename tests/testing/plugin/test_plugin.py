"""The pytest plugin end to end: pytest runs on generated projects (pytester).

The plugin is active through its ``pytest11`` entry point, so the generated test
files use its fixtures, markers and options like any user project would.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.core.wires import runtime_wires
from harness.simulator import SimulatorServer
from tests.testing.sim_scripts import read_a_txt_script

HAS_PYTEST_RECORDING = importlib.util.find_spec("pytest_recording") is not None
HARNESS_OPTIONS = (
    "--record-mode",
    "--harness-provider",
    "--harness-model",
    "--harness-base-url",
    "--harness-cassette-dir",
    "--update-shapes",
    "--harness-report",
    "--harness-epochs",
)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Run pytest in process (configured by the ``pytester`` of tests/conftest.py)."""
    return pytester.runpytest(*args)


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A generated project whose pytest turns warnings into errors, like this repo's."""
    return pytester


# --- fixtures -------------------------------------------------------------------------


def test_workspace_helpers(project: pytest.Pytester) -> None:
    project.mkdir("fixtures")
    project.path.joinpath("fixtures/demo/sub").mkdir(parents=True)
    project.path.joinpath("fixtures/demo/a.txt").write_text("alpha")
    project.path.joinpath("fixtures/demo/sub/b.txt").write_text("beta")
    project.path.joinpath("fixtures/single.txt").write_text("one")
    project.makepyfile(
        """
        import re

        import pytest

        from harness.core import ConfigurationError


        def test_write_read_exists_files(workspace, tmp_path_factory):
            assert workspace.root.name == "workspace" and workspace.root.is_dir()
            assert tmp_path_factory.getbasetemp() in workspace.root.parents
            assert workspace.write("deep/er/x.txt", "hi") == workspace.root / "deep/er/x.txt"
            assert workspace.read("deep/er/x.txt") == "hi"
            assert workspace.exists("deep/er/x.txt") and not workspace.exists("nope.txt")
            assert workspace.files() == ["deep/er/x.txt"]


        def test_copy_fixture_folder_and_file(workspace):
            workspace.copy_fixture("demo")
            workspace.copy_fixture("single.txt")
            assert workspace.files() == ["a.txt", "single.txt", "sub/b.txt"]
            assert workspace.read("sub/b.txt") == "beta"
            with pytest.raises(ConfigurationError, match="fixture 'missing' not found in"):
                workspace.copy_fixture("missing")


        def test_sentinels(workspace):
            marker = workspace.sentinel("read me")
            assert re.fullmatch(r"SENTINEL-README-[0-9A-F]{6}", marker)
            assert workspace.sentinel("read me") == marker
            other = workspace.write_sentinel("notes/n.txt", "notes", text="see: ")
            assert other != marker
            assert workspace.read("notes/n.txt") == f"see: {other}\\n"
            assert workspace.sentinels == {"read me": marker, "notes": other}
        """
    )
    run(project).assert_outcomes(passed=3)


def test_scripted_provider_is_strict_about_unused_turns(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        def test_uses_every_turn(scripted_provider, harness_app):
            scripted_provider.add("first answer")
            assert harness_app.run("hi").text == "first answer"


        def test_leaves_a_turn(scripted_provider):
            scripted_provider.add("never asked for")


        def test_provider_defaults_to_it(provider, provider_name, scripted_provider):
            assert provider_name == "scripted"
            assert provider is scripted_provider
        """
    )
    result = run(project)
    result.assert_outcomes(passed=3, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR at teardown of test_leaves_a_turn*",
            "*ScriptedProvider has 1 unused turn(s) of 1*'never asked for'*",
        ]
    )


APP_CONFTEST = """
import pytest


@pytest.fixture
def harness_settings(harness_settings):
    return {**harness_settings, "enabled_tools": ("read", "write"), "max_steps": 3}
"""

APP_TESTS = """
import pytest

from harness.core import TraceAssertionError
from harness.providers import ScriptedProvider, tool_call
from harness.testing import assert_trace_shape


def test_harness_app_uses_the_overridden_settings(harness_app, workspace):
    assert harness_app.enabled_tools == ("read", "write")
    assert harness_app.settings.max_steps == 3
    assert harness_app.workdir == workspace.root.resolve()
    assert harness_app.settings.state_dir == workspace.root.parent / "state"


def test_make_harness_app_takes_overrides(make_harness_app):
    app = make_harness_app(enabled_tools=("read", "edit"))
    assert app.enabled_tools == ("read", "edit")
    assert app.settings.max_steps == 3
    own = make_harness_app(provider=ScriptedProvider(["from my provider"]))
    assert own.run("hi").text == "from my provider"


def test_trace_and_run_log_follow_the_last_run(
    harness_app, scripted_provider, workspace, trace, harness_run_log
):
    with pytest.raises(TraceAssertionError, match="no harness run happened"):
        trace.root
    workspace.write("a.txt", "alpha")
    scripted_provider.add(tool_call("read", path="a.txt"), "it says alpha", "bye")
    first = harness_app.run("read a.txt", session="s1")
    assert first.text == "it says alpha"
    assert trace.root.name == "agent.run"
    assert trace.one(kind="tool.call", name="read").status == "ok"
    assert_trace_shape(
        trace,
        '''
        agent.run
          agent.step
            llm.call
            tool.call read
          agent.step
            llm.call
        ''',
    )
    second = harness_app.run("say bye", session="s1")
    assert harness_run_log.results == [first, second]
    assert trace.find_all(kind="tool.call") == []
    assert harness_run_log.summary()["tool_calls"] == 1
"""


def test_settings_app_factory_trace_and_run_log(project: pytest.Pytester) -> None:
    project.makeconftest(APP_CONFTEST)
    project.makepyfile(APP_TESTS)
    run(project).assert_outcomes(passed=3)


def test_sim_server_serves_during_the_test_and_stops_after(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import http.client
        import json
        from urllib.parse import urlsplit

        import pytest

        STARTED = []


        def post(url):
            parts = urlsplit(url)
            connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=5)
            body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
            try:
                connection.request("POST", "/v1/chat/completions", body)
                return json.loads(connection.getresponse().read())
            finally:
                connection.close()


        def test_serves(sim_server):
            server = sim_server({"turns": ["hello from the simulator"]})
            STARTED.append(server.url)
            answer = post(server.url)
            assert answer["choices"][0]["message"]["content"] == "hello from the simulator"


        def test_stopped_after_the_test():
            with pytest.raises(ConnectionRefusedError):
                post(STARTED[0])
        """
    )
    run(project).assert_outcomes(passed=2)


def test_a_failed_test_shows_why_its_run_stopped(project: pytest.Pytester) -> None:
    # The assertion only says provider_error; the report adds the simulator's reason.
    project.makepyfile(
        """
        from harness.providers import OpenAIProvider


        def test_refused(sim_server, make_harness_app):
            server = sim_server({"rules": [{"when": {"last_user_contains": "x"}, "reply": "y"}]})
            provider = OpenAIProvider("m", base_url=server.url + "/v1", max_retries=0)
            result = make_harness_app(provider=provider).run("hello")
            assert result.stop_reason == "final"


        def test_passes_quietly(make_harness_app, scripted_provider):
            scripted_provider.add("fine")
            assert make_harness_app().run("hi").stop_reason == "final"
        """
    )
    done = run(project, "-p", "no:logging")
    done.assert_outcomes(failed=1, passed=1)
    out = done.stdout.str()
    assert "harness runs that stopped with an error" in out
    assert "run 1 (session default) stopped with provider_error: The harness simulator" in out
    assert "no scripted turn left for this request" in out
    assert out.count("harness runs that stopped") == 1


# --- golden trace shapes ----------------------------------------------------------------

GOLDEN_TEST = """
import os

from harness.providers import tool_call


def test_golden(make_harness_app, scripted_provider, workspace, trace, assert_trace_golden):
    app = make_harness_app(enabled_tools=("read", "write"))
    tool = os.environ["GOLDEN_TOOL"]
    arguments = {"path": "a.txt"} if tool == "read" else {"path": "b.txt", "content": "x"}
    workspace.write("a.txt", "alpha")
    scripted_provider.add(tool_call(tool, **arguments), "done")
    app.run("go")
    assert_trace_golden(trace)
"""


@pytest.mark.deep
def test_assert_trace_golden_create_update_compare(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_shape=GOLDEN_TEST)
    golden = project.path / "evals" / "shapes" / "scripted" / "scripted" / "test_golden.txt"
    monkeypatch.setenv("GOLDEN_TOOL", "read")
    # The path without syrupy (tests/testing/test_golden_snapshots.py covers syrupy's).
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:syrupy")

    missing = run(project)
    missing.assert_outcomes(failed=1)
    missing.stdout.fnmatch_lines(["*golden trace shape*test_golden.txt does not exist*"])
    missing.stdout.fnmatch_lines(["*run pytest with --update-shapes*"])
    assert not golden.exists()

    run(project, "--update-shapes").assert_outcomes(passed=1)
    assert golden.read_text() == (
        "agent.run\n  agent.step\n    llm.call\n    tool.call read\n  agent.step\n    llm.call\n"
    )
    run(project).assert_outcomes(passed=1)

    monkeypatch.setenv("GOLDEN_TOOL", "write")
    changed = run(project)
    changed.assert_outcomes(failed=1)
    changed.stdout.fnmatch_lines(["*trace shape differs from golden file*test_golden.txt*"])
    assert (
        "first difference: agent.run > agent.step[1] > tool.call write: "
        "expected 'tool.call read', got 'tool.call write'"
    ) in changed.stdout.str()


# --- recorded providers and cassettes -------------------------------------------------

SIM_SCRIPT = read_a_txt_script()

RECORDED_TEST = """
import pytest


@pytest.mark.parametrize("flavour", ["plain"])
@pytest.mark.parametrize("provider_name", ["openai"])
def test_rec(harness_app, workspace, flavour):
    workspace.write("a.txt", "alpha")
    result = harness_app.run("What does a.txt say?", session="rec")
    assert result.text == "a.txt says alpha"
"""


@pytest.mark.deep
def test_provider_records_against_the_simulator_then_replays_offline(
    project: pytest.Pytester, sim_server: Any
) -> None:
    project.makepyfile(**{"tests/sub/test_rec": RECORDED_TEST})
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    default = project.path / "cassettes/openai/gpt-4.1-mini/tests/sub/test_rec/test_rec-plain.yaml"
    elsewhere = project.path / "elsewhere"
    custom = elsewhere / "openai/gpt-4o-mini/tests/sub/test_rec/test_rec-plain.yaml"
    other_model = ("--harness-model", "gpt-4o-mini", "--harness-cassette-dir", str(elsewhere))

    record = ("--record-mode", "once", "--harness-base-url", server.url)
    run(project, *record).assert_outcomes(passed=1)
    run(project, *record, *other_model).assert_outcomes(passed=1)
    assert default.is_file() and custom.is_file()
    assert server.hits == 4  # two runs of two model calls each
    server.stop()

    run(project).assert_outcomes(passed=1)
    run(project, *other_model).assert_outcomes(passed=1)
    assert server.hits == 4

    unrecorded = run(project, "--harness-model", "gpt-unrecorded")
    unrecorded.assert_outcomes(errors=1)
    unrecorded.stdout.fnmatch_lines(
        ["*CassetteError: cassette *gpt-unrecorded*test_rec-plain.yaml does not exist*"]
    )
    assert "--record-mode=once --harness-provider=openai" in unrecorded.stdout.str()


def test_harness_provider_deselects_the_other_providers(project: pytest.Pytester) -> None:
    project.makepyfile(
        """
        import pytest


        @pytest.mark.parametrize("provider_name", ["openai", "anthropic"])
        def test_per_provider(provider_name):
            assert provider_name == "anthropic"


        def test_unparametrised(provider_name):
            assert provider_name == "anthropic"
        """
    )
    result = run(project, "-v", "--harness-provider", "anthropic")
    result.assert_outcomes(passed=2, deselected=1)
    result.stdout.fnmatch_lines(["*test_per_provider?anthropic? PASSED*"])


# --- markers -----------------------------------------------------------------------------


def test_markers_are_registered(project: pytest.Pytester) -> None:
    result = run(project, "--markers")
    result.stdout.fnmatch_lines(
        ["@pytest.mark.eval(name=None): a scenario eval*", "@pytest.mark.live: *"]
    )


@pytest.mark.parametrize(
    ("key", "outcome"),
    [
        pytest.param(None, {"passed": 1, "skipped": 1}, id="no-key-skips"),
        pytest.param("OPENAI_API_KEY", {"passed": 2}, id="openai-key-runs"),
        pytest.param("ANTHROPIC_API_KEY", {"passed": 2}, id="anthropic-key-runs"),
        pytest.param("GEMINI_API_KEY", {"passed": 2}, id="gemini-key-runs"),
    ],
)
def test_live_tests_need_a_key_and_markers_are_strict_clean(
    project: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    key: str | None,
    outcome: dict[str, int],
) -> None:
    for wire in runtime_wires():  # every runtime wire's key counts (the registry's)
        for name in wire.key_env:
            monkeypatch.delenv(name, raising=False)
    if key is not None:
        monkeypatch.setenv(key, "sk-test-not-a-real-key")
    project.makepyfile(
        """
        import pytest


        @pytest.mark.live
        def test_talks_to_the_api():
            pass


        @pytest.mark.eval("scenario")
        def test_scenario():
            pass
        """
    )
    result = run(project, "--strict-markers", "-rs")
    result.assert_outcomes(**outcome)
    if key is None:
        result.stdout.fnmatch_lines(
            ["*live test: set OPENAI_API_KEY or ANTHROPIC_API_KEY or GEMINI_API_KEY*"]
        )


# --- options -----------------------------------------------------------------------------


@pytest.fixture(params=["harness", "pytest-recording"])
def record_mode_owner(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Who registers ``--record-mode``: harness alone, or pytest-recording when installed."""
    if request.param == "pytest-recording" and not HAS_PYTEST_RECORDING:
        pytest.skip("pytest-recording is not installed")
    if request.param == "harness":
        # As if pytest-recording were not installed: not found (here), not loaded (-p no:).
        find_spec = importlib.util.find_spec

        def hide(name: str, package: str | None = None) -> Any:
            return None if name == "pytest_recording" else find_spec(name, package)

        monkeypatch.setattr(importlib.util, "find_spec", hide)
    return str(request.param)


def _owner_args(owner: str) -> tuple[str, ...]:
    return ("-p", "no:recording") if owner == "harness" else ()


def test_help_lists_every_option(project: pytest.Pytester, record_mode_owner: str) -> None:
    result = run(project, "--help", *_owner_args(record_mode_owner))
    text = result.stdout.str()
    assert all(option in text for option in HARNESS_OPTIONS)
    result.stdout.fnmatch_lines(
        ["harness: agent runs, cassettes and trace shapes:", "*--harness-provider=*"]
    )
    owner_help = {
        "harness": "Cassette record mode: none (replay only, the default)",
        "pytest-recording": "VCR.py record mode.",
    }
    result.stdout.fnmatch_lines([f"*{owner_help[record_mode_owner]}*"])


@pytest.mark.deep
def test_record_mode_default_and_choices(project: pytest.Pytester, record_mode_owner: str) -> None:
    project.makepyfile(
        """
        import os


        def test_mode(harness_options):
            assert harness_options.record_mode == os.environ["EXPECTED_MODE"]
        """
    )
    owner = _owner_args(record_mode_owner)
    with pytest.MonkeyPatch.context() as env:
        env.setenv("EXPECTED_MODE", "none")
        run(project, *owner).assert_outcomes(passed=1)
        for mode in ("once", "new_episodes", "all", "rewrite", "none"):
            env.setenv("EXPECTED_MODE", mode)
            run(project, *owner, f"--record-mode={mode}").assert_outcomes(passed=1)
    bad = run(project, *owner, "--record-mode=sometimes")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--record-mode: invalid choice: 'sometimes'*"])


@pytest.mark.skipif(not HAS_PYTEST_RECORDING, reason="needs pytest-recording installed")
def test_record_mode_exists_when_pytest_recording_is_disabled(project: pytest.Pytester) -> None:
    project.makepyfile("def test_ok(harness_options):\n    assert harness_options\n")
    result = run(project, "-p", "no:recording", "--record-mode=once")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()


@pytest.mark.deep
@pytest.mark.skipif(not HAS_PYTEST_RECORDING, reason="pytest-recording is not installed")
def test_works_alongside_pytest_recording(project: pytest.Pytester, sim_server: Any) -> None:
    project.makepyfile(**{"tests/sub/test_rec": RECORDED_TEST})
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    # pytest-recording owns --record-mode here; harness must still see "once".
    run(project, "--record-mode=once", "--harness-base-url", server.url).assert_outcomes(passed=1)
    server.stop()
    replay = run(project, "--record-mode=none", "-v")
    replay.assert_outcomes(passed=1)
    # both plugins loaded; their order follows the install order, which varies
    (plugins,) = [line for line in replay.outlines if line.startswith("plugins:")]
    assert "recording-" in plugins and "harness-toolkit-" in plugins, plugins
    markers = run(project, "--markers").stdout.str()
    assert "@pytest.mark.vcr" in markers and "@pytest.mark.eval" in markers


# --- imports -----------------------------------------------------------------------------


@pytest.mark.deep
def test_importing_the_plugin_imports_no_sdk() -> None:
    heavy = ("openai", "anthropic", "vcr", "lark_oapi")
    code = (
        "import json, sys\n"
        "import harness.testing.plugin\n"
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(done.stdout) == []


def test_approvals_in_tests_keep_their_key_and_ledger_out_of_the_users_home(
    project: pytest.Pytester, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home_state = tmp_path / "users-state"
    home_state.mkdir()
    monkeypatch.setenv("XDG_STATE_HOME", str(home_state))
    project.makepyfile(
        test_approve="""
        import os
        from harness.providers import ScriptedProvider, tool_call

        def test_approve_twice(make_harness_app):
            for n in range(2):
                turns = [tool_call("write", path=f".env.{n}", content="X=1\\n"), "done"]
                app = make_harness_app(provider=ScriptedProvider(turns), enabled_tools=("write",))
                paused = app.run("write it", session=f"s{n}")
                assert paused.stop_reason == "approval_required"
                assert app.resume_approval(paused.approval_id, "approve", session=f"s{n}").text
            assert "xdg-state" in os.environ["XDG_STATE_HOME"]
        """
    )
    project.runpytest("-p", "no:randomly").assert_outcomes(passed=1)
    assert list(home_state.rglob("*")) == []
