"""A package's re-exported names, each imported from its module on first use (PEP 562).

A package that imported every module it re-exports would make importing any one
of its modules pay for all of them (and could close an import circle). So the
package maps each public name to the module that holds it and takes its
``__getattr__`` from here; type checkers read the same names from imports
under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_getattr"]


def lazy_getattr(package: str, home: Mapping[str, str]) -> Callable[[str], Any]:
    """The ``__getattr__`` of ``package``: ``name`` comes from its module
    ``package.home[name]``, looked up there each time (so a patched module attribute
    is what the package gives)."""

    def __getattr__(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{module}"), name)

    return __getattr__
