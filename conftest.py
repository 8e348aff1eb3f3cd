"""Repo-level pytest configuration shared by tests/ and evals/.

Two tiers: the default run, and the deep tier (``@pytest.mark.deep``), tests
that loop over every committed cassette, mutant or breakage where the default
run checks a fixed sample. ``--deep`` runs them as well; ``--deep -m deep``
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
    if config.getoption("--deep"):
        # Modules that size their tables at import read this (tests/effects).
        os.environ["HARNESS_DEEP_TESTS"] = "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--deep"):
        return
    deep = [item for item in items if item.get_closest_marker("deep")]
    if deep:
        # Deselected, not skipped: the summary says how many, and nothing reads as a failure.
        config.hook.pytest_deselected(items=deep)
        items[:] = [item for item in items if not item.get_closest_marker("deep")]
