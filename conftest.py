"""Repo-level pytest configuration shared by tests/ and evals/.

Two tiers: the default run, and the deep tier (``@pytest.mark.deep``): tests
that loop over every committed cassette, mutant or breakage where the default
run checks a fixed sample, and the slow end-to-end tests listed by node id in
``tests/deep_tier.txt`` (many processes, re-recordings, server restarts), whose
behaviour a faster default test covers in part. ``--deep`` runs them as well;
``--deep -m deep`` runs only them (CI does both, see ``.ci/run``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

_DEEP_LIST = Path(__file__).parent / "tests" / "deep_tier.txt"

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


def _listed_deep() -> set[str]:
    """Deep-list entries: ``file`` (all its tests), ``file::test``, ``file::test[param]``."""
    lines = _DEEP_LIST.read_text("utf-8").splitlines() if _DEEP_LIST.is_file() else []
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def _mark_listed_deep(config: pytest.Config, items: list[pytest.Item]) -> None:
    listed = _listed_deep()
    matched: set[str] = set()
    for item in items:
        base, file = item.nodeid.split("[", 1)[0], item.nodeid.split("::", 1)[0]
        hit = next((key for key in (item.nodeid, base, file) if key in listed), None)
        if hit is not None:
            item.add_marker(pytest.mark.deep)
            matched.add(hit)
    if any("::" in arg for arg in config.args):
        return  # a run of chosen tests inside a file: the rest was never collected
    # A renamed test must not slip back into the default run, or vanish from CI.
    collected_files = {item.nodeid.split("::", 1)[0] for item in items}
    stale = sorted(
        entry for entry in listed - matched if entry.split("::", 1)[0] in collected_files
    )
    if stale:
        raise pytest.UsageError(
            f"{_DEEP_LIST.name} names tests that were not collected: {', '.join(stale)}; "
            "rename or remove those lines"
        )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _mark_listed_deep(config, items)
    if config.getoption("--deep"):
        return
    deep = [item for item in items if item.get_closest_marker("deep")]
    if deep:
        # Deselected, not skipped: the summary says how many, and nothing reads as a failure.
        config.hook.pytest_deselected(items=deep)
        items[:] = [item for item in items if not item.get_closest_marker("deep")]
