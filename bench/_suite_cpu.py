"""pytest plugin for ``bench/suite_time.py``: each test's wall and CPU time.

Loaded with ``-p _suite_cpu`` (the bench puts this folder on ``PYTHONPATH``), in
the controller and in every xdist worker. Per test it records the wall time of
setup, call and teardown together, and the CPU the worker spent (its own, plus
the subprocesses it waited for), as one JSON line in ``$SUITE_TIME_DIR``. On a
shared machine the wall times swing with the load; the CPU times do not as much.
"""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Generator
from pathlib import Path

import pytest


def _cpu() -> float:
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    folder = os.environ.get("SUITE_TIME_DIR")
    wall, cpu = time.perf_counter(), _cpu()
    try:
        return (yield)
    finally:
        if folder:
            line = {
                "nodeid": item.nodeid,
                "wall": time.perf_counter() - wall,
                "cpu": _cpu() - cpu,
            }
            worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
            with (Path(folder) / f"{worker}.jsonl").open("a", encoding="utf-8") as out:
                out.write(json.dumps(line) + "\n")
