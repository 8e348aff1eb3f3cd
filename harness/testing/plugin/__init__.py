"""The harness pytest plugin (entry point ``harness``): glue only.

Options and markers are registered here; fixtures live in
``harness.testing.plugin.fixtures`` and logic in the modules they call. Importing this
module imports no SDK and no part of the runtime.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import TYPE_CHECKING

import pytest

from harness._speed.hooks import register_tweaks
from harness.testing.naming import STREAM_PARAM, epoch_of, scenario_name
from harness.testing.options import HarnessOptions, add_options
from harness.testing.plugin import folders, misses, tools_live
from harness.testing.plugin.case_fixtures import collect_case_runner, evidence
from harness.testing.plugin.fixtures import (
    OPTIONS_KEY,
    RUN_LOG_KEY,
    assert_trace_golden,
    harness_app,
    harness_options,
    harness_run_log,
    harness_settings,
    make_harness_app,
    mcp_cassette,
    provider,
    provider_name,
    scripted_provider,
    sim_server,
    trace,
    workspace,
)
from harness.testing.plugin.llm_fixtures import (
    harness_live_guard,
    llm_cassette,
    llm_cassette_config,
    llm_proxy,
    rewrite_blocked_report,
    watch_containment,
)
from harness.testing.plugin.rootdir import check_rootdir
from harness.testing.plugin.stream_twins import stream_runs
from harness.testing.row_properties import ROW_PROPERTY
from harness.testing.rows import mutant_mode, sequential
from harness.testing.rows.sequential import SEQUENTIAL_KEY, Sequential, stop_row
from harness.testing.rows.spend import LEDGER_KEY

if TYPE_CHECKING:
    from harness.evals.prices import PriceTable
    from harness.testing.rows.collector import EvalCollector

__all__ = [
    "assert_trace_golden",
    "evidence",
    "harness_app",
    "harness_live_guard",
    "harness_options",
    "harness_run_log",
    "harness_settings",
    "llm_cassette",
    "llm_cassette_config",
    "llm_proxy",
    "make_harness_app",
    "mcp_cassette",
    "provider",
    "provider_name",
    "scripted_provider",
    "sim_server",
    "trace",
    "workspace",
]

COLLECTOR_KEY = pytest.StashKey["EvalCollector"]()


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    add_options(parser, pluginmanager)
    sequential.add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "eval(name=None): a scenario eval; reported as a row of the eval report"
    )
    config.addinivalue_line(
        "markers", "live: talks to a real provider API; skipped without its API key"
    )
    check_rootdir(config)  # before any path is derived from the rootdir
    watch_containment(config)  # llm_proxy's "containment is off" line, from any worker
    config.addinivalue_line(
        "markers",
        "llm_cassette(profile=None, ignore_body_fields=(), ignore_query_params=(), "
        "ignore_hosts=(), allow_unplayed=None, normalize=None): settings of this test's "
        "llm_cassette or llm_proxy",
    )
    options = HarnessOptions.from_config(config)
    if options.mutants and getattr(config.option, "splits", None):
        # Each shard shuffles an eval's copies with a seed of its own, and the split
        # is by position: shards would share some copies and drop others.
        raise pytest.UsageError(
            "--harness-mutants cannot be sharded (--splits): every shard would order an "
            "eval's mutant copies differently; run the mutants on one machine (-n auto)"
        )
    if options.mutants and (
        options.update_shapes or getattr(config.option, "update_snapshots", False)
    ):
        flag = "--update-shapes" if options.update_shapes else "--snapshot-update"
        raise pytest.UsageError(
            f"--harness-mutants with {flag} would write mutant traces as golden "
            "shapes; run them separately"
        )
    if options.mutants and options.record_mode != "none":
        raise pytest.UsageError(
            f"--harness-mutants replays existing cassettes and records nothing; drop "
            f"--record-mode {options.record_mode}, or record first and mutate after"
        )
    if options.mutants and options.stream != "off":
        raise pytest.UsageError(
            "--harness-mutants serves mutants of the plain (non-streaming) cassettes; "
            "drop --harness-stream (or set harness_stream = off) for a mutant run"
        )
    config.stash[OPTIONS_KEY] = options
    _start_sequential(config, options)
    _start_budget(config, options)
    # mutants and epochs: for their summary tables
    wanted = options.report is not None or options.mutants or options.epochs > 1
    if wanted and not hasattr(config, "workerinput"):
        # Imported here: the report models cost about 0.1 s, paid by eval runs only.
        from harness.testing.rows.collector import EvalCollector

        config.stash[COLLECTOR_KEY] = EvalCollector(options.record_mode, _prices())
    register_tweaks(config, eval_run=wanted)


def _start_sequential(config: pytest.Config, options: HarnessOptions) -> None:
    rule = Sequential.from_config(config, options.epochs)
    if rule is None:
        return
    if options.mutants:
        raise pytest.UsageError(
            "--harness-sequential stops repeated epochs; --harness-mutants runs each mutant "
            "once: run them separately"
        )
    config.stash[SEQUENTIAL_KEY] = rule
    config.pluginmanager.register(_EpochOrder(rule), "harness-epoch-order")


def _start_budget(config: pytest.Config, options: HarnessOptions) -> None:
    if options.max_cost is None:
        return
    if options.max_cost <= 0:
        raise pytest.UsageError(f"--harness-max-cost must be above 0 USD, got {options.max_cost}")
    if options.record_mode == "none":
        return  # replay spends nothing
    from harness.testing.rows.spend import SpendLedger, run_id

    worker = getattr(config, "workerinput", {}).get("workerid", "main")
    ledger = SpendLedger.for_run(options.max_cost, _prices(), run_id(config), worker)
    config.stash[LEDGER_KEY] = ledger


def pytest_unconfigure(config: pytest.Config) -> None:
    ledger = config.stash.get(LEDGER_KEY, None)
    if ledger is not None and not hasattr(config, "workerinput"):
        ledger.remove()


def _prices() -> PriceTable:
    from harness.core.errors import ConfigurationError
    from harness.evals.prices import load_prices

    try:
        return load_prices()
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    options = metafunc.config.stash[OPTIONS_KEY]
    is_eval = metafunc.definition.get_closest_marker("eval") is not None
    if options.epochs > 1 and is_eval:
        metafunc.fixturenames.append("harness_epoch")
        # Numbered from 1, as the table, the page and the cassette names count them.
        epochs = range(1, options.epochs + 1)
        metafunc.parametrize("harness_epoch", epochs, ids=lambda n: f"epoch{n}")
    # Every recorded provider eval gets a streaming run (its own -stream cassette), or
    # the tests whose llm_cassette marker asks for one.
    values = stream_runs(metafunc, options)
    if values is not None:
        metafunc.fixturenames.append(STREAM_PARAM)
        metafunc.parametrize(
            STREAM_PARAM, values, ids=lambda stream: "stream" if stream else "plain"
        )


@pytest.hookimpl(tryfirst=True)  # before -m / -k deselect: they apply to the runner's items too
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    collect_case_runner(session, items)
    _deselect_other_providers(config, items)
    options = config.stash[OPTIONS_KEY]
    if options.mutants:
        mutant_mode.expand_items(items, config, options)


def _deselect_other_providers(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = config.stash[OPTIONS_KEY].provider
    if wanted is None:
        return
    keep: list[pytest.Item] = []
    drop: list[pytest.Item] = []
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        name = params.get("provider_name")
        (drop if name is not None and name != wanted else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(name="harness_epoch")
def _harness_epoch(request: pytest.FixtureRequest) -> int:
    """Which repetition of an eval this is (``--harness-epochs``), from 1."""
    return int(getattr(request, "param", 1))


@pytest.fixture(name=STREAM_PARAM)
def _harness_stream(request: pytest.FixtureRequest) -> bool:
    """Whether recorded providers stream in this run (``--harness-stream``)."""
    return bool(getattr(request, "param", False))


def pytest_runtest_setup(item: pytest.Item) -> None:
    not_mutated = item.stash.get(mutant_mode.SKIP_KEY, None)
    if not_mutated is not None:
        pytest.skip(f"not mutated: {not_mutated}")
    rule = item.config.stash.get(SEQUENTIAL_KEY, None)
    if rule is not None:
        rule.check(item)  # skips the epoch when its case's verdict is already certain
    ledger = item.config.stash.get(LEDGER_KEY, None)
    if ledger is not None and _may_record(item):
        over = ledger.exceeded()
        if over is not None:
            pytest.skip(over)
    if item.get_closest_marker("live") is None:
        return
    import os

    from harness.core.wires import runtime_wires

    # Any runtime wire's key: a live test picks its provider itself.
    keys = list(dict.fromkeys(key for w in runtime_wires() for key in w.key_env))
    if not any(os.environ.get(key) for key in keys):
        pytest.skip(f"live test: set {' or '.join(keys)} to run it")


def _may_record(item: pytest.Item) -> bool:
    # Apps reach the provider through getfixturevalue, so it is not always declared.
    declared = set(getattr(item, "fixturenames", ()))
    return item.get_closest_marker("eval") is not None or bool(declared & _RECORDING_FIXTURES)


_RECORDING_FIXTURES = frozenset(
    {"provider", "harness_app", "make_harness_app", "llm_cassette", "llm_proxy"}
)


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session, "exitstatus"):
        # pytester's getnode/getitems sessions never run, so pytest sets no exit
        # status; syrupy's session finish (which stores the goldens) adds to it.
        session.exitstatus = pytest.ExitCode.OK
    collector = session.config.stash.get(COLLECTOR_KEY, None)
    if collector is not None:
        session.config.pluginmanager.register(_ReportHook(collector), "harness-eval-collector")


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    collector = config.stash.get(COLLECTOR_KEY, None)
    options = config.stash[OPTIONS_KEY]
    if collector is not None and options.report is not None:
        collector.write(options.report)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    config = terminalreporter.config
    from harness.testing.cassettes.llm_paths import PATH_NOTES_KEY

    # llm_cassette paths: a cassette to move, a test that ignored its model.
    for note in config.stash.get(PATH_NOTES_KEY, {}):
        terminalreporter.write_line(note)
    ledger = config.stash.get(LEDGER_KEY, None)
    if ledger is not None:
        terminalreporter.write_line(
            f"harness: estimated recording spend ${ledger.total():.4f} of --harness-max-cost "
            f"${ledger.limit_usd:g} (at {ledger.prices.label}; simulator tokens are synthetic "
            "and priced only for this budget)"
        )
    collector = config.stash.get(COLLECTOR_KEY, None)
    options = config.stash[OPTIONS_KEY]
    # With --harness-report the tables go to the report (`harness eval` prints them
    # from there); a bare `pytest --harness-mutants` or `--harness-epochs N` shows them here.
    if collector is None or options.report is not None:
        return
    if options.epochs > 1 and not options.mutants:
        from harness.evals import render_pass_rates

        terminalreporter.write_sep("=", "harness pass rates")
        terminalreporter.write_line(render_pass_rates(collector.report()))
        return
    if not options.mutants:
        return
    from harness.evals import render_mutants

    terminalreporter.write_sep("=", "harness mutants")
    terminalreporter.write_line(
        "xfailed = killed (the eval failed), XPASS(strict) = survived (a request mutant's "
        "survivor is a plain XPASS); other failures are eval errors or a failed control"
    )
    terminalreporter.write_line(render_mutants(collector.report()))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    mutant_mode.name_report(report)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    if mutant_mode.mutant_id(item) is None:
        report = yield
    else:
        # Imported here: the mutant tables cost about 0.2 s, paid by --mutants runs only.
        from harness.testing.rows import mutant_outcome

        with mutant_outcome.brief_kill_report(item, call):
            report = yield
    folders.note_outcome(item, report)
    try:
        finished = _finish_report(item, call, report)
        rule = item.config.stash.get(SEQUENTIAL_KEY, None)
        if rule is not None:
            rule.note(item, finished)  # its outcome, for the later epochs of its case
        return finished
    finally:
        if report.when == "teardown":
            misses.forget_cassette(item)
            if RUN_LOG_KEY in item.stash:  # its runs' results: read by the call report only
                del item.stash[RUN_LOG_KEY]


def _finish_report(
    item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
) -> pytest.TestReport:
    if call.excinfo is not None and report.failed:
        misses.rewrite_miss_report(item, call, report)
        log = item.stash.get(RUN_LOG_KEY, None)
        stops = log.stop_errors() if log is not None and report.when == "call" else None
        if stops:
            report.sections.append(("harness runs that stopped with an error", stops))
        rewrite_blocked_report(item, report)
    tools_live.lead_with_divergence(item, report)  # --harness-tools live: the tool, first
    if mutant_mode.mutant_id(item) is not None:
        from harness.testing.rows import mutant_outcome

        # A mutant run is no eval row: it goes to the report's mutants section.
        mutant_outcome.note_phase(item, report.when, call)
        mutant_mode.judge_report(item, call, report)
        if report.when == "teardown":
            options = item.config.stash[OPTIONS_KEY]
            report.user_properties.append(mutant_outcome.result_property(item, options))
        return report
    # An eval that used no harness fixture (or was skipped before its fixtures
    # ran) still gets a row, so the report lists every eval.
    is_eval = item.get_closest_marker("eval") is not None
    stopped = stop_row(item)
    if report.when == "teardown" and is_eval and stopped is not None and not _has_row(report):
        # An epoch sequential stopping skipped: a row of its case, marked stopped.
        report.user_properties.append((ROW_PROPERTY, json.dumps(stopped)))
    if report.when == "teardown" and is_eval and not _has_row(report):
        epoch = epoch_of(item)
        # No provider is known to have run: the row names what the test asked for,
        # never "scripted" unless it asked for the scripted provider.
        provider, model = _asked_for(item)
        row = {
            "scenario": scenario_name(item),
            "epoch": None if epoch is None else epoch - 1,
            "provider": provider,
            "model": model,
            "source": "unknown",
        }
        report.user_properties.append((ROW_PROPERTY, json.dumps(row)))
    return report


def _asked_for(item: pytest.Item) -> tuple[str, str]:
    """The provider and model a test that made no row asked for: its ``provider_name``
    parameter, else the options; ``none`` when it asked for none (no harness fixture)."""
    options = item.config.stash[OPTIONS_KEY]
    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    fixtures = set(getattr(item, "fixturenames", ()))
    provider = params.get("provider_name") or options.provider
    if not isinstance(provider, str):
        if "provider" in fixtures:  # the provider fixture would have built the scripted one
            return "scripted", "scripted"
        return "none", options.model or "none"  # it asked for no model at all
    if provider == "scripted":
        return "scripted", "scripted"
    from harness.testing.cassettes.recorded import DEFAULT_MODELS

    return provider, options.model or DEFAULT_MODELS.get(provider, "unknown")


def _has_row(report: pytest.TestReport) -> bool:
    return any(name == ROW_PROPERTY for name, _ in report.user_properties)


class _EpochOrder:
    """With ``--harness-sequential``: each case's epochs one after another, in order."""

    def __init__(self, rule: Sequential) -> None:
        self.rule = rule

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        self.rule.order(items)


class _ReportHook:
    """Feeds test reports (from workers too, under xdist) to the collector."""

    def __init__(self, collector: EvalCollector) -> None:
        self.collector = collector

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.collector.on_report(report)
