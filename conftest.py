"""Repo-level pytest configuration shared by tests/ and evals/."""

from __future__ import annotations

import os

# pytester runs pytest inside tests (the plugin's own tests); tests/conftest.py
# configures those inner runs.
pytest_plugins = ["pytester"]

# Tests never talk to real providers unless a live test asks for keys itself.
for _name in ("HARNESS_PROVIDER", "HARNESS_MODEL", "HARNESS_STATE_DIR", "HARNESS_WORKDIR"):
    os.environ.pop(_name, None)
