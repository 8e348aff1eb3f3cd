"""The house: harness's rooms sit on floors, and no room reaches another's private names.

The floors are import-linter contracts in ``pyproject.toml`` (``[tool.importlinter]``):
a *room* is a sub-package of ``harness`` or a top-level module, on a floor of the
``floors`` layers contract; it imports only rooms on lower floors, never one on
its own floor; the package root re-exports app's entry points from the floor of
``integrations``; no module circle at any depth. grimp counts imports inside
functions and under ``TYPE_CHECKING`` (a type-only import is still a dependency
of the concept). ``lint-imports`` runs them in CI; ``test_the_contracts_are_kept``
runs them here. Adding a room is a one-line edit of ``floors`` (exhaustive: an
unplaced room fails).

What import-linter does not check is the names an import takes: no module imports
another module's private name (``_name``), nor another room's private module (a
helper two modules share gets a public name, two rooms a public home). That
check reads every module with ``ast`` below; the sub-packages of ``harness.testing``
are rooms of their own there (``testing.cassettes``), as in their contract.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

import harness
from tests.source_tree import parsed

REPO = Path(__file__).resolve().parents[2]
ROOT = Path(harness.__file__).parent


def test_the_contracts_are_kept(capsys: pytest.CaptureFixture[str]) -> None:
    # In this process (no interpreter to start): grimp reads the sources of the
    # `harness` this process imported, without importing anything.
    from importlinter import configuration
    from importlinter.application import use_cases

    configuration.configure()
    kept = use_cases.lint_imports(str(REPO / "pyproject.toml"), cache_dir=None, no_logo=True)
    assert kept, capsys.readouterr().out


# -- private names across rooms ----------------------------------------------------


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


def _import_statements(body: Iterable[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    # Statements only, at any depth (functions, classes, if TYPE_CHECKING, try):
    # imports are statements, and skipping expressions halves the walk.
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                yield from _import_statements(inner)


def read_imports(modules: Mapping[str, Path]) -> list[Import]:
    """Every import between the package's modules, in any scope, relative ones resolved."""
    found: list[Import] = []
    for module, path in modules.items():
        is_package = path.name == "__init__.py"
        here = module.split(".") if is_package else module.split(".")[:-1]
        tree = parsed(path)
        for node in _import_statements(tree.body):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    target = _known(alias.name, modules)
                    if target is not None:
                        found.append(Import(module, target, None, node.lineno, path))
                continue
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


# Packages whose sub-packages are rooms of their own (on floors of their own contract).
HOUSES = frozenset({"harness.testing"})


def room_of(module: str) -> str:
    """``harness.approval._risk`` -> ``approval``; the package root is ``harness``;
    in a house, a sub-package: ``harness.testing.cassettes.llm_paths`` -> ``testing.cassettes``."""
    parts = module.split(".")
    if len(parts) > 2 and ".".join(parts[:2]) in HOUSES and (ROOT / parts[1] / parts[2]).is_dir():
        return ".".join(parts[1:3])
    return parts[1] if len(parts) > 1 else parts[0]


def _private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def private_reaches(imports: Iterable[Import]) -> list[str]:
    """Imports of another module's ``_private`` name, or of another room's private module."""
    found = []
    for arrow in imports:
        if arrow.name is not None and _private(arrow.name):
            found.append(f"{arrow}: a private name of another module")
        elif (room := room_of(arrow.target)) != room_of(arrow.source) and any(
            _private(part) for part in arrow.target.split(".")[1 + room.count(".") + 1 :]
        ):
            found.append(f"{arrow}: a private part of room {room_of(arrow.target)!r}")
    return found


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return read_imports(read_modules(ROOT, "harness"))


def test_no_module_imports_another_rooms_private_names(imports: list[Import]) -> None:
    found = private_reaches(imports)
    assert not found, "private names used across rooms:\n  " + "\n  ".join(found)


def test_the_reader_sees_function_level_and_relative_imports(imports: list[Import]) -> None:
    # Guards the checker against going blind on harness itself: the root package
    # imports its version at module level, the CLI imports commands in a function.
    seen = {(a.source, a.target) for a in imports}
    assert ("harness", "harness.version") in seen
    assert ("harness.cli._main", "harness.cli._approval_cmd") in seen


def test_a_private_module_of_a_testing_room_is_private_to_that_room() -> None:
    def reach(source: str, target: str) -> Import:
        return Import(source, target, None, 1, Path("x.py"))

    inside = reach("harness.testing.cassettes.live_guard", "harness.testing.cassettes._proxy_guard")
    across = reach("harness.testing.plugin.fixtures", "harness.testing.cassettes._proxy_guard")
    assert room_of("harness.testing.cassettes.live_guard") == "testing.cassettes"
    assert room_of("harness.testing.options") == "testing"
    assert private_reaches([inside]) == []
    assert private_reaches([across]) == [f"{across}: a private part of room 'testing.cassettes'"]


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


def test_the_checker_names_a_planted_private_reach(tmp_path: Path) -> None:
    for name, text in PLANTED.items():
        path = tmp_path / "pkg" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    assert private_reaches(read_imports(read_modules(tmp_path / "pkg", "pkg"))) == [
        "pkg.engine.steps -> pkg.engine.loop._helper (steps.py:2): a private name of another "
        "module",
        "pkg.tracing.spans -> pkg.core._hidden.SECRET (spans.py:1): a private part of room 'core'",
    ]


# -- the contracts on planted faults -----------------------------------------------

# `lint-imports` itself, run by this interpreter (its script sits beside it in a venv).
LINT_IMPORTS = "from importlinter.cli import lint_imports_command; lint_imports_command()"

FLOORS = "rooms import only rooms on lower floors"
ROOT_DOWN = "the package root imports only rooms below integrations"
ROOT_UP = "only cli, testing and __main__ import the package root"
CIRCLES = "no import circle among the modules of a package"

# Each fault: the file under harness/ it is appended to, the text, the contract
# that must refuse it.
FAULTS = {
    "an import up a floor": ("core/errors.py", "\nimport harness.engine\n", FLOORS),
    "an import on its own floor": ("providers/__init__.py", "\nimport harness.tools\n", FLOORS),
    "an import inside a function": (
        "tracing/__init__.py",
        "\ndef _planted() -> None:\n    from harness.providers import base\n",
        FLOORS,
    ),
    "a type-only import": (
        "shell/__init__.py",
        "\nfrom typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import harness.approval\n",
        FLOORS,
    ),
    "a room without a floor": ("planted_room.py", "\n", FLOORS),
    "the root importing above its floor": ("__init__.py", "\nimport harness.cli\n", ROOT_DOWN),
    "a room importing the root": (
        "integrations/__init__.py",
        "\nfrom harness import __version__\n",
        ROOT_UP,
    ),
    "a module circle": ("engine/_run_types.py", "\nimport harness.engine._loop\n", CIRCLES),
}


@pytest.mark.deep
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_the_contracts_refuse_a_planted_fault(fault: str, tmp_path: Path) -> None:
    copy = tmp_path / "harness"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns("__pycache__"))
    name, text, contract = FAULTS[fault]
    with (copy / name).open("a", encoding="utf-8") as file:
        file.write(text)
    # A subprocess: `harness` is already imported here, and grimp would find it.
    done = subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, str(REPO / "pyproject.toml"), "--no-cache"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert any(
        line.startswith(contract) and "BROKEN" in line for line in done.stdout.splitlines()
    ), done.stdout
