"""Running the scenario evals through pytest and collecting their report."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from harness.core.errors import ConfigurationError
from harness.evals.report import EvalReport, EvalRow, load_report

__all__ = ["EvalRun", "merge_reports", "run_evals"]


@dataclass(frozen=True, slots=True)
class EvalRun:
    """What ``run_evals`` produced: pytest's exit code, the report and where it went."""

    exit_code: int
    report: EvalReport
    paths: tuple[Path, ...]
    mutants: bool = False

    @property
    def ok(self) -> bool:
        """Every eval passed; with mutants: pytest ran them all (survivors are judged apart)."""
        if self.mutants:
            # Killed mutants are xfails and survivors strict xpasses: exit code 1 is
            # expected; anything above it means pytest itself could not run them.
            return self.exit_code in (0, 1) and bool(self.report.mutants)
        return self.exit_code == 0 and self.report.passed and bool(self.report.rows)


def run_evals(
    pytest_args: list[str],
    *,
    evals_dir: Path = Path("evals"),
    report_path: Path | None = None,
    reports_dir: Path = Path(".harness/reports"),
    epochs: int = 1,
    cwd: Path | None = None,
    mutants: bool = False,
) -> EvalRun:
    """Run ``pytest <evals_dir> -m eval`` in a subprocess, streaming its progress.

    ``pytest_args`` pass straight through (``-n auto``, ``-k edit``,
    ``--harness-provider openai``, ``--record-mode once``, ...). The report goes
    to exactly ``report_path`` if given, else to ``reports_dir/eval-<timestamp>.json``;
    none is written when pytest stops before producing one (``paths`` is empty).
    With ``mutants`` every recorded eval runs against mutants of its cassette
    instead (``--harness-mutants``); the report's ``mutants`` section holds them.
    """
    root = cwd or Path.cwd()
    if epochs < 1:
        raise ConfigurationError(f"epochs must be at least 1, got {epochs}")
    if not (root / evals_dir).exists():
        raise ConfigurationError(
            f"no evals folder at {root / evals_dir}; run from the project root or pass --evals-dir"
        )
    with tempfile.TemporaryDirectory(prefix="harness-eval-") as tmp:
        raw = Path(tmp) / "report.json"
        command = [
            sys.executable,
            "-m",
            "pytest",
            str(evals_dir),
            "-m",
            "eval",
            "--harness-report",
            str(raw),
            "--harness-epochs",
            str(epochs),
            *(["--harness-mutants"] if mutants else []),
            *pytest_args,
        ]
        exit_code = subprocess.run(command, cwd=root, check=False).returncode
        if not raw.exists():
            # pytest stopped before the plugin wrote anything (e.g. it refused an
            # argument): an empty report on disk would read as "every eval vanished".
            return EvalRun(exit_code, EvalReport(), (), mutants)
        report = load_report(raw)
    if report_path is None:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        report_path = root / reports_dir / f"eval-{stamp}.json"
    report.write(report_path)
    return EvalRun(exit_code, report, (report_path,), mutants)


def merge_reports(paths: list[Path]) -> EvalReport:
    """Combine shard reports (e.g. pytest-split groups) into one; duplicates are refused."""
    if not paths:
        raise ConfigurationError("give at least one report to merge")
    reports = [load_report(path) for path in paths]
    seen: dict[str, Path] = {}
    rows: list[EvalRow] = []
    for path, report in zip(paths, reports, strict=True):
        for row in report.rows:
            if row.nodeid in seen:
                raise ConfigurationError(
                    f"{row.nodeid} is in both {seen[row.nodeid]} and {path}; "
                    "merge reports of disjoint shards only"
                )
            seen[row.nodeid] = path
            rows.append(row)
    mutants: dict[tuple[str, str], Path] = {}
    for path, report in zip(paths, reports, strict=True):
        for result in report.mutants:
            key = (result.eval_nodeid, result.mutant)
            if key in mutants:
                raise ConfigurationError(
                    f"mutant {result.mutant} of {result.eval_nodeid} is in both {mutants[key]} "
                    f"and {path}; merge reports of disjoint shards only"
                )
            mutants[key] = path
    first = reports[0]
    merged = tuple(m for report in reports for m in report.mutants)
    return first.model_copy(update={"rows": tuple(rows), "mutants": merged}).sorted()
