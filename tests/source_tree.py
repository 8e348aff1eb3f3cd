"""Syntax trees of the project's own source, parsed once per test process.

Several tests scan every module of harness/ (environment reads, wire facts, the
import graph); each parsing them again cost about a second of CPU per scan.
Callers only read the trees.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def parsed(path: Path) -> ast.Module:
    """The module at ``path``, parsed (cached for the process: do not change the tree)."""
    return ast.parse(path.read_text("utf-8"), str(path))
