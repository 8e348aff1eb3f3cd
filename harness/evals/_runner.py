"""Running the scenario evals through pytest and collecting their report."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from harness.core.errors import ConfigurationError, HarnessError
from harness.evals.interrupt import EvalInterrupted, stop_gently
from harness.evals.scratch import scratch_parent
from harness.files import write_new_file

if TYPE_CHECKING:
    # Imported once pytest has written the report: the report model (pydantic) is
    # most of what this module would cost before pytest starts.
    from harness.evals._report import EvalReport, EvalRow

__all__ = ["EvalRun", "keep_traces", "merge_reports", "run_evals"]


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
    meanwhile: Callable[[], object] | None = None,
    sequential: bool = False,
    baseline: Path | None = None,
) -> EvalRun:
    """Run ``pytest <evals_dir> -m eval`` in a subprocess, streaming its progress.

    ``pytest_args`` pass straight through (``-n auto``, ``-k edit``,
    ``--harness-provider openai``, ``--record-mode once``, ...). The report goes
    to exactly ``report_path`` if given, else to ``reports_dir/eval-<timestamp>.json``;
    none is written when pytest stops before producing one (``paths`` is empty).
    With ``mutants`` every recorded eval runs against mutants of its cassette
    instead (``--harness-mutants``); the report's ``mutants`` section holds them.
    ``meanwhile`` is called once pytest has started (to import what comes after).
    With ``sequential`` a case's remaining epochs are skipped once they cannot
    change its verdict (``harness.evals.sequential``): its pass/fail, and with
    ``baseline`` its compare status against that report too.
    """
    root = cwd or Path.cwd()
    if epochs < 1:
        raise ConfigurationError(f"epochs must be at least 1, got {epochs}")
    if sequential and epochs < 2:
        raise ConfigurationError(
            "sequential stopping skips repeated epochs; give --epochs N with N >= 2"
        )
    if not (root / evals_dir).is_dir():
        what = "is not a folder" if (root / evals_dir).exists() else "does not exist"
        raise ConfigurationError(
            f"no evals folder at {root / evals_dir} (it {what}); run from the project root or "
            "pass --evals-dir"
        )
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    # In RAM when the machine has a roomy tmpfs: each row makes several folders (see
    # harness.evals.scratch), and they are thrown away with the run.
    with tempfile.TemporaryDirectory(prefix="harness-eval-", dir=scratch_parent()) as tmp:
        raw = Path(tmp) / "report.json"
        # A private basetemp: pytest's shared one keeps only the last three runs
        # (any pytest on the machine), so the traces would vanish under the report.
        basetemp = [] if _has_basetemp(pytest_args) else ["--basetemp", str(Path(tmp) / "runs")]
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
            *_sequential_args(sequential, baseline, root),
            *basetemp,
            *pytest_args,
            *_default_dist(pytest_args),
            *_same_order_in_every_shard(pytest_args),
            # The rows' traces are copied beside the report once pytest has ended;
            # a project's "failed" (or "none") policy would remove every passing
            # row's folder, traces and all, before that. This folder goes anyway.
            *("-o", "tmp_path_retention_policy=all"),
        ]
        target = report_path or root / reports_dir / f"eval-{stamp}.json"

        def finish() -> tuple[EvalReport, tuple[Path, ...]]:
            from harness.evals._report import EvalReport, load_report

            if not raw.exists():
                # pytest stopped before the plugin wrote anything (e.g. it refused an
                # argument): an empty report on disk would read as "every eval vanished".
                return EvalReport(), ()
            report = load_report(raw)
            if not report.rows and not report.mutants:
                # No eval ran: a report of nothing would read as a suite that passed.
                return report, ()
            # The runs' traces live in this temporary folder: keep them beside the report.
            report = keep_traces(report, target.with_name(f"{target.stem}-traces"))
            report.write(target)
            return report, (target,)

        try:
            exit_code, (report, paths) = _run_pytest(command, root, meanwhile, raw, finish)
        except KeyboardInterrupt:
            # pytest has ended its session: keep the report of the rows that ran.
            raise EvalInterrupted(*_salvage(finish)) from None
    return EvalRun(exit_code, report, paths, mutants)


def _salvage(
    finish: Callable[[], tuple[EvalReport, tuple[Path, ...]]],
) -> tuple[EvalReport, tuple[Path, ...]]:
    """What ``finish`` keeps of an interrupted run; nothing when it cannot."""
    from harness.evals._report import EvalReport

    try:
        return finish()
    except (HarnessError, OSError):  # half written, or not a report
        return EvalReport(), ()


# How often the runner looks for the report while pytest runs (seconds).
_POLL_S = 0.02
_T = TypeVar("_T")


def _run_pytest(
    command: list[str],
    cwd: Path,
    meanwhile: Callable[[], object] | None,
    report: Path,
    finish: Callable[[], _T],
) -> tuple[int, _T]:
    """pytest's exit code, and what ``finish`` made of its ``report``.

    ``meanwhile`` runs while pytest does (as ``subprocess.run`` would handle it, an
    error or Ctrl-C there kills pytest). The plugin writes the report in one rename
    as the session ends, 0.3-0.6 s before pytest has shut down (its workers, its
    summary, the interpreter's exit): ``finish`` reads it as soon as it is there,
    or once pytest is gone, and again if the file was replaced by then. A file
    that is not a report yet when first read (anything in the run may write
    there, not always in one go) is read again once pytest is gone.
    """
    with subprocess.Popen(command, cwd=cwd) as process:
        try:
            if meanwhile is not None:
                meanwhile()
            while process.poll() is None and not report.exists():
                time.sleep(_POLL_S)
        except KeyboardInterrupt:
            stop_gently(process, report)  # pytest writes the report of what ran
            raise
        except BaseException:
            process.kill()
            raise
        try:
            read = _identity(report)
            try:
                early: tuple[_T] | None = (finish(),)
            except ConfigurationError:
                # Not (yet) a report: a file half written by something else in the run,
                # which the plugin's rename replaces. Only the read after pytest counts.
                early = None
            code = process.wait()
            # Replaced since it was read: a file that was not the plugin's (anything in
            # the run may write there), which the plugin's rename then replaced.
            replaced = _identity(report) != read
            done = finish() if early is None or replaced else early[0]
        except KeyboardInterrupt:
            stop_gently(process, report)
            raise
        except BaseException:
            # pytest is past its tests: let it end as it would (its JUnit XML, caches,
            # a shard's durations), then raise.
            process.wait()
            raise
        return code, done


def _identity(path: Path) -> tuple[int, int, int] | None:
    """Which file ``path`` is: inode, modification time and size (None when absent)."""
    try:
        info = path.stat()
    except OSError:
        return None
    return (info.st_ino, info.st_mtime_ns, info.st_size)


def _default_dist(pytest_args: list[str]) -> list[str]:
    """``--dist worksteal`` for a parallel run (``-n``) that names no mode of its own.

    pytest-xdist's default (``load``) hands rows out a few at a time and the
    controller answers every batch; ``worksteal`` splits them up front and moves
    work only when a worker runs dry. Measured on 1,002 replayed rows on 2
    cores: 18.9 s and 34 s of CPU against 20.7 s and 37 s (median of 2), and it
    still evens out rows of unequal cost.
    """
    parallel = any(
        arg in ("-n", "--numprocesses") or arg.startswith(("--numprocesses=", "-n"))
        for arg in pytest_args
    )
    chosen = any(arg in ("-d", "--dist") or arg.startswith("--dist=") for arg in pytest_args)
    if not parallel or chosen or _zero_workers(pytest_args):
        return []
    return ["--dist", "worksteal"]


def _same_order_in_every_shard(pytest_args: list[str]) -> list[str]:
    """``-p no:randomly`` for a shard (``--splits``) that fixes no seed of its own.

    pytest-split cuts the collected rows in collection order, after
    pytest-randomly has shuffled them with a seed of each process's own: the
    shards of one suite then overlapped and dropped rows (measured: two shards of
    1,002 rows shared 167 and missed 167). A ``--randomly-seed`` given to every
    shard keeps them consistent, so it is left alone.
    """
    sharded = any(arg == "--splits" or arg.startswith("--splits=") for arg in pytest_args)
    seeded = any(arg.startswith("--randomly-seed") for arg in pytest_args)
    return ["-p", "no:randomly"] if sharded and not seeded else []


def _zero_workers(pytest_args: list[str]) -> bool:
    """``-n 0``: xdist stays off, and a ``--dist`` would make it complain."""
    for index, arg in enumerate(pytest_args):
        if arg in ("-n", "--numprocesses") and index + 1 < len(pytest_args):
            value = pytest_args[index + 1]
        elif arg.startswith("--numprocesses="):
            value = arg.partition("=")[2]
        elif arg.startswith("-n") and len(arg) > 2:
            value = arg[2:]
        else:
            continue
        if value.strip() == "0":
            return True
    return False


def _sequential_args(sequential: bool, baseline: Path | None, root: Path) -> list[str]:
    if not sequential:
        return []
    if baseline is None:
        return ["--harness-sequential"]
    # Absolute: pytest reads it relative to where it runs, which is ``root``.
    return [
        "--harness-sequential",
        "--harness-sequential-baseline",
        str((root / baseline).resolve()),
    ]


def _has_basetemp(pytest_args: list[str]) -> bool:
    return any(arg == "--basetemp" or arg.startswith("--basetemp=") for arg in pytest_args)


def keep_traces(report: EvalReport, folder: Path) -> EvalReport:
    """Copy the rows' trace files into ``folder`` and point the rows at the copies.

    A trace that is already gone keeps its old path (``harness view`` says it is
    missing); a report without traces creates no folder. Copies a previous run
    left in ``folder`` are removed; other files in it stay.

    The copies are written into a new sibling folder, which then replaces
    ``folder`` in one rename: the folder is the temporary that is renamed into
    place, so each file needs no temporary name of its own. On this machine's
    ext4 that took 1,002 copies from 0.26-0.52 s (a temporary file and a rename
    each, among the last run's copies) to 0.05-0.07 s.
    """
    target = folder.resolve()
    plan = [
        [(Path(path), f"{number:03d}-{Path(path).name}") for path in row.traces]
        for number, row in enumerate(report.rows)
    ]
    if not any(plan):
        _drop_copies(target)
        return report
    target.parent.mkdir(parents=True, exist_ok=True)
    fresh = _sibling(target, "new")
    fresh.mkdir()
    copied: set[str] = set()
    try:
        for source, name in (job for jobs in plan for job in jobs):
            try:
                data = source.read_bytes()
            except OSError:
                continue  # gone: the row keeps the old path
            write_new_file(fresh / name, data)
            copied.add(name)
        if not copied:
            _drop_copies(target)
            return report
        _replace_folder(fresh, target)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)  # gone already once it replaced the folder
    rows: list[EvalRow] = []
    for row, jobs in zip(report.rows, plan, strict=True):
        if not jobs:
            rows.append(row)
            continue
        kept = tuple(str(target / name) if name in copied else str(source) for source, name in jobs)
        rows.append(row.model_copy(update={"traces": kept}))
    return report.model_copy(update={"rows": tuple(rows)})


# The names keep_traces gives its copies: the row's number, then the trace's file name.
_COPY_NAME = re.compile(r"[0-9]{3}-.*\.json")


def _drop_copies(folder: Path) -> None:
    with contextlib.suppress(FileNotFoundError, NotADirectoryError):
        for entry in os.scandir(folder):
            if _COPY_NAME.fullmatch(entry.name):
                Path(entry.path).unlink(missing_ok=True)


def _sibling(folder: Path, kind: str) -> Path:
    return folder.with_name(f".{folder.name}.{secrets.token_hex(6)}.{kind}")


def _replace_folder(fresh: Path, folder: Path) -> None:
    """Put ``fresh`` where ``folder`` is; files in ``folder`` that are no copies move over."""
    if not folder.is_dir():
        os.replace(fresh, folder)  # nothing there (or a file, replaced as before)
        return
    old = _sibling(folder, "old")
    os.rename(folder, old)
    os.rename(fresh, folder)
    try:
        for entry in os.scandir(old):
            if not _COPY_NAME.fullmatch(entry.name):
                os.rename(entry.path, folder / entry.name)
    finally:
        shutil.rmtree(old, ignore_errors=True)


def merge_reports(paths: list[Path]) -> EvalReport:
    """Combine shard reports (e.g. pytest-split groups) into one; duplicates are refused."""
    from harness.evals._report import load_gate_report

    if not paths:
        raise ConfigurationError("give at least one report to merge")
    reports = [load_gate_report(path) for path in paths]
    modes = {report.record_mode for report in reports}
    if len(modes) > 1:
        by_mode = ", ".join(
            f"{path} ({report.record_mode})" for path, report in zip(paths, reports, strict=True)
        )
        raise ConfigurationError(
            f"the reports come from runs of different record modes: {by_mode}; "
            "merge the shards of one run only"
        )
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
