"""A server's log lines go to the stderr of the moment, not to one closed since."""

from __future__ import annotations

import io
import logging
import sys
from collections.abc import Iterator

import pytest

from harness.core.stderr_log import log_to_stderr

NAME = "harness.test_stderr_log"


@pytest.fixture
def logger() -> Iterator[logging.Logger]:
    logger = logging.getLogger(NAME)
    yield logger
    logger.handlers.clear()
    logger.propagate = True


def test_a_record_after_the_first_stderr_closed_goes_to_the_current_one(
    logger: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = io.StringIO(), io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    log_to_stderr(NAME, "%(name)s %(message)s", propagate=False)
    logger.info("one")
    first.close()  # as a command run in-process leaves its stand-in stderr
    monkeypatch.setattr(sys, "stderr", second)
    logger.info("two")
    assert second.getvalue() == f"{NAME} two\n"


def test_a_second_call_adds_no_second_handler(
    logger: logging.Logger, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    log_to_stderr(NAME, "%(message)s", propagate=False)
    log_to_stderr(NAME, "%(message)s", propagate=False)
    logger.info("once")
    assert out.getvalue() == "once\n"
