"""One report per replay miss: the test fails once, and its report opens with the diff.

A miss raises :class:`~harness.recording.UnmatchedRequestError` out of the SDK
call (possibly after the run turned it into an ``error`` stop), and the cassette
raises it again when it closes at fixture teardown, so that a swallowed miss can
never pass. Left alone, pytest would show a FAILED test plus a teardown ERROR,
each inside some 200 lines of openai/httpx/vcr frames. Here the call's report
gets the miss text in place of the traceback (diff first, then where the test
was), and the fixture skips the second raise of a miss already reported.

A cassette that cannot be opened at all (missing in replay mode, corrupt), or a
recording without its key, fails the test's setup inside the same SDK and vcr
frames: that report is the error's own text and the test's place too, as short
as a miss.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from harness.core.errors import CassetteError
    from harness.recording import CassetteHandle

__all__ = [
    "HANDLE_KEY",
    "PROXY_MISS_KEY",
    "REPORTED_KEY",
    "already_reported",
    "forget_cassette",
    "rewrite_miss_report",
]

HANDLE_KEY: pytest.StashKey[CassetteHandle] = pytest.StashKey()
REPORTED_KEY: pytest.StashKey[CassetteError] = pytest.StashKey()
# An llm_proxy test's first miss, asked of the proxy process when a report needs it.
PROXY_MISS_KEY: pytest.StashKey[Callable[[], CassetteError | None]] = pytest.StashKey()


def _miss_of(item: pytest.Item, call: pytest.CallInfo[None]) -> CassetteError | None:
    from harness.recording import UnmatchedRequestError, unwrap_cassette_error

    handle = item.stash.get(HANDLE_KEY, None)
    miss = handle.miss if handle is not None else None
    proxy_miss = item.stash.get(PROXY_MISS_KEY, None)
    if miss is None and proxy_miss is not None:
        miss = proxy_miss()
    if miss is None and call.excinfo is not None:
        found = unwrap_cassette_error(call.excinfo.value)
        miss = found if isinstance(found, UnmatchedRequestError) else None
    return miss


def _test_line(item: pytest.Item, call: pytest.CallInfo[None]) -> str | None:
    if call.excinfo is None:
        return None
    path = str(item.path)
    entries = [e for e in call.excinfo.traceback if str(e.path) == path]
    if not entries:
        return None
    entry = entries[-1]
    return f"{entry.path}:{entry.lineno + 1}: {str(entry.statement).strip()}"


def rewrite_miss_report(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    """Give a failed phase caused by a replay miss the miss text as its whole report."""
    if not report.failed or call.excinfo is None:
        return
    miss = _miss_of(item, call)
    if miss is None:
        _rewrite_setup_error(item, call, report)
        return
    if item.stash.get(REPORTED_KEY, None) is miss and report.when == "teardown":
        return  # the fixture let it through for another reason; keep pytest's report
    lines = [str(miss)]
    where = _test_line(item, call)
    if where is not None:
        lines.append(f"\nin the test: {where}")
    if type(call.excinfo.value) is not type(miss) or call.excinfo.value is not miss:
        lines.append(f"(the test saw it as {call.excinfo.typename}: {call.excinfo.value})")
    report.longrepr = "\n".join(lines)
    item.stash[REPORTED_KEY] = miss


def _rewrite_setup_error(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> None:
    """A cassette or configuration error at setup: its text, not frames.

    The provider fixture opens the cassette (missing, corrupt) and reads the key
    (recording without one) inside SDK and vcr frames; its one-line message is the
    whole report, as ``llm_cassette`` gives it.
    """
    from harness.core.errors import CassetteError, ConfigurationError
    from harness.recording import unwrap_cassette_error

    if report.when != "setup" or call.excinfo is None:
        return
    error: Exception | None = unwrap_cassette_error(call.excinfo.value)
    doing = "setting up its provider"
    if error is None and isinstance(call.excinfo.value, ConfigurationError):
        error, doing = call.excinfo.value, "setting up its fixtures"
    if not isinstance(error, CassetteError | ConfigurationError):
        return
    path, line, name = item.location
    where = f"{path}:{(line or 0) + 1}: {name}"
    report.longrepr = f"{type(error).__name__}: {error}\n\nin the test: {where} (while {doing})"


def already_reported(item: pytest.Item, error: BaseException) -> bool:
    """Whether ``error`` (raised at teardown) is the miss this test already failed with."""
    return item.stash.get(REPORTED_KEY, None) is error


def forget_cassette(item: pytest.Item) -> None:
    """Drop the test's parsed cassette and reported miss once its teardown is reported.

    The item lives until the session ends; the handle (every parsed interaction,
    about 32 KB a row) and the miss (with its traceback frames) are of no use after
    the teardown report, which is the last one that reads them.
    """
    if HANDLE_KEY in item.stash:
        del item.stash[HANDLE_KEY]
    if PROXY_MISS_KEY in item.stash:
        del item.stash[PROXY_MISS_KEY]
    if REPORTED_KEY in item.stash:
        del item.stash[REPORTED_KEY]
