"""Scenario cases as data: every case of ``evals/cases/*.yaml`` is an eval row.

The runner ships with the plugin (``harness.testing.cases_suite``); re-exporting
it here keeps this repo's node ids and cassette paths
(``cassettes/<provider>/<model>/evals/test_cases/test_cases-<case>.yaml``).
Point ``--harness-cases DIR`` at another folder to run your own cases.
"""

from __future__ import annotations

from harness.testing.cases_suite import (
    block_network,
    llm_cassette_config,
    pytest_generate_tests,
    test_cases,
    test_target_cases,
    vcr,
)

__all__ = [
    "block_network",
    "llm_cassette_config",
    "pytest_generate_tests",
    "test_cases",
    "test_target_cases",
    "vcr",
]
