"""A replay miss in pytest: one failure, diff first, no SDK frames (pytester)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.simulator import SimulatorServer
from tests.testing.sim_scripts import read_a_txt_script

SIM_SCRIPT = read_a_txt_script()

TEST = """
import pytest

PROMPT = {prompt!r}


@pytest.mark.parametrize("provider_name", ["openai"])
def test_drift(harness_app, workspace):
    workspace.write("a.txt", "alpha")
    result = harness_app.run(PROMPT, session="rec")
    assert result.text == "a.txt says alpha"


@pytest.mark.parametrize("provider_name", ["openai"])
def test_swallowed(harness_app, workspace):
    workspace.write("a.txt", "alpha")
    try:
        harness_app.run(PROMPT, session="rec")
    except Exception:
        pass
"""


def _write(pytester: pytest.Pytester, prompt: str) -> None:
    pytester.makepyfile(test_misses=TEST.format(prompt=prompt))


def _failure_section(text: str, name: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("_") and name in line)
    body = []
    for line in lines[start + 1 :]:
        if line.startswith(("_", "=")):
            break
        body.append(line)
    return [line for line in body if line.strip()]


@pytest.fixture
def recorded(pytester: pytest.Pytester, sim_server: Any) -> tuple[pytest.Pytester, str]:
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    _write(pytester, "What does a.txt say?")
    pytester.runpytest("--record-mode", "once", "--harness-base-url", server.url).assert_outcomes(
        passed=2
    )
    url = server.url
    server.stop()
    return pytester, url


@pytest.mark.deep
def test_a_miss_fails_the_test_once_with_the_diff_first(
    recorded: tuple[pytest.Pytester, str],
) -> None:
    pytester, url = recorded
    _write(pytester, "What does a.txt hold?")
    result = pytester.runpytest("-k", "test_drift")
    result.assert_outcomes(failed=1)  # and no teardown error
    out = result.stdout.str()
    section = _failure_section(out, "test_drift")
    assert section[0].startswith("request not found in cassette "), section[:3]
    assert "Nearest recorded request: interaction 0; recorded -> now:" in section[0]
    assert section[1] == (
        "  messages[1].content: 'What does a.txt say?' -> 'What does a.txt hold?'"
    ), section[:3]
    assert f"--harness-base-url={url}" in out  # where it was recorded: the simulator
    assert "in the test: " in out and "harness_app.run(PROMPT" in out
    for frame in (
        "site-packages/openai",
        "site-packages/httpx",
        "site-packages/vcr",
        "_base_client",
    ):
        assert frame not in out, frame
    assert out.count("recorded -> now:") == 1


@pytest.mark.deep
def test_a_swallowed_miss_still_fails_once_at_teardown(
    recorded: tuple[pytest.Pytester, str],
) -> None:
    pytester, _ = recorded
    _write(pytester, "What does a.txt hold?")
    result = pytester.runpytest("-k", "test_swallowed")
    # The call itself passed (pytest counts it); the miss is the one error, at teardown.
    result.assert_outcomes(passed=1, errors=1)
    out = result.stdout.str()
    assert out.count("recorded -> now:") == 1
    section = _failure_section(out, "test_swallowed")
    assert section[0].startswith("request not found in cassette "), section[:3]
    assert "site-packages/vcr" not in out


def test_a_matching_replay_still_passes(recorded: tuple[pytest.Pytester, str]) -> None:
    pytester, _ = recorded
    pytester.runpytest().assert_outcomes(passed=2)


DIRECT_TEST = """
import openai
from harness.recording import use_cassette


def test_direct(tmp_path):
    client = openai.OpenAI(api_key="sk-test", max_retries=0)
    with use_cassette({path!r}):
        client.chat.completions.create(
            model="m", messages=[{{"role": "user", "content": "changed"}}]
        )
"""


@pytest.mark.deep
def test_a_miss_through_use_cassette_directly_is_reported_diff_first(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    import openai

    from harness.recording import use_cassette

    server: SimulatorServer = sim_server({"version": 1, "turns": ["hi"]})
    path = pytester.path / "direct.yaml"
    client = openai.OpenAI(api_key="sk-test", base_url=f"{server.url}/v1", max_retries=0)
    with use_cassette(path, record_mode="once"):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    client.close()
    pytester.makepyfile(test_direct=DIRECT_TEST.format(path=str(path)))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    section = _failure_section(out, "test_direct")
    assert section[0].startswith("request not found in cassette "), section[:3]
    assert section[1] == "  messages[0].content: 'hi' -> 'changed'", section[:3]
    assert "site-packages/openai" not in out and out.count("recorded -> now:") == 1
