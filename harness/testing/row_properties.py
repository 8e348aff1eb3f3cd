"""The names under which a test's report carries its eval row and its mutant result.

Apart from the collector that reads them, so the plugin can tag a report
without importing the report models (about 0.1 s a process).
"""

from __future__ import annotations

__all__ = ["MUTANT_PROPERTY", "ROW_PROPERTY"]

ROW_PROPERTY = "harness_eval"
MUTANT_PROPERTY = "harness_mutant"
