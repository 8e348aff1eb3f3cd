"""The case runner's stand-ins for pytest-recording's autouse ``vcr`` and
``block_network``: a case row gets the stand-ins (none of pytest-recording's
fixtures), and a test beside the runner that pytest-recording has work for
(marked ``vcr`` or ``block_network``, or run with ``--block-network``) still gets
pytest-recording's own behaviour."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CASES = """version: 1
cases:
  - name: plain
    workspace: cases/one
    prompt: Read note.txt.
    checks:
      answer_contains: [SENTINEL-ROW-1]
"""

# Beside the re-exported runner, as a user's module may hold them.
NEIGHBOURS = """
import socket

import pytest


def test_unmarked_gets_no_cassette(vcr):
    assert vcr is None


@pytest.mark.vcr
def test_marked_gets_pytest_recordings_cassette(vcr):
    assert type(vcr).__module__ == "vcr.cassette"


def _connect():
    with socket.socket() as sock:
        sock.settimeout(1)
        sock.connect(("127.0.0.1", 9))


@pytest.mark.block_network
def test_marked_is_blocked():
    with pytest.raises(RuntimeError, match="Network is disabled"):
        _connect()


def test_unmarked_is_blocked_only_by_the_option(request):
    blocked = request.config.getoption("block_network")
    try:
        _connect()
    except RuntimeError as exc:
        assert blocked and "Network is disabled" in str(exc)
    except OSError:
        assert not blocked  # refused by the closed port: the call went out
    else:
        raise AssertionError("something listens on 127.0.0.1:9")
"""


def _project(pytester: pytest.Pytester) -> None:
    evals = pytester.path / "evals"
    (evals / "cases").mkdir(parents=True)
    (evals / "cases" / "one.yaml").write_text(CASES, "utf-8")
    module = (ROOT / "evals" / "test_cases.py").read_text("utf-8")
    # Another module name than the suite's own evals/test_cases.py, which an outer
    # session may have imported already (pytester runs in-process).
    (evals / "test_user_cases.py").write_text(module + NEIGHBOURS, "utf-8")
    shutil.copy(ROOT / "evals" / "conftest.py", evals / "conftest.py")


def _fixtures_of(output: str, test: str) -> str:
    """The ``--fixtures-per-test`` block of ``test``."""
    block = output.split(f"fixtures used by {test}", 1)[1]
    return block.split("fixtures used by", 1)[0]


def test_a_case_row_sets_up_none_of_pytest_recordings_fixtures(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    result = pytester.runpytest("--fixtures-per-test", "-p", "no:randomly", "-k", "test_cases")
    output = result.stdout.str()
    row = _fixtures_of(output, "test_cases[plain-openai]")
    assert "cases_suite.py" in row.split("vcr -- ", 1)[1].split("\n", 1)[0]
    assert "cases_suite.py" in row.split("block_network -- ", 1)[1].split("\n", 1)[0]
    assert "vcr_markers" not in row and "pytest_recording" not in row


@pytest.mark.deep  # a pytest subprocess per option
@pytest.mark.parametrize(
    "option",
    [(), pytest.param(("--block-network",), marks=pytest.mark.deep)],
    ids=["plain", "block-network"],
)
def test_pytest_recording_keeps_its_work_beside_the_runner(
    pytester: pytest.Pytester, option: tuple[str, ...]
) -> None:
    _project(pytester)
    # In a process of its own: pytest-recording's unblocking leaves its own copy of
    # ``connect`` in ``socket.socket``'s class dict, which the network guard's own
    # test (rightly) refuses to find there.
    result = pytester.runpytest_subprocess(*option, "-p", "no:randomly", "-k", "not test_cases")
    result.assert_outcomes(passed=4)
