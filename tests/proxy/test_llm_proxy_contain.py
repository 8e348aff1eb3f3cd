"""``llm_proxy.run`` contains its children (issue 47 item 4): pytester through the real
plugin, real bwrap, real subprocesses.

A child of an ``eval`` test (of any test with ``--harness-block-live``) reaches
only the proxy: a connection past it fails the test naming the host; the same
child talking to ``llm_proxy.base_url`` replays. Elsewhere it runs as is, and
where containment is off the run says so in one line. A machine without a
working bwrap skips the contained cases with the refusal's reason.
"""

from __future__ import annotations

import os
import socket
import textwrap
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import ConfigurationError
from harness.simulator import SimulatorServer
from harness.testing.cassettes.llm_proxy import CONTAIN_SETTING, containment_setting
from harness.tools.sandbox import check_bwrap, find_bwrap
from tests.proxy.child_agents import CODE, PYTHON_AGENT, SIM_SCRIPT

# Each deep test runs pytest in a process, a proxy process and contained children.
deep = pytest.mark.deep

_EMPTY_CASSETTE = "version: 1\ninteractions: []\n"

# A child that dials a port on the host's loopback other than the proxy's and
# says whether it got through (contained, the namespace's loopback has nothing).
_DIAL = """
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10).close()
    print("reached")
except OSError as exc:
    print("refused", exc)
"""

# Children that go to the real API, not the proxy: one exits with an error (the
# inner test runs it with check=True), one swallows its own error.
_URLLIB_CHILD = """
import urllib.request
try:
    urllib.request.urlopen("https://api.openai.com/v1/models", timeout=10)
except Exception as exc:
    raise SystemExit(f"failed: {exc}")
"""
_SDK_CHILD = """
import openai
client = openai.OpenAI(base_url="https://api.openai.com/v1", api_key="sk-test", max_retries=0)
try:
    client.models.list()
except Exception as exc:
    print("swallowed:", type(exc).__name__)
"""


@pytest.fixture
def contained() -> None:
    """Skip where this machine cannot contain (the refusal's own reason)."""
    check = check_bwrap(find_bwrap())
    if not check.works:
        pytest.skip(f"containment is off: {check.problem}")


