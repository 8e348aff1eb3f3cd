"""What users read imports only public names (docs/contributing.md, "Public and private names").

The guides' Python blocks, the recipes in ``examples/`` and this project's own
evals are what a user copies. A deep import there (``harness.testing.rows.workspace``)
teaches a path that may move without notice, so each ``from harness... import``
must name a public module and only names in its ``__all__``.
"""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator

import pytest

from tests.docs.doc_blocks import ROOT, all_blocks

# The user packages, and the modules a guide points at for one job.
PUBLIC_MODULES = frozenset(
    {
        "harness",
        "harness.testing",
        "harness.evals",
        "harness.providers",
        "harness.core",
        "harness.approval",
        "harness.tools",
        "harness.tracing",
        "harness.recording",
        "harness.simulator",
        "harness.testing.adapters",
        # docs/evals.md: a project re-exports the case runner to run its own case files.
        "harness.testing.cases_suite",
    }
)

# (file, module): a deep import a user file still makes, and why it may.
ALLOWED: dict[tuple[str, str], str] = {
    ("evals/test_approval_flow.py", "harness.testing"): (
        "names two goldens of one test after it (naming.test_name); goldens are moving "
        "to a snapshot library, which names them itself"
    ),
}

PYTHON = ("python", "py", "pycon")


def _sources() -> Iterator[tuple[str, str]]:
    for folder in ("evals", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" not in path.parts:
                yield path.relative_to(ROOT).as_posix(), path.read_text("utf-8")
    for block in all_blocks():
        if block.language in PYTHON and block.marker != "not-run":
            yield block.id, block.text


def _imports(source: str) -> Iterator[tuple[str, list[str]]]:
    try:
        tree = ast.parse(source)
    except SyntaxError:  # a fragment; the code-block tests judge those
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.split(".")[0] == "harness":
                yield node.module, [alias.name for alias in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "harness":
                    yield alias.name, []


def _problems() -> list[str]:
    found = []
    for where, source in _sources():
        for module, names in _imports(source):
            if (where.split(":")[0], module) in ALLOWED:
                continue
            if module not in PUBLIC_MODULES:
                found.append(f"{where}: imports the private module {module}")
                continue
            public = set(getattr(importlib.import_module(module), "__all__", ()))
            private = sorted(set(names) - public)
            if private:
                found.append(
                    f"{where}: imports {', '.join(private)} from {module} (not in __all__)"
                )
    return found


def test_user_facing_code_imports_only_public_names() -> None:
    problems = _problems()
    assert not problems, (
        "import these from the public package instead (or export them on purpose):\n"
        + "\n".join(problems)
    )


def test_the_check_sees_a_deep_import() -> None:
    assert list(_imports("from harness.testing.rows.workspace import Workspace\n")) == [
        ("harness.testing.rows.workspace", ["Workspace"])
    ]
    assert "harness.testing.rows.workspace" not in PUBLIC_MODULES


@pytest.mark.parametrize("key", sorted(ALLOWED))
def test_every_allowed_deep_import_is_still_made(key: tuple[str, str]) -> None:
    path, module = key
    assert any(m == module for m, _ in _imports((ROOT / path).read_text("utf-8"))), (
        f"{path} no longer imports {module}: drop it from ALLOWED"
    )
