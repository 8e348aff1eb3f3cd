"""Unloading Hypothesis's pytest plugin from a session that runs no Hypothesis test.

The plugin never imports Hypothesis while no test did, except in its terminal
summary: that imports ``hypothesis.internal.observability``, which is all of
Hypothesis (0.24 s here), to learn that no test wrote observations. Every pytest
process pays it at exit (each xdist worker and the controller too), and its
report hook runs on every report of every test.

So a process that collected no Hypothesis test (nothing imported ``hypothesis``:
a ``@given`` test imports it when its module is collected) unregisters the
plugin once collection is done. The xdist controller collects nothing; it
unregisters the plugin at the end when no worker's report carried Hypothesis's
statistics or failing examples. With ``--hypothesis-show-statistics`` the
plugin stays: its summary prints a section either way.
"""

from __future__ import annotations

import sys

import pytest

__all__ = ["HYPOTHESIS_PLUGIN", "drop_after_collection", "drop_at_the_end"]

HYPOTHESIS_PLUGIN = "hypothesispytest"
# What the plugin's report hook puts in a report's __dict__ for its summary.
_REPORT_KEYS = ("_hypothesis_stats", "_hypothesis_failing_examples")


def _idle(config: pytest.Config) -> bool:
    if "hypothesis" in sys.modules or not config.pluginmanager.has_plugin(HYPOTHESIS_PLUGIN):
        return False
    return not config.getoption("hypothesis_show_statistics", default=False)


def drop_after_collection(config: pytest.Config) -> None:
    """Unregister the plugin if the collected tests hold no Hypothesis test."""
    if _idle(config):
        config.pluginmanager.unregister(name=HYPOTHESIS_PLUGIN)


def drop_at_the_end(config: pytest.Config) -> None:
    """Unregister the plugin before the summary if no report needs it (xdist's controller)."""
    if not _idle(config):
        return
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    reports = terminal.stats.values() if terminal is not None else ()
    for group in reports:
        for report in group:
            if any(key in getattr(report, "__dict__", {}) for key in _REPORT_KEYS):
                return
    config.pluginmanager.unregister(name=HYPOTHESIS_PLUGIN)
