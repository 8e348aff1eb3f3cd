"""``python -m harness.proxy SPEC.json``: run the proxy a spec file describes."""

from __future__ import annotations

import sys
from pathlib import Path

from harness.proxy._run import run_proxy
from harness.proxy._spec import ProxySpec


def main(argv: list[str]) -> int:
    """Read the spec at ``argv[0]`` and serve it until stopped."""
    if len(argv) != 1:
        print("usage: python -m harness.proxy SPEC.json", file=sys.stderr)
        return 2
    spec = ProxySpec.model_validate_json(Path(argv[0]).read_text("utf-8"))
    return run_proxy(spec)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
