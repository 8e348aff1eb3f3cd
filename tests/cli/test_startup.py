"""Startup stays light: the SDKs load only when a real provider is used."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("openai", "anthropic", "vcr", "lark_oapi", "httpx2", "deepdiff", "jsonschema")


def _imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return set(done.stdout.split())


def test_import_harness_loads_no_sdk() -> None:
    loaded = _imported_after("import harness, harness.providers, harness.testing")
    assert not [name for name in HEAVY if name in loaded]


def test_help_loads_no_sdk() -> None:
    code = (
        "import sys\nsys.argv = ['harness', '--help']\nfrom harness.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    loaded = _imported_after(code)
    assert not [name for name in HEAVY if name in loaded]