@pytest.fixture
def host_port() -> Iterator[int]:
    """A listening port on the host's loopback that is not the proxy's."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


def _inner(pytester: pytest.Pytester, source: str, *tests: str) -> None:
    pytester.makepyfile(test_children=textwrap.dedent(source))
    folder = pytester.path / "cassettes" / "test_children"
    folder.mkdir(parents=True, exist_ok=True)
    for name in tests:
        (folder / f"{name}.yaml").write_text(_EMPTY_CASSETTE)


def _dial_tests(port: int) -> str:
    return f"""
        import sys
        import pytest

        DIAL = {_DIAL!r}

        def _dial(llm_proxy):
            done = llm_proxy.run(
                [sys.executable, "-c", DIAL, "{port}"], capture_output=True, text=True, timeout=60
            )
            assert done.returncode == 0, done.stderr
            return done.stdout

        def test_plain(llm_proxy):
            print("plain:", _dial(llm_proxy).split()[0], llm_proxy.containment)

        @pytest.mark.eval("dial")
        def test_eval(llm_proxy):
            print("eval:", _dial(llm_proxy).split()[0], llm_proxy.containment)
        """


def test_an_eval_child_reaches_only_the_proxy_and_a_plain_test_child_runs_as_is(
    pytester: pytest.Pytester, contained: None, host_port: int
) -> None:
    _inner(pytester, _dial_tests(host_port), "test_plain", "test_eval")
    result = pytester.runpytest("--assert=plain", "-p", "no:randomly", "-s")
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert "plain: reached None" in out
    assert "eval: refused an eval test" in out
    assert "containment is off" not in out


@deep
def test_block_live_contains_a_plain_test_child_too(
    pytester: pytest.Pytester, contained: None, host_port: int
) -> None:
    _inner(pytester, _dial_tests(host_port), "test_plain", "test_eval")
    result = pytester.runpytest_subprocess(
        "--assert=plain", "-p", "no:randomly", "-s", "--harness-block-live"
    )
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert "plain: refused --harness-block-live" in out
    assert "eval: refused --harness-block-live" in out


@deep
@pytest.mark.parametrize("child", [_URLLIB_CHILD, _SDK_CHILD], ids=["urllib", "openai-sdk"])
def test_an_eval_child_calling_the_real_api_fails_the_test_naming_the_host(
    pytester: pytest.Pytester, contained: None, child: str
) -> None:
    _inner(
        pytester,
        f"""
        import sys
        import pytest

        @pytest.mark.eval("past-the-proxy")
        def test_direct(llm_proxy):
            done = llm_proxy.run(
                [sys.executable, "-c", {child!r}],
                capture_output=True, text=True, timeout=60, check=True,
            )
            raise AssertionError("not reached: " + done.stdout)
        """,
        "test_direct",
    )
    result = pytester.runpytest_subprocess("--assert=plain", "-p", "no:randomly")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "connection to api.openai.com:443 blocked (an eval test)" in out
    assert "llm_proxy.base_url(wire)" in out
    assert "not reached" not in out and "CalledProcessError" not in out


@deep
def test_a_popen_child_calling_the_real_api_fails_the_test_naming_the_host(
    pytester: pytest.Pytester, contained: None, host_port: int
) -> None:
    _inner(
        pytester,
        f"""
        import subprocess, sys
        import pytest

        @pytest.mark.eval("popen-past-the-proxy")
        def test_popen(llm_proxy):
            dial = [sys.executable, "-c", {_DIAL!r}, "{host_port}"]
            with llm_proxy.popen(dial, stdout=subprocess.PIPE, text=True) as process:
                print("dial:", process.communicate(timeout=60)[0].split()[0])
            direct = [sys.executable, "-c", {_SDK_CHILD!r}]
            with llm_proxy.popen(direct, stdout=subprocess.PIPE, text=True) as process:
                out = process.communicate(timeout=60)[0]
                raise AssertionError("the block's own error: " + out)
        """,
        "test_popen",
    )
    result = pytester.runpytest_subprocess("--assert=plain", "-p", "no:randomly", "-s")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "dial: refused" in out
    assert "connection to api.openai.com:443 blocked (an eval test)" in out
    assert "the block's own error" not in out.split("short test summary")[-1]


@deep
def test_a_child_on_the_proxy_records_and_replays_inside_containment(
    pytester: pytest.Pytester, contained: None
) -> None:
    pytester.makepyfile(
        test_children=f"""
        import pathlib, sys
        import pytest

        HERE = pathlib.Path(__file__).parent

        @pytest.mark.eval("contained-python")
        def test_agent(llm_proxy, tmp_path):
            (tmp_path / "notes.txt").write_text("The code is {CODE}.")
            done = llm_proxy.run(
                [sys.executable, str(HERE / "agent.py"), str(tmp_path)],
                cwd=tmp_path, capture_output=True, text=True, timeout=60,
            )
            assert done.returncode == 0, done.stderr
            assert "{CODE}" in done.stdout
            assert llm_proxy.containment == "an eval test" and llm_proxy.refusal is None
            assert [c.name for c in llm_proxy.tool_calls()] == ["read_file"]
        """
    )
    (pytester.path / "agent.py").write_text(PYTHON_AGENT)
    args = ("--assert=plain", "-p", "no:randomly")
    with SimulatorServer(SIM_SCRIPT) as sim:
        recorded = pytester.runpytest_subprocess(
            *args, "--record-mode", "once", "--harness-base-url", sim.url
        )
    recorded.assert_outcomes(passed=1)
    replayed = pytester.runpytest_subprocess(*args)  # the simulator is gone
    replayed.assert_outcomes(passed=1)


@deep
def test_containment_off_runs_the_child_as_is_and_says_so_once(
    pytester: pytest.Pytester, host_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARNESS_PROXY_CONTAIN", "off")
    source = _dial_tests(host_port) + textwrap.indent(
        textwrap.dedent(
            """
            @pytest.mark.eval("dial-again")
            def test_eval_again(llm_proxy):
                print("again:", _dial(llm_proxy).split()[0], llm_proxy.refusal)
            """
        ),
        "        ",
    )
    _inner(pytester, source, "test_plain", "test_eval", "test_eval_again")
    result = pytester.runpytest_subprocess("--assert=plain", "-p", "no:randomly", "-s")
    result.assert_outcomes(passed=3)
    out = result.stdout.str()
    assert "eval: reached an eval test" in out
    assert "again: reached containment is off: HARNESS_PROXY_CONTAIN=off" in out
    line = "harness: containment is off: HARNESS_PROXY_CONTAIN=off; llm_proxy ran its children"
    assert out.count(line) == 1
    # Under xdist the children ran on workers; the controller says it, once.
    spread = pytester.runpytest_subprocess("--assert=plain", "-p", "no:randomly", "-n", "2")
    spread.assert_outcomes(passed=3)
    assert spread.stdout.str().count(line) == 1


_OFF_WORDS = ["off", "OFF", " off ", "0", "false", "no"]
_ON_WORDS = ["", "on", "On", "auto", "1", "true", "yes"]


def _setting(value: str | None) -> str | None:
    """``containment_setting()`` with the variable set to ``value`` (None: unset)."""
    kept = os.environ.pop(CONTAIN_SETTING, None)
    try:
        if value is not None:
            os.environ[CONTAIN_SETTING] = value
        return containment_setting()
    finally:
        os.environ.pop(CONTAIN_SETTING, None)
        if kept is not None:
            os.environ[CONTAIN_SETTING] = kept


@given(st.sampled_from([None, *_ON_WORDS]))
def test_the_setting_on_or_unset_contains(value: str | None) -> None:
    assert _setting(value) is None


@given(st.sampled_from(_OFF_WORDS))
def test_the_setting_off_gives_one_line_naming_it(value: str) -> None:
    reason = _setting(value)
    assert reason == f"containment is off: HARNESS_PROXY_CONTAIN={value.strip()}"


_WORDS = {*_ON_WORDS, *(w.strip().lower() for w in _OFF_WORDS)}
_VALUES = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=12)


@given(_VALUES.filter(lambda v: v.strip().lower() not in _WORDS))
def test_any_other_setting_is_a_one_line_error_naming_the_values(value: str) -> None:
    with pytest.raises(
        ConfigurationError, match=r"HARNESS_PROXY_CONTAIN=.*: use on .* or off"
    ) as e:
        _setting(value)
    assert "\n" not in str(e.value)
