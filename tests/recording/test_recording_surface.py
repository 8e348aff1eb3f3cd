"""The public surface of harness.recording, and that importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import harness.recording
import harness.simulator


@pytest.mark.parametrize("module", [harness.recording, harness.simulator], ids=lambda m: m.__name__)
def test_all_is_sorted_and_exported(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    # isort-style, as ruff's RUF022 keeps it: CONSTANTS, then Classes, then functions.
    assert names == sorted(names, key=lambda n: (not n.isupper(), not n[:1].isupper(), n))
    assert all(hasattr(module, name) for name in names)


@pytest.mark.deep
def test_import_does_not_load_vcrpy_or_the_sdks() -> None:
    code = (
        "import sys, harness.recording, harness.simulator; "
        "print(sorted(m for m in ('vcr', 'deepdiff', 'openai', 'anthropic') if m in sys.modules))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert output.stdout.strip() == "[]"


def test_cassette_metadata_does_not_import_the_runtime_package() -> None:
    import ast
    from pathlib import Path

    source = Path(harness.recording.__file__).with_name("_metadata.py").read_text("utf-8")
    imported = {
        alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module or ""
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom)
    }
    assert "harness" not in imported
    from harness.recording._metadata import describe_recording

    assert describe_recording([], False, None).harness_version == harness.__version__
