"""A wire's parts, loaded by the dotted paths its registry entry names.

Each wire's behaviour lives in its own package (``harness/wires/<name>/``), a
room above the rooms that dispatch to it (traffic, simulator, evals): they ask
for a wire's part by name here and get the module or attribute the registry
names (``harness.core.wires``), so an arrow of the import graph never points
up and a new wire is its package and one registry row, no edit in the rooms.
What each part provides is written down once, as the Protocols of
``harness.wires.protocols``; ``tests/core/test_wires.py`` checks every wire's
parts against them.
"""

from __future__ import annotations

import importlib
from typing import Any, Literal

from harness.core.wires import Wire, wire

__all__ = ["PartName", "load_dotted", "load_part"]

PartName = Literal["provider", "traffic", "simulator", "mutations", "transcript"]


def load_dotted(dotted: str) -> Any:
    """The module ``module``, or the attribute of ``module:attribute`` (looked up each
    time, so a patched attribute is what a caller gets).

    Raises:
        ImportError: the module does not import.
        AttributeError: the module has no such attribute.
    """
    module_name, _, attribute = dotted.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


def load_part(entry: Wire | str, part: PartName) -> Any:
    """The ``part`` of the wire ``entry`` (a registry entry or its name).

    Raises:
        KeyError: no wire of that name.
        LookupError: the wire has no such part (it lacks the capability that needs it).
    """
    found = wire(entry) if isinstance(entry, str) else entry
    dotted: str | None = getattr(found.parts, part)
    if dotted is None:
        raise LookupError(f"wire {found.name!r} has no {part} part")
    return load_dotted(dotted)
