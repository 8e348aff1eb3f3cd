"""The house: harness's import graph has no circle and no arrow from a lower floor up.

Every module under ``harness/`` is read with ``ast``: its imports at module
level, inside functions and under ``TYPE_CHECKING`` (a type-only import is still
a dependency of the concept), relative ones resolved. A *room* is a sub-package
of ``harness`` (its own sub-packages belong to it) or a top-level module; the
package root ``harness/__init__.py`` is the room ``harness``, which re-exports
the entry points.

The rooms sit on the floors of ``LAYERS``, lowest first, as SPEC section 1 and
STYLE.md ("dependencies point inward") draw them: ``core`` imports nothing of
harness; ``tracing`` knows nothing of the engine; ``testing`` and ``cli`` are on
top and nothing imports them. A room imports only rooms on lower floors, never
a room on its own floor; a new room must be given a floor here. No module
imports another module's private name (``_name``), nor another room's private
module: a helper two modules share gets a public name, two rooms a public home.

Run as a script for the graph's figures: ``python tests/core/test_import_graph.py``.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

import harness

# Lowest floor first. A room may import the rooms of the floors below its own.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core", "files", "version"),  # import nothing of harness
    ("jsonload", "settings", "shell", "yamlload"),  # core's types and errors only
    ("documents", "effects", "recording", "session", "tracing"),
    ("providers", "tools", "traffic"),  # traffic: cassettes read back into traces
    ("approval", "simulator"),  # the risk rules read shell commands through harness.shell
    ("conversations",),  # simulated users: providers for the user model, tracing for turns
    ("mcp",),  # MCP servers' tools (harness.tools) and their cassettes (scrubbed as recording's)
    ("engine",),
    ("evals", "subagent"),
    # One package per wire format (provider, traffic reader, simulator renderer,
    # mutation codec, transcript): it builds on the rooms each part plugs into;
    # rooms below reach a wire's parts by dotted path (the registry's), not import.
    ("wires",),
    ("app", "proxy", "settings_doc", "view"),  # proxy: any process recorded through a server
    ("harness", "integrations"),  # the package root re-exports app's entry points
    ("cli", "testing"),  # on top: nothing imports them
    ("__main__",),
)
TOP_ROOMS = frozenset({"cli", "testing"})


@dataclass(frozen=True)
class Import:
    """One arrow: ``source`` imports ``target`` (a module of the package) at ``line``.

    ``name`` is the attribute taken from ``target`` when it is not a module itself
    (``from harness.core import Message``), else None.
    """

    source: str
    target: str
    name: str | None
    line: int
    path: Path

    def __str__(self) -> str:
        what = f"{self.target}.{self.name}" if self.name else self.target
        return f"{self.source} -> {what} ({self.path.name}:{self.line})"


def read_modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of the package at ``root``, by dotted name (a package by its own)."""
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = [package, *path.relative_to(root).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    """The longest prefix of ``name`` that is a module of the package."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def read_imports(modules: Mapping[str, Path]) -> list[Import]:
    """Every import between the package's modules, in any scope."""
    found: list[Import] = []
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        here = module.split(".") if is_package else module.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = _known(alias.name, modules)
                    if target is not None:
                        found.append(Import(module, target, None, node.lineno, path))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - node.level + 1]
                    origin = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    origin = node.module or ""
                for alias in node.names:
                    submodule = f"{origin}.{alias.name}"
                    if submodule in modules:
                        found.append(Import(module, submodule, None, node.lineno, path))
                    elif (target := _known(origin, modules)) is not None:
                        found.append(Import(module, target, alias.name, node.lineno, path))
    return found


