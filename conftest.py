"""Repo-level pytest configuration shared by tests/ and evals/.

Two tiers: the default run, and the deep tier, marked ``@pytest.mark.deep`` in
the test files (a test, one ``pytest.param`` row, or a whole module by
``pytestmark``): tests that loop over every committed cassette, mutant or
breakage where the default run checks a fixed sample, and slow end-to-end tests
(many processes, re-recordings, server restarts) whose behaviour a faster
default test covers in part. ``--deep`` runs them as well; ``--deep -m deep``
runs only them (CI does both, see ``.ci/run``).
"""

from __future__ import annotations

import os

import pytest

# pytester runs pytest inside tests (the plugin's own tests); tests/conftest.py
# configures those inner runs.
pytest_plugins = ["pytester"]

# Tests never talk to real providers unless a live test asks for keys itself.
for _name in ("HARNESS_PROVIDER", "HARNESS_MODEL", "HARNESS_STATE_DIR", "HARNESS_WORKDIR"):
    os.environ.pop(_name, None)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--deep",
        action="store_true",
        default=False,
        help="also run the deep tier (tests marked deep: every cassette, mutant and breakage)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "deep: loops over everything a default-run test samples; needs --deep"
    )
    # Known without xdist too (``-p no:xdist`` runs), where it only documents the group.
    config.addinivalue_line("markers", "xdist_group(name): tests one worker runs together")
    _group_heavy_imports(config)
    if config.getoption("--deep"):
        # Modules that size their tables at import read this (tests/effects).
        os.environ["HARNESS_DEEP_TESTS"] = "1"


def _group_heavy_imports(config: pytest.Config) -> None:
    """Under ``-n``, schedule by ``xdist_group``: the modules that import a heavy SDK
    (lark-oapi, the agent frameworks: seconds each) share one group, so one worker
    imports each, not every worker. Ungrouped tests are spread as with ``load``."""
    explicit = any(arg.startswith("--dist") for arg in config.invocation_params.args)
    if getattr(config.option, "dist", "no") == "load" and not explicit:
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """``loadgroup``, fed in batches (see tests/suite/schedule.py)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.suite.schedule import BatchedGroupScheduling

    return BatchedGroupScheduling(config, log)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--deep"):
        return
    deep = [item for item in items if item.get_closest_marker("deep")]
    if deep:
        # Deselected, not skipped: the summary says how many, and nothing reads as a failure.
        config.hook.pytest_deselected(items=deep)
        items[:] = [item for item in items if not item.get_closest_marker("deep")]
