"""Regenerate the committed baseline reports: one ``harness eval`` replay per
provider/model that has cassettes, written to ``evals/baselines/<provider>-<model>.json``.

    python evals/baselines/regenerate.py            # from the repo root

Run it after re-recording the cassettes, or after a change to the eval report
format, and commit the result: CI compares every replay with these files
(``harness eval compare BASELINE NEW --fail-on regression``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def targets(cassettes: Path) -> list[tuple[str, str]]:
    """Every (provider, model) the committed suite holds cassettes for."""
    return sorted(
        (model.parent.name, model.name)
        for model in cassettes.glob("*/*")
        if model.is_dir() and any(model.rglob("*.yaml"))
    )


def _drop_traces(report: Path) -> None:
    """A baseline is compared by verdicts and counts; the run's traces (which
    ``harness eval --report`` keeps beside it, under absolute paths) and each
    row's absolute cassette path stay out (``cassette_relpath`` travels)."""
    shutil.rmtree(report.with_name(f"{report.stem}-traces"), ignore_errors=True)
    if not report.exists():
        return
    data = json.loads(report.read_text("utf-8"))
    for row in data.get("rows", []):
        row.pop("traces", None)
        row.pop("cassette_path", None)
    partial = report.with_suffix(".json.tmp")
    partial.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    partial.replace(report)


def main() -> int:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    status = 0
    for provider, model in targets(ROOT / "cassettes"):
        report = ROOT / "evals" / "baselines" / f"{provider}-{model}.json"
        command = [sys.executable, "-m", "harness", "eval", "--report", str(report)]
        command += ["--harness-provider", provider, "--harness-model", model]
        done = subprocess.run(command, cwd=ROOT, env=env, check=False)
        _drop_traces(report)
        print(f"{report.relative_to(ROOT)}: exit {done.returncode}")
        status = status or done.returncode
    return status


if __name__ == "__main__":
    sys.exit(main())