def room_of(module: str) -> str:
    """``harness.approval.risk`` -> ``approval``; the package root is ``harness``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Tarjan's components of more than one node (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph.get(successor, ())))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


def _one_circle(members: Sequence[str], arrows: Mapping[tuple[str, str], Import]) -> list[Import]:
    """A shortest circle through the first member, as the arrows that make it."""
    inside = set(members)
    start = members[0]
    came_from: dict[str, tuple[str, Import]] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for node in frontier:
            for (source, target), arrow in sorted(arrows.items(), key=lambda a: a[0]):
                if source != node or target not in inside:
                    continue
                if target == start:
                    path = [arrow]
                    while node != start:
                        node, step = came_from[node]
                        path.insert(0, step)
                    return path
                if target not in came_from:
                    came_from[target] = (node, arrow)
                    following.append(target)
        frontier = following
    raise AssertionError(f"no circle through {start}")  # a component always has one


def circles(
    imports: Iterable[Import], node_of: Callable[[str], str] | None = None
) -> list[list[Import]]:
    """The import circles among modules (``node_of=room_of``: among rooms)."""
    key = node_of or (lambda module: module)
    arrows: dict[tuple[str, str], Import] = {}
    graph: dict[str, set[str]] = defaultdict(set)
    for arrow in imports:
        source, target = key(arrow.source), key(arrow.target)
        if source == target or _is_own_package(arrow):
            continue
        arrows.setdefault((source, target), arrow)
        graph[source].add(target)
    return [_one_circle(c, arrows) for c in _strongly_connected(graph)]


def _is_own_package(arrow: Import) -> bool:
    # A room's __init__ importing the room's modules is how it exports its names
    # (importing a module runs its package's __init__ first, but that is no arrow
    # back). The package root is no such room: its imports reach other rooms.
    return arrow.target.startswith(arrow.source + ".") and (
        room_of(arrow.source) == room_of(arrow.target)
    )


def floors(layers: Sequence[Sequence[str]]) -> dict[str, int]:
    """Room -> its floor number, lowest 0."""
    return {room: level for level, rooms in enumerate(layers) for room in rooms}


def arrows_up(imports: Iterable[Import], layers: Sequence[Sequence[str]]) -> list[str]:
    """Arrows to a room on the same or a higher floor, each naming its edge."""
    floor = floors(layers)
    found = []
    for arrow in imports:
        source, target = room_of(arrow.source), room_of(arrow.target)
        if source == target or source not in floor or target not in floor:
            continue  # an unplaced room fails test_every_room_has_a_floor
        if floor[target] >= floor[source]:
            where = "its own floor" if floor[target] == floor[source] else "a higher floor"
            found.append(
                f"{arrow}: room {source!r} (floor {floor[source]}) imports {target!r} on {where}"
                f" (floor {floor[target]})"
            )
    return found


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def private_reaches(imports: Iterable[Import]) -> list[str]:
    """Imports of another module's ``_private`` name, or of another room's private module."""
    found = []
    for arrow in imports:
        if arrow.name is not None and _private(arrow.name):
            found.append(f"{arrow}: a private name of another module")
        elif room_of(arrow.source) != room_of(arrow.target) and any(
            _private(part) for part in arrow.target.split(".")[2:]
        ):
            found.append(f"{arrow}: a private part of room {room_of(arrow.target)!r}")
    return found


def unplaced_rooms(modules: Iterable[str], layers: Sequence[Sequence[str]]) -> list[str]:
    rooms = {room_of(m) for m in modules}
    placed = set(floors(layers))
    return sorted(rooms - placed) + [f"{room} (no such room)" for room in sorted(placed - rooms)]


def _format(circle: Sequence[Import]) -> str:
    return "\n    ".join(str(arrow) for arrow in circle)


# -- harness itself ----------------------------------------------------------------

ROOT = Path(harness.__file__).parent


@pytest.fixture(scope="module")
def modules() -> dict[str, Path]:
    return read_modules(ROOT, "harness")


@pytest.fixture(scope="module")
def imports(modules: dict[str, Path]) -> list[Import]:
    return read_imports(modules)


def test_every_room_has_a_floor(modules: dict[str, Path]) -> None:
    missing = unplaced_rooms(modules, LAYERS)
    assert not missing, f"rooms without a floor in LAYERS (add them): {missing}"


@pytest.mark.deep
def test_no_circle_among_modules(imports: list[Import]) -> None:
    found = circles(imports)
    assert not found, "import circles among modules:\n  " + "\n  ".join(map(_format, found))


@pytest.mark.deep
def test_no_circle_among_rooms(imports: list[Import]) -> None:
    found = circles(imports, room_of)
    assert not found, "import circles among rooms:\n  " + "\n  ".join(map(_format, found))


def test_no_arrow_points_up(imports: list[Import], modules: dict[str, Path]) -> None:
    assert not unplaced_rooms(modules, LAYERS)
    found = arrows_up(imports, LAYERS)
    assert not found, "imports from a lower floor up:\n  " + "\n  ".join(found)


@pytest.mark.deep
def test_nothing_imports_testing_or_cli(imports: list[Import]) -> None:
    found = [
        str(a)
        for a in imports
        if room_of(a.target) in TOP_ROOMS
        and room_of(a.source) not in (room_of(a.target), "__main__")
    ]
    assert not found, "testing and cli sit on top; these import them:\n  " + "\n  ".join(found)


def test_no_module_imports_another_rooms_private_names(imports: list[Import]) -> None:
    found = private_reaches(imports)
    assert not found, "private names used across rooms:\n  " + "\n  ".join(found)


def test_the_reader_sees_function_level_and_relative_imports(imports: list[Import]) -> None:
    # Guards the checker against going blind on harness itself: the root package
    # imports its version at module level, the CLI imports commands in a function.
    seen = {(a.source, a.target) for a in imports}
    assert ("harness", "harness.version") in seen
    assert ("harness.cli.main", "harness.cli.approval_cmd") in seen


# -- the checker on a planted package ----------------------------------------------


def _plant(root: Path, files: Mapping[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = root / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    return read_modules(root / "pkg", "pkg")


PLANTED = {
    "__init__.py": "",
    "core/__init__.py": "from pkg.core.types import Thing\n",
    "core/types.py": "class Thing: ...\n",
    "core/_hidden.py": "SECRET = 1\n",
    "engine/__init__.py": "",
    "engine/loop.py": "from ..core import Thing\nfrom . import steps\n",
    "engine/steps.py": "def go():\n    from pkg.engine.loop import Thing, _helper\n",
    "tracing/__init__.py": "",
    "tracing/spans.py": (
        "from pkg.core._hidden import SECRET\n\ndef up():\n    import pkg.engine.loop\n"
    ),
}
PLANTED_LAYERS = (("core",), ("tracing",), ("engine",), ("pkg",))


def test_the_checker_names_a_planted_circle(tmp_path: Path) -> None:
    found = circles(read_imports(_plant(tmp_path, PLANTED)))
    assert [[str(a) for a in circle] for circle in found] == [
        [
            "pkg.engine.loop -> pkg.engine.steps (loop.py:2)",
            "pkg.engine.steps -> pkg.engine.loop.Thing (steps.py:2)",
        ]
    ]


def test_the_checker_names_a_planted_arrow_up_and_private_reach(tmp_path: Path) -> None:
    imports = read_imports(_plant(tmp_path, PLANTED))
    assert arrows_up(imports, PLANTED_LAYERS) == [
        "pkg.tracing.spans -> pkg.engine.loop (spans.py:4): room 'tracing' (floor 1) imports "
        "'engine' on a higher floor (floor 2)"
    ]
    assert private_reaches(imports) == [
        "pkg.engine.steps -> pkg.engine.loop._helper (steps.py:2): a private name of another "
        "module",
        "pkg.tracing.spans -> pkg.core._hidden.SECRET (spans.py:1): a private part of room 'core'",
    ]
    rooms_circle = circles(
        [*imports, Import("pkg.engine.loop", "pkg.tracing.spans", "up", 9, Path("loop.py"))],
        room_of,
    )
    assert len(rooms_circle) == 1
    assert {room_of(a.source) for a in rooms_circle[0]} == {"engine", "tracing"}


def test_the_checker_flags_a_room_on_its_own_floor_and_an_unplaced_room(tmp_path: Path) -> None:
    modules = _plant(tmp_path, PLANTED)
    imports = read_imports(modules)
    same_floor = (("core",), ("tracing", "engine"), ("pkg",))
    assert any("on its own floor" in line for line in arrows_up(imports, same_floor))
    assert unplaced_rooms(modules, (("core",), ("engine", "view"), ("pkg",))) == [
        "tracing",
        "view (no such room)",
    ]


def _figures(root: Path) -> str:
    modules = read_modules(root, "harness")
    imports = read_imports(modules)
    rooms = sorted({room_of(m) for m in modules})
    lines = [
        f"{len(modules)} modules, {len(rooms)} rooms, {len(LAYERS)} floors",
        f"module circles: {len(circles(imports))}",
        f"room circles: {len(circles(imports, room_of))}",
    ]
    unplaced = unplaced_rooms(modules, LAYERS)
    if unplaced:
        lines.append(f"rooms without a floor: {unplaced}")
    lines.append(f"arrows up: {len(arrows_up(imports, LAYERS))}")
    lines.append(f"private reaches: {len(private_reaches(imports))}")
    for circle in [*circles(imports), *circles(imports, room_of)]:
        lines.append("circle:\n    " + _format(circle))
    lines.extend(f"up: {line}" for line in arrows_up(imports, LAYERS))
    lines.extend(f"private: {line}" for line in private_reaches(imports))
    return "\n".join(lines)


if __name__ == "__main__":
    print(_figures(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT))
