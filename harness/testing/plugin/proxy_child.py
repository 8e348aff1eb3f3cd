"""``python -m harness.testing.plugin.proxy_child SPEC.json``: ``llm_proxy``'s proxy process.

``harness proxy`` itself, plus what only a test run has: the mutant a
``--mutants`` copy serves (``ProxySpec.mutant``), built by the same code as
``llm_cassette``'s (``harness.testing.plugin.llm_fixtures.mutant_responder``), so the
mutated answers come from the proxy exactly as they would in process.
"""

from __future__ import annotations

import sys
from pathlib import Path

__all__ = ["main"]


def main(argv: list[str]) -> int:
    """Serve the spec at ``argv[0]`` until stopped; returns the exit status."""
    from harness.core.errors import HarnessError
    from harness.proxy import ProxySpec, run_proxy

    spec = ProxySpec.model_validate_json(Path(argv[0]).read_text("utf-8"))
    responder = None
    if spec.mutant is not None:
        from harness.testing.plugin.llm_fixtures import mutant_responder

        try:
            responder = mutant_responder(spec.cassette, spec.mutant)[0]
        except HarnessError as exc:
            print(f"error: {exc}", file=sys.stderr, flush=True)
            return 2
    return run_proxy(spec, responder)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
