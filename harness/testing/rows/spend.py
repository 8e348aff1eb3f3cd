"""``--harness-max-cost``: stop recording once the estimated spend passes a limit.

Every process that records (the lone pytest, or each xdist worker) keeps its
running estimate in its own file of a per-run folder under the system temp dir;
the total is the sum of the files, so workers see each other's spend without a
lock. The estimate prices each finished test's token usage at the price table —
simulator tokens included, which are synthetic: for this budget only, since a
dry run against the simulator is how a user sizes a live recording. A test in
progress finishes; the tests after the limit skip, saying why.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.core.errors import ConfigurationError
from harness.core.messages import Usage
from harness.evals import TokenUsage, usage_cost
from harness.evals.prices import PriceTable
from harness.files import atomic_write_text

__all__ = ["LEDGER_KEY", "SpendLedger", "run_id"]


def run_id(config: pytest.Config) -> str:
    """One id per test run, the same on the xdist controller and its workers."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return str(workerinput["testrunuid"])
    current = getattr(config.option, "testrunuid", None)
    if current:
        return str(current)
    new = uuid.uuid4().hex
    if hasattr(config.option, "testrunuid"):
        config.option.testrunuid = new  # xdist hands this one to its workers
    return new


@dataclass(slots=True)
class SpendLedger:
    """The run's estimated recording spend, shared between processes by files."""

    limit_usd: float
    prices: PriceTable
    folder: Path
    name: str
    spent_here: float = 0.0

    @classmethod
    def for_run(cls, limit_usd: float, prices: PriceTable, run: str, name: str) -> SpendLedger:
        folder = Path(tempfile.gettempdir()) / f"harness-spend-{run}"
        folder.mkdir(parents=True, exist_ok=True)
        return cls(limit_usd, prices, folder, name)

    def check_price(self, model: str) -> None:
        """Refuse to record a model the budget cannot price."""
        if self.prices.price(model) is None:
            raise ConfigurationError(
                f"--harness-max-cost cannot price model {model!r}: it is not in "
                f"{self.prices.label}; add it to a HARNESS_PRICES file"
            )

    def add(self, model: str, usage: Usage) -> None:
        price = self.prices.price(model)
        if price is None:
            return  # check_price already stopped this test
        tokens = TokenUsage(
            usage.input_tokens,
            usage.output_tokens,
            usage.cached_input_tokens,
            usage.cache_write_input_tokens,
        )
        self.spent_here += usage_cost(tokens, price)
        atomic_write_text(self.folder / f"{self.name}.json", json.dumps(self.spent_here))

    def total(self) -> float:
        """Every process's estimate so far."""
        spent = 0.0
        for path in self.folder.glob("*.json"):
            try:
                spent += float(json.loads(path.read_text("utf-8")))
            except (OSError, ValueError, TypeError):
                continue  # a file being replaced: atomic rename makes this rare and brief
        return spent

    def exceeded(self) -> str | None:
        """Why recording must stop, or None while under the limit."""
        spent = self.total()
        if spent < self.limit_usd:
            return None
        return (
            f"--harness-max-cost ${self.limit_usd:g}: estimated recording spend ${spent:.4f} "
            f"(token usage at {self.prices.label}, synthetic simulator tokens included) "
            "reached the limit; not recording this test"
        )

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


LEDGER_KEY = pytest.StashKey[SpendLedger]()
