"""The plugin's recording options end to end (pytester): --harness-ignore-query-params,
--record-errors and --harness-stream."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.simulator import SimulatorServer
from tests.testing.sim_scripts import read_a_txt_script

SIM_SCRIPT = read_a_txt_script()

TEST = """
import pytest


@pytest.mark.eval("reads")
@pytest.mark.parametrize("provider_name", ["openai", "anthropic"])
def test_reads(harness_app, workspace):
    workspace.write("a.txt", "alpha")
    result = harness_app.run("What does a.txt say?", session="rec")
    assert result.text == "a.txt says alpha"
"""

CASSETTES = Path("cassettes")


def _cassette(pytester: pytest.Pytester, provider: str, name: str) -> Path:
    model = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-6"}[provider]
    return pytester.path / CASSETTES / provider / model / "test_opts" / f"{name}.yaml"


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_opts=TEST)
    return pytester


def _record(project: pytest.Pytester, script: Any, *args: str) -> pytest.RunResult:
    with SimulatorServer(script) as server:
        return project.runpytest("--record-mode", "once", "--harness-base-url", server.url, *args)


def _add_query(path: Path, query: str) -> None:
    text = path.read_text("utf-8")
    path.write_text(text.replace("/v1/chat/completions\n", f"/v1/chat/completions?{query}\n"))


@pytest.mark.deep
def test_ignore_query_params_option_and_ini_key(project: pytest.Pytester) -> None:
    _record(project, SIM_SCRIPT, "-k", "openai").assert_outcomes(passed=1)
    path = _cassette(project, "openai", "test_reads")
    _add_query(path, "beta=true")  # as an older SDK's beta client recorded it
    assert "?beta=true" in path.read_text("utf-8")

    missed = project.runpytest("-k", "openai")
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines(["*query: ?beta=true -> (none)*"])

    project.runpytest(
        "-k", "openai", "--harness-ignore-query-params", "api-version, beta"
    ).assert_outcomes(passed=1)
    project.makeini(
        "[pytest]\nfilterwarnings = error\n"
        "addopts = -p no:cacheprovider -p no:hypothesispytest -p no:randomly -p no:benchmark\n"
        "harness_ignore_query_params =\n    beta\n    api-version\n"
    )
    project.runpytest("-k", "openai").assert_outcomes(passed=1)


ERROR_SCRIPT: dict[str, Any] = {"version": 1, "turns": [{"error": {"status": 400}}]}

ERROR_TEST = """
import pytest


@pytest.mark.parametrize("provider_name", ["openai"])
def test_fails_live(harness_app):
    result = harness_app.run("hi", session="err")
    assert result.stop_reason == "provider_error"
"""


@pytest.mark.parametrize(("args", "saved"), [((), False), (("--record-errors",), True)])
def test_a_failed_live_call_is_saved_only_with_record_errors(
    pytester: pytest.Pytester, args: tuple[str, ...], saved: bool
) -> None:
    pytester.makepyfile(test_opts=ERROR_TEST)
    _record(pytester, ERROR_SCRIPT, *args).assert_outcomes(passed=1)
    path = _cassette(pytester, "openai", "test_fails_live")
    assert path.is_file() is saved
    if saved:
        stored = yaml.safe_load(path.read_text("utf-8"))
        assert [i["response"]["status"]["code"] for i in stored["interactions"]] == [400]


@pytest.mark.deep
def test_stream_both_records_and_replays_a_streaming_run_per_provider(
    project: pytest.Pytester,
) -> None:
    recorded = _record(project, SIM_SCRIPT, "--harness-stream", "both", "-v")
    recorded.assert_outcomes(passed=4)
    recorded.stdout.fnmatch_lines(["*test_reads?stream-openai? PASSED*"])
    for provider in ("openai", "anthropic"):
        plain = yaml.safe_load(_cassette(project, provider, "test_reads").read_text("utf-8"))
        stream = yaml.safe_load(
            _cassette(project, provider, "test_reads-stream").read_text("utf-8")
        )
        assert all('"stream"' not in i["request"]["body"] for i in plain["interactions"])
        for interaction in stream["interactions"]:
            assert '"stream": true' in interaction["request"]["body"]
            assert interaction["response"]["headers"]["content-type"][0].startswith(
                "text/event-stream"
            )
            assert "data: " in interaction["response"]["body"]["string"]

    project.runpytest("--harness-stream", "both").assert_outcomes(passed=4)  # offline
    project.runpytest("--harness-stream", "on").assert_outcomes(passed=2)
    project.runpytest().assert_outcomes(passed=2)


@pytest.mark.deep
def test_a_streaming_miss_hint_names_the_stream_option(project: pytest.Pytester) -> None:
    _record(project, SIM_SCRIPT, "--harness-stream", "on", "-k", "openai").assert_outcomes(passed=1)
    project.makepyfile(test_opts=TEST.replace("What does a.txt say?", "What is in a.txt?"))
    result = project.runpytest("--harness-stream", "on", "-k", "openai")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*re-record: pytest 'test_opts.py::test_reads?stream-openai?' *--harness-stream=on*"]
    )


def test_a_bad_stream_ini_value_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nharness_stream = sometimes\n")
    result = project.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*harness_stream = 'sometimes'*use one of off, on, both*"])


def _recorded(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.yaml"))


@pytest.mark.deep
def test_a_cassette_dir_as_two_words_finds_the_same_cassettes_or_says_how_to_write_it(
    pytester: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The test file sits in a package folder, so a moved rootdir would show in its path.
    pytester.makepyfile(**{"tests/test_opts": TEST.replace(', "anthropic"', "")})
    outside = tmp_path_factory.mktemp("outside") / "cassettes"
    with SimulatorServer(SIM_SCRIPT) as server:
        pytester.runpytest(
            "--record-mode=once",
            f"--harness-base-url={server.url}",
            f"--harness-cassette-dir={outside}",
        ).assert_outcomes(passed=1)
    assert _recorded(outside) == ["openai/gpt-4.1-mini/tests/test_opts/test_reads.yaml"]

    # Inside the project both forms find the recording made with the other one.
    inside = pytester.path / "cass"
    inside.mkdir()
    (inside / "openai").symlink_to(outside / "openai", target_is_directory=True)
    pytester.runpytest("--harness-cassette-dir", "cass").assert_outcomes(passed=1)
    pytester.runpytest(f"--harness-cassette-dir={outside}").assert_outcomes(passed=1)

    # Outside it, two words would move the rootdir (and the cassette paths): refused.
    moved = pytester.runpytest("--harness-cassette-dir", str(outside))
    assert moved.ret == pytest.ExitCode.USAGE_ERROR
    error = moved.stderr.str()
    assert f"write --harness-cassette-dir={outside} (with '=')" in error
    assert f"instead of {pytester.path}" in error
    assert _recorded(outside) == ["openai/gpt-4.1-mini/tests/test_opts/test_reads.yaml"]
