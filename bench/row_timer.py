"""A pytest plugin that times where each row of a run spends its time (a bench aid).

Load it into the run to measure: ``PYTHONPATH=bench harness eval -- -p row_timer``
(``bench/eval_scale.py --breakdown`` does that for you). For every test it adds
up, with ``time.perf_counter``:

- the phases of pytest's protocol (``setup``, ``call``, ``teardown``, the
  ``makereport`` and ``logreport`` hooks), and the whole protocol;
- each fixture's setup (``fixture:NAME``) and teardown (``teardown:NAME``);
- each function named in ``ROW_TIMER_WRAP`` (``module:Qualified.name``,
  comma-separated), as ``fn:Qualified.name``; a call nested in a call of the
  same function counts once.

When pytest unconfigures it writes ``{label: [seconds of row 1, row 2, ...]}``
to ``ROW_TIMER_OUT`` (JSON); a row where a label never ran counts 0 there.
Medians of those, not means, are what to read: the first rows of a process
import the SDKs, and that start-up would swamp a mean.

Timing adds a little to what it times (two ``perf_counter`` calls and a dict
update per timed call, about 1 µs), so a row timed this way is slower than one
that is not: use it to see where the time goes, not for the totals.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import time
from collections import defaultdict
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import pytest

_clock = time.perf_counter
# Seconds by label, for each row (its node id) in run order.
_rows: dict[str, defaultdict[str, float]] = {}
_current: list[defaultdict[str, float] | None] = [None]
_active: set[str] = set()


def _add(label: str, seconds: float) -> None:
    row = _current[0]
    if row is not None:
        row[label] += seconds


def _timed(label: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        if label in _active:  # nested in itself: the outer call already counts it
            return function(*args, **kwargs)
        _active.add(label)
        started = _clock()
        try:
            return function(*args, **kwargs)
        finally:
            _add(label, _clock() - started)
            _active.discard(label)

    return timed


def _wrap(spec: str) -> None:
    module_name, _, qualified = spec.partition(":")
    owner: Any = importlib.import_module(module_name)
    *path, name = qualified.split(".")
    for part in path:
        owner = getattr(owner, part)
    # Wrap where the function is defined; modules that imported it by name keep theirs.
    setattr(owner, name, _timed(f"fn:{qualified}", getattr(owner, name)))


def _time_fixture_teardown() -> None:
    from _pytest.fixtures import FixtureDef

    finish = FixtureDef.finish

    def timed_finish(self: Any, request: Any) -> None:
        started = _clock()
        try:
            finish(self, request)
        finally:
            _add(f"teardown:{self.argname}", _clock() - started)

    FixtureDef.finish = timed_finish  # type: ignore[method-assign]


def pytest_configure(config: pytest.Config) -> None:
    for spec in filter(None, os.environ.get("ROW_TIMER_WRAP", "").split(",")):
        _wrap(spec.strip())
    _time_fixture_teardown()


def pytest_unconfigure(config: pytest.Config) -> None:
    out = os.environ.get("ROW_TIMER_OUT")
    if not out or not _rows:
        return
    labels = sorted({label for row in _rows.values() for label in row})
    table = {label: [row.get(label, 0.0) for row in _rows.values()] for label in labels}
    Path(out).write_text(json.dumps(table), "utf-8")


def _phase(label: str) -> Callable[..., Generator[None, Any, Any]]:
    def hook(*args: Any, **kwargs: Any) -> Generator[None, Any, Any]:
        started = _clock()
        try:
            return (yield)
        finally:
            _add(label, _clock() - started)

    return hook


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, Any, Any]:
    row = _rows.setdefault(item.nodeid, defaultdict(float))
    _current[0] = row
    started = _clock()
    try:
        return (yield)
    finally:
        row["protocol"] += _clock() - started
        _current[0] = None


pytest_runtest_setup = pytest.hookimpl(wrapper=True, tryfirst=True)(_phase("setup"))
pytest_runtest_call = pytest.hookimpl(wrapper=True, tryfirst=True)(_phase("call"))
pytest_runtest_teardown = pytest.hookimpl(wrapper=True, tryfirst=True)(_phase("teardown"))
pytest_runtest_makereport = pytest.hookimpl(wrapper=True, tryfirst=True)(_phase("makereport"))
pytest_runtest_logreport = pytest.hookimpl(wrapper=True, tryfirst=True)(_phase("logreport"))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_fixture_setup(
    fixturedef: Any, request: pytest.FixtureRequest
) -> Generator[None, Any, Any]:
    started = _clock()
    try:
        return (yield)
    finally:
        _add(f"fixture:{fixturedef.argname}", _clock() - started)
