"""Setup mistakes under the ``provider`` fixture read as one line, as under ``llm_cassette``:
each run here is the pytest run a user made, and its report is the error and the test's place."""

from __future__ import annotations

import socket

import pytest

from harness.evals import load_report

EVAL = """
import pytest


@pytest.mark.eval("x")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_x(harness_app):
    assert harness_app.run("hi").text == "hello"
"""


def _errors_section(out: str) -> str:
    return out[out.index(" ERRORS ") : out.index(" short test summary info ")]


def test_recording_without_a_key_is_one_line(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    pytester.makepyfile(test_x=EVAL)
    result = pytester.runpytest("-p", "no:randomly", "--record-mode", "once")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "ConfigurationError: recording openai needs OPENAI_API_KEY" in out
    assert "in the test: test_x.py:" in out
    assert "Traceback" not in out and "site-packages" not in out and "def _api_key" not in out
    section = _errors_section(out)
    assert len(section.splitlines()) <= 6, section  # rule, title, error, blank, where, rule


@pytest.mark.deep
def test_a_corrupt_cassette_is_one_line_naming_the_file(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x=EVAL)
    cassette = pytester.path / "cassettes/openai/gpt-4.1-mini/test_x/test_x.yaml"
    cassette.parent.mkdir(parents=True)
    cassette.write_text("interactions: [\n  - {a: b\n")
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert str(cassette) in out
    assert "Traceback" not in out and "site-packages" not in out
    assert len(_errors_section(out).splitlines()) <= 6


@pytest.mark.parametrize(
    ("given", "fix"),
    [
        ("127.0.0.1:8765", "has no scheme; use http://127.0.0.1:8765"),
        ("ftp://127.0.0.1:8765", "has the scheme 'ftp'; use http:// or https://"),
    ],
    ids=["no-scheme", "ftp"],
)
def test_a_base_url_option_without_http_is_a_usage_error(
    pytester: pytest.Pytester, given: str, fix: str
) -> None:
    pytester.makepyfile(test_x=EVAL)
    result = pytester.runpytest(
        "-p", "no:randomly", "--record-mode", "once", "--harness-base-url", given
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert f"--harness-base-url={given} {fix}" in err
    assert "APIConnectionError" not in result.stdout.str() + err


ROWS = """
import openai
import pytest


@pytest.fixture
def broken():
    raise RuntimeError("the user's own fixture broke")


@pytest.mark.eval("early")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_early(broken, harness_app):
    pass


@pytest.mark.eval("foreign")
def test_foreign(llm_cassette):
    client = openai.OpenAI(base_url=llm_cassette.base_url("openai"), api_key="x", max_retries=0)
    messages = [{"role": "user", "content": "hi"}]
    client.chat.completions.create(model="gpt-4.1-mini", messages=messages)


@pytest.mark.eval("agent")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_agent(harness_app):
    assert harness_app.run("hi").text == "hello"
"""


def _rows(pytester: pytest.Pytester, *args: str) -> dict[str, tuple[str, str, str, str]]:
    report = pytester.path / "report.json"
    pytester.runpytest("-p", "no:randomly", "--harness-report", str(report), *args)
    rows = load_report(report).rows
    return {r.scenario: (r.provider, r.model, r.source.value, r.verdict.value) for r in rows}


def test_rows_that_never_reached_a_model_name_what_they_asked_for(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_rows=ROWS)
    rows = _rows(pytester)  # replay: no cassette exists
    assert rows == {
        "early": ("openai", "gpt-4.1-mini", "unknown", "error"),  # was none/none
        "foreign": ("unknown", "unknown", "unknown", "error"),  # was scripted/scripted/scripted
        "agent": ("openai", "gpt-4.1-mini", "unknown", "error"),
    }


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed): every call is refused."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.deep  # the agent's recording retries a refused connection twice
def test_a_recording_that_saved_nothing_is_an_error_row_not_none_none(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_rows=ROWS)
    dead = f"http://127.0.0.1:{_closed_port()}"
    rows = _rows(pytester, "--record-mode", "once", "--harness-base-url", dead)
    assert rows["foreign"] == ("unknown", "unknown", "unknown", "error")  # was none/none, fail
    assert rows["agent"] == ("openai", "gpt-4.1-mini", "unknown", "error")  # was fail
