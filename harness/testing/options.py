"""The plugin's command-line options, read once into a typed value."""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.core.wires import runtime_wires
from harness.settings import env_value

__all__ = ["RECORD_MODES", "STREAM_CHOICES", "HarnessOptions", "add_options"]

RECORD_MODES = ("none", "once", "new_episodes", "all", "rewrite")
STREAM_CHOICES = ("off", "on", "both")
TOOLS_CHOICES = ("replay", "live")
PROVIDER_CHOICES = ("scripted", *(w.name for w in runtime_wires()))  # the registry's


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
        "--update-shapes",
        action="store_true",
        help="Rewrite golden trace shapes from this run, without syrupy (deprecated: with "
        "syrupy installed, use --snapshot-update).",
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
        "--harness-ignore-query-params",
        default=None,
        help="Comma-separated query parameters that cassette matching ignores (e.g. "
        "beta,api-version); ini key harness_ignore_query_params.",
    )
    parser.addini(
        "harness_ignore_query_params",
        "Query parameters cassette matching ignores (comma- or line-separated).",
        type="linelist",
        default=[],
    )
    group.addoption(
        "--record-errors",
        action="store_true",
        help="Also save 4xx/5xx answers while recording (by default a failed live call is "
        "not written to the cassette).",
    )
    group.addoption(
        "--harness-stream",
        choices=STREAM_CHOICES,
        default=None,
        help="Recorded providers stream (SSE): off (default), on, or both (every provider "
        "eval runs twice, the streaming run with its own '-stream' cassette); ini key "
        "harness_stream.",
    )
    parser.addini("harness_stream", "Default of --harness-stream (off, on or both).", default="off")
    group.addoption(
        "--harness-mutants",
        action="store_true",
        help="Run every recorded eval against mutants of its cassette's responses (served in "
        "order, offline) and report which ones it killed.",
    )
    group.addoption(
        "--harness-cases",
        default=None,
        metavar="DIR",
        help="Folder of case files (*.yaml) the cases eval runs (default: the harness_cases "
        "ini value, else <rootdir>/evals/cases).",
    )
    parser.addini("harness_cases", "Folder of case files, relative to the rootdir.", default="")
    group.addoption(
        "--harness-block-live",
        action="store_true",
        help="Fail any test whose code calls a model API host that no cassette answers "
        "(eval tests always do).",
    )
    group.addoption(
        "--harness-tools",
        choices=TOOLS_CHOICES,
        default="replay",
        help="replay (default): MCP servers answer from their cassettes; live: run the real "
        "MCP servers and builtin tools against the replayed model and fail a test on the first "
        "tool result that differs from the recording, naming the tool.",
    )
    group.addoption(
        "--harness-judge-model",
        default=None,
        help="Model the recorded judge of case files asks (default: $HARNESS_JUDGE_MODEL, "
        "else the run's model).",
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
    ignore_query_params: tuple[str, ...] = ()
    record_errors: bool = False
    stream: str = "off"
    cases_dir: Path | None = None
    judge_model: str | None = None
    block_live: bool = False
    tools: str = "replay"

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
            base_url=_base_url(config),
            cassette_dir=Path(cassettes) if cassettes else root / "cassettes",
            shapes_dir=root / "evals" / "shapes",
            fixtures_dir=root / "fixtures",
            update_shapes=bool(config.getoption("update_shapes")),
            report=Path(report) if report else None,
            epochs=max(1, int(config.getoption("harness_epochs") or 1)),
            rootdir=root,
            mutants=bool(config.getoption("harness_mutants", default=False)),
            max_cost=config.getoption("harness_max_cost", default=None),
            ignore_query_params=_ignored_query_params(config),
            record_errors=bool(config.getoption("record_errors", default=False)),
            stream=_stream_mode(config),
            cases_dir=_cases_dir(config, root),
            judge_model=config.getoption("harness_judge_model", default=None)
            or env_value("judge_model")
            or None,
            block_live=bool(config.getoption("harness_block_live", default=False)),
            tools=_tools_mode(config, str(mode)),
        )


def _ignored_query_params(config: pytest.Config) -> tuple[str, ...]:
    given = config.getoption("harness_ignore_query_params", default=None)
    values = [given] if given is not None else list(config.getini("harness_ignore_query_params"))
    names = (name.strip() for value in values for name in str(value).split(","))
    return tuple(dict.fromkeys(name for name in names if name))


def _base_url(config: pytest.Config) -> str | None:
    # Checked here: without its scheme the SDK reads the URL as a path, and a
    # recording then ends 300 lines later in an APIConnectionError.
    from harness.core.urls import base_url_problem

    given = config.getoption("harness_base_url")
    if not given or not str(given).strip():
        return None
    problem = base_url_problem("--harness-base-url", str(given))
    if problem is not None:
        raise pytest.UsageError(problem)
    return str(given).strip()


def _tools_mode(config: pytest.Config, record_mode: str) -> str:
    tools = str(config.getoption("harness_tools", default="replay") or "replay")
    if tools == "live" and config.getoption("harness_mutants", default=False):
        raise pytest.UsageError(
            "--harness-tools live compares tool results with the recording; a mutant's "
            "answers are not the recording: drop --harness-mutants (or --harness-tools live)"
        )
    if tools == "live" and record_mode != "none":
        # Recording runs every tool live already; this mode checks a replay against them.
        raise pytest.UsageError(
            f"--harness-tools live replays the model; it cannot run with --record-mode "
            f"{record_mode}: use --record-mode none"
        )
    return tools


def _stream_mode(config: pytest.Config) -> str:
    mode = config.getoption("harness_stream", default=None) or config.getini("harness_stream")
    mode = str(mode or "off").strip()
    if mode not in STREAM_CHOICES:
        raise pytest.UsageError(
            f"harness_stream = {mode!r} in the ini file; use one of {', '.join(STREAM_CHOICES)}"
        )
    return mode


def _cases_dir(config: pytest.Config, root: Path) -> Path:
    # Like any path option, a command-line folder is relative to where pytest ran;
    # the ini value is relative to the rootdir, as the default is.
    given = config.getoption("harness_cases", default=None)
    if given:
        return Path(config.invocation_params.dir) / str(given)
    configured = str(config.getini("harness_cases") or "")
    return root / configured if configured else root / "evals" / "cases"
