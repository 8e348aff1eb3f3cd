"""``--harness-sequential``: skip a case's remaining epochs once its verdict is certain.

The rule is :mod:`harness.evals.sequential`'s; this module is its pytest glue.
Each process keeps the outcomes of the epochs it finished; under xdist each
finished epoch also leaves one small file, ``<epoch>.json`` in its case's
folder of a per-run folder under pytest's basetemp (the controller makes it
and hands its path to the workers), so workers see each other's outcomes.
Before an epoch runs, the outcomes of its case are read and, when the
rule says the rest cannot change the verdict, the epoch is skipped before its
fixtures run; its row is a skip marked ``stopped``, in the case's row group
(same scenario, provider and model role), so that every report, compare and
table counts only the epochs that ran. A case is its test's node with the
epoch parameter cut (``test_x[openai-epoch3]`` -> ``test_x[openai-epoch*]``).

In sequential mode the epochs of a case are ordered one after another (the
first epoch's place in the collection keeps the group), so a case's later
epochs can see its earlier ones.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.files import atomic_write_text
from harness.testing.naming import epoch_of, scenario_name
from harness.testing.row_properties import ROW_PROPERTY

if TYPE_CHECKING:
    from harness.evals.aggregate import CaseKey

__all__ = ["SEQUENTIAL_KEY", "NodeSetup", "Sequential", "add_options", "stop_row"]

SEQUENTIAL_KEY = pytest.StashKey["Sequential"]()
_OUTCOME_KEY = pytest.StashKey[str]()  # the epoch's verdict so far: pass, fail, error, skip
_STOP_ROW_KEY = pytest.StashKey[dict[str, Any]]()
_FOLDER_INPUT = "harness_sequential_folder"
# The row fields a stopped epoch copies from a finished one: what groups it with its case.
_GROUP_FIELDS = ("scenario", "provider", "model", "model_role", "source")


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness")
    group.addoption(
        "--harness-sequential",
        action="store_true",
        help="With --harness-epochs N: skip a case's remaining epochs once they cannot change "
        "its verdict (a failure decides pass/fail; with --harness-sequential-baseline the "
        "compare status must be certain too).",
    )
    group.addoption(
        "--harness-sequential-baseline",
        default=None,
        metavar="REPORT",
        help="The baseline report whose compare status must also be certain before stopping.",
    )


@dataclass(frozen=True, slots=True)
class Sequential:
    """The run's stopping rule: where outcomes are shared, how many epochs, which baseline."""

    folder: Path
    planned: int
    # The baseline's (passes, runs) per case; None when no baseline was given.
    baseline: dict[CaseKey, tuple[int, int]] | None
    # Other processes run epochs too (xdist): outcomes go through ``folder`` as well.
    shared: bool = False
    # This process's finished epochs: case folder name -> epoch -> (verdict, row).
    _seen: dict[str, dict[int, tuple[str, dict[str, Any] | None]]] = field(
        default_factory=dict, repr=False, compare=False
    )
    # Cases (folder names) whose scenario and test another case shares: compare would
    # pool their runs, so no one case's epochs can make the pooled status certain.
    _pooled: set[str] = field(default_factory=set, repr=False, compare=False)

    @classmethod
    def from_config(cls, config: pytest.Config, epochs: int) -> Sequential | None:
        """The rule when ``--harness-sequential`` is on, else None (usage errors raised)."""
        if not config.getoption("harness_sequential", default=False):
            if config.getoption("harness_sequential_baseline", default=None):
                raise pytest.UsageError(
                    "--harness-sequential-baseline applies to --harness-sequential; add it"
                )
            return None
        if epochs < 2:
            raise pytest.UsageError(
                "--harness-sequential stops repeated epochs early; give --harness-epochs N "
                "with N >= 2"
            )
        shared = hasattr(config, "workerinput")  # an xdist worker: others run epochs too
        return cls(_shared_folder(config), epochs, _baseline(config), shared)

    def check(self, item: pytest.Item) -> None:
        """Skip ``item`` (with a ``stopped`` row) when its case's verdict is already certain."""
        epoch = epoch_of(item)
        if epoch is None:
            return
        from harness.evals.sequential import EpochTally, stop_reason

        outcomes = self._outcomes(item)
        rows = [row for _, row in outcomes if row is not None]
        tally = EpochTally(
            passes=sum(verdict == "pass" for verdict, _ in outcomes),
            failures=sum(verdict in ("fail", "error") for verdict, _ in outcomes),
            skips=sum(verdict not in ("pass", "fail", "error") for verdict, _ in outcomes),
            planned=self.planned,
        )
        keys = {_case_key(row) for row in rows}
        if len(keys) != 1:
            return  # no finished row to group with, or a case that is not one case
        (key,) = keys
        asked = _provider_param(item)
        if self.baseline is not None and (
            _case_folder(item) in self._pooled
            or key[0] != scenario_name(item)
            or (asked is not None and key[1] != asked)
        ):
            return  # compare would judge more runs than this case's: never certain here
        old = None if self.baseline is None else self.baseline.get(key)
        reason = stop_reason(tally, old, baseline=self.baseline is not None)
        if reason is None:
            return
        fields = {name: rows[0][name] for name in _GROUP_FIELDS if name in rows[0]}
        item.stash[_STOP_ROW_KEY] = {**fields, "epoch": epoch - 1, "stopped": True}
        pytest.skip(f"sequential stopping: {reason}")

    def note(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """Track the epoch's verdict as the collector would; at teardown, share it."""
        if epoch_of(item) is None:
            return
        current = item.stash.get(_OUTCOME_KEY, None)
        if current in (None, "pass"):
            if report.skipped:
                item.stash[_OUTCOME_KEY] = "skip"
            elif report.failed:
                item.stash[_OUTCOME_KEY] = "fail" if report.when == "call" else "error"
            elif report.when == "call":
                item.stash[_OUTCOME_KEY] = "pass"
        if report.when != "teardown":
            return
        verdict = item.stash.get(_OUTCOME_KEY, "error")  # no call phase: an error
        if _STOP_ROW_KEY in item.stash:
            verdict = "stopped"
        row = _row_of(report)
        case, epoch = _case_folder(item), int(epoch_of(item) or 0)
        self._seen.setdefault(case, {})[epoch] = (verdict, row)
        if self.shared:
            # Not durable: the files live as long as the run, and an fsync per epoch
            # cost more than the epochs sequential stopping saved.
            data = json.dumps({"verdict": verdict, "row": row})
            atomic_write_text(self.folder / case / f"{epoch}.json", data, durable=False)

    def order(self, items: list[pytest.Item]) -> None:
        """Put each case's epochs one after another, in epoch order, where its first was;
        note the cases whose runs compare would pool with another case's.

        Deterministic, so every xdist worker's collection stays the same.
        """
        from harness.evals.aggregate import identity_of

        place: dict[str, int] = {}
        owners: dict[tuple[str, str], dict[str, str | None]] = {}
        for index, item in enumerate(items):
            case = _case_folder(item)
            place.setdefault(case, index)
            # Rows pool by (scenario, provider, role, test): cases of one scenario and
            # test share a key unless their provider parameters tell them apart.
            key = (scenario_name(item), identity_of(item.nodeid))
            owners.setdefault(key, {})[case] = _provider_param(item)
        for cases in owners.values():
            for case, provider in cases.items():
                others = [p for c, p in cases.items() if c != case]
                if any(p is None or provider is None or p == provider for p in others):
                    self._pooled.add(case)
        items.sort(key=lambda item: (place[_case_folder(item)], epoch_of(item) or 0))

    def _outcomes(self, item: pytest.Item) -> list[tuple[str, dict[str, Any] | None]]:
        case = _case_folder(item)
        found = dict(self._seen.get(case, {}))
        if self.shared:
            for path in (self.folder / case).glob("*.json"):
                if not path.stem.isdigit() or int(path.stem) in found:
                    continue
                try:
                    data = json.loads(path.read_text("utf-8"))
                except (OSError, ValueError):
                    continue  # unreadable: no evidence, so the epoch counts as remaining
                row = data.get("row")
                found[int(path.stem)] = (
                    str(data.get("verdict")),
                    row if isinstance(row, dict) else None,
                )
        return list(found.values())


def stop_row(item: pytest.Item) -> dict[str, Any] | None:
    """The row of an epoch sequential stopping skipped (None: it was not stopped)."""
    return item.stash.get(_STOP_ROW_KEY, None)


class NodeSetup:
    """On the xdist controller: hands every worker the run's outcome folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[_FOLDER_INPUT] = str(self.folder)


def _shared_folder(config: pytest.Config) -> Path:
    given = getattr(config, "workerinput", {}).get(_FOLDER_INPUT)
    if given:
        return Path(given)
    factory = getattr(config, "_tmp_path_factory", None)
    if factory is not None:
        folder = Path(factory.mktemp("harness-sequential", numbered=True))
    else:  # pytest without its tmp_path plugin: a folder of the run's own
        folder = Path(tempfile.mkdtemp(prefix="harness-sequential-"))
    if hasattr(config.hook, "pytest_configure_node"):  # an xdist controller
        config.pluginmanager.register(NodeSetup(folder), "harness-sequential-nodes")
    return folder


def _baseline(config: pytest.Config) -> dict[CaseKey, tuple[int, int]] | None:
    given = config.getoption("harness_sequential_baseline", default=None)
    if not given:
        return None
    from harness.core.errors import ConfigurationError
    from harness.evals import load_gate_report
    from harness.evals.aggregate import aggregate_rows

    path = Path(config.invocation_params.dir) / str(given)
    try:
        report = load_gate_report(path)
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None
    return {key: (runs.passes, runs.runs) for key, runs in aggregate_rows(report.rows).items()}


def _case_key(row: dict[str, Any]) -> CaseKey:
    from harness.evals import AGENT_ROLE
    from harness.evals.aggregate import identity_of

    return (
        str(row.get("scenario")),
        str(row.get("provider", "scripted")),
        str(row.get("model_role") or AGENT_ROLE),
        identity_of(str(row.get("nodeid", ""))),
    )


def _row_of(report: pytest.TestReport) -> dict[str, Any] | None:
    for name, value in report.user_properties:
        if name == ROW_PROPERTY:
            with contextlib.suppress(ValueError, TypeError):
                data = json.loads(value) if isinstance(value, str) else value
                if isinstance(data, dict):
                    return {**data, "nodeid": report.nodeid}
    return None


def _provider_param(item: pytest.Item) -> str | None:
    value = getattr(getattr(item, "callspec", None), "params", {}).get("provider_name")
    return value if isinstance(value, str) else None


def _case_folder(item: pytest.Item) -> str:
    """The case's folder name: a digest of the node id with its epoch cut."""
    epoch = epoch_of(item)
    nodeid = item.nodeid
    if epoch is not None:
        nodeid = re.sub(rf"(?<=[\[-])epoch{epoch}(?=[\]-])", "epoch*", nodeid)
    return hashlib.sha256(nodeid.encode()).hexdigest()[:20]
