"""The public surface of harness.recording, and that importing it stays light."""

from __future__ import annotations

import subprocess
import sys

import pytest

import harness.recording
import harness.recording.sim


@pytest.mark.parametrize(
    "module", [harness.recording, harness.recording.sim], ids=lambda m: m.__name__
)
def test_all_is_sorted_and_exported(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    assert names == sorted(names)
    assert all(hasattr(module, name) for name in names)


def test_import_does_not_load_vcrpy_or_the_sdks() -> None:
    code = (
        "import sys, harness.recording, harness.recording.sim; "
        "print(sorted(m for m in ('vcr', 'deepdiff', 'openai', 'anthropic') if m in sys.modules))"
    )
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert output.stdout.strip() == "[]"
