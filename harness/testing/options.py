"""The plugin's command-line options, read once into a typed value."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["RECORD_MODES", "HarnessOptions", "add_options"]

RECORD_MODES = ("none", "once", "new_episodes", "all", "rewrite")
PROVIDER_CHOICES = ("scripted", "openai", "anthropic")


def _recording_plugin_active(pluginmanager: pytest.PytestPluginManager) -> bool:
    """Whether pytest-recording will register ``--record-mode`` in this session."""
    if importlib.util.find_spec("pytest_recording") is None:
        return False
    if pluginmanager.is_blocked("recording"):
        return False
    if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
        return pluginmanager.has_plugin("recording")
    return True


def add_options(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """Register the ``harness`` option group."""
    group = parser.getgroup("harness", "harness: agent runs, cassettes and trace shapes")
    # pytest-recording owns --record-mode when it is active; both plugins then
    # read the same value instead of clashing over the option.
    if not _recording_plugin_active(pluginmanager):
        group.addoption(
            "--record-mode",
            action="store",
            default="none",
            choices=RECORD_MODES,
            help="Cassette record mode: none (replay only, the default), once, new_episodes, "
            "all, rewrite.",
        )
    group.addoption(
        "--harness-provider",
        choices=PROVIDER_CHOICES,
        default=None,
        help="Run only this provider's parametrisations; the `provider` fixture default.",
    )
    group.addoption("--harness-model", default=None, help="Model name for recorded providers.")
    group.addoption(
        "--harness-base-url",
        default=None,
        help="Send recorded providers here (e.g. the harness simulator) when recording.",
    )
    group.addoption(
        "--harness-cassette-dir",
        default=None,
        help="Folder of cassettes (default: <rootdir>/cassettes).",
    )
    group.addoption(
        "--update-shapes", action="store_true", help="Rewrite golden trace shapes from this run."
    )
    group.addoption("--harness-report", default=None, help="Write the eval report JSON here.")
    group.addoption("--harness-epochs", type=int, default=1, help="Repeat every eval test N times.")
    group.addoption(
        "--harness-max-cost",
        type=float,
        default=None,
        metavar="USD",
        help="When recording, skip the remaining tests once the estimated spend (token usage "
        "x HARNESS_PRICES / shipped prices) reaches USD.",
    )
    group.addoption(
        "--harness-mutants",
        action="store_true",
        help="Run every recorded eval against mutants of its cassette's responses (served in "
        "order, offline) and report which ones it killed.",
    )


@dataclass(frozen=True, slots=True)
class HarnessOptions:
    """What the options say, with defaults resolved against the rootdir."""

    record_mode: str
    provider: str | None
    model: str | None
    base_url: str | None
    cassette_dir: Path
    shapes_dir: Path
    fixtures_dir: Path
    update_shapes: bool
    report: Path | None
    epochs: int
    rootdir: Path
    mutants: bool = False
    max_cost: float | None = None

    @classmethod
    def from_config(cls, config: pytest.Config) -> HarnessOptions:
        root = Path(str(config.rootpath))
        mode = config.getoption("record_mode", default="none") or "none"
        cassettes = config.getoption("harness_cassette_dir")
        report = config.getoption("harness_report")
        return cls(
            record_mode=str(mode),
            provider=config.getoption("harness_provider"),
            model=config.getoption("harness_model"),
            base_url=config.getoption("harness_base_url"),
            cassette_dir=Path(cassettes) if cassettes else root / "cassettes",
            shapes_dir=root / "evals" / "shapes",
            fixtures_dir=root / "fixtures",
            update_shapes=bool(config.getoption("update_shapes")),
            report=Path(report) if report else None,
            epochs=max(1, int(config.getoption("harness_epochs") or 1)),
            rootdir=root,
            mutants=bool(config.getoption("harness_mutants", default=False)),
            max_cost=config.getoption("harness_max_cost", default=None),
        )
