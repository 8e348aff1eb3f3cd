"""The fixtures for testing any agent: ``llm_cassette``, its config, and the live-call guard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.testing.naming import is_streaming
from harness.testing.options import HarnessOptions
from harness.testing.plugin.fixtures import OPTIONS_KEY
from harness.testing.plugin.misses import HANDLE_KEY, PROXY_MISS_KEY, REPORTED_KEY, already_reported
from harness.testing.rows.mutant_mode import mutant_id
from harness.testing.rows.runlog import RunLog
from harness.testing.rows.spend import LEDGER_KEY

__all__ = [
    "BLOCKED_KEY",
    "harness_live_guard",
    "llm_cassette",
    "llm_cassette_config",
    "llm_proxy",
    "llm_source",
    "rewrite_blocked_report",
]

BLOCKED_KEY = pytest.StashKey[list[Exception]]()
_REPORTED_KEY = pytest.StashKey[bool]()


@pytest.fixture
def llm_cassette_config() -> dict[str, Any]:
    """Settings of every ``llm_cassette`` in scope; override it like pytest-recording's
    ``vcr_config`` (keys: profile, ignore_body_fields, ignore_query_params,
    ignore_hosts, offline_hosts, allow_unplayed; normalize for ``llm_proxy``)."""
    return {}


@pytest.fixture
def llm_cassette(
    request: pytest.FixtureRequest,
    llm_cassette_config: dict[str, Any],
    harness_options: HarnessOptions,
    harness_run_log: RunLog,
) -> Iterator[Any]:
    """A per-test cassette around any agent code: ``base_url(p)``, ``openai()``, ...

    Its path is ``<cassette dir>/<model>/<test file>/<test name>.yaml``, the model
    (``llm_cassette.model``) being ``--harness-model``, else
    ``@pytest.mark.llm_cassette(model=...)``, else none (no ``<model>`` part); see
    :class:`harness.testing.LLMCassette` and ``harness.testing.cassettes.llm_paths``.
    """
    from harness.core.errors import CassetteError
    from harness.testing.cassettes.llm_cassette import LLMCassette, open_llm_cassette

    node = request.node
    cassette, target, allow, responder = _prepare(
        request, llm_cassette_config, harness_options, harness_run_log, LLMCassette
    )
    if cassette.config.normalize:
        raise pytest.UsageError(
            "llm_cassette normalize= rewrites what an agent in another process sent; it "
            "applies to llm_proxy (in process, use ignore_body_fields)"
        )
    try:
        with open_llm_cassette(
            cassette,
            allow_unplayed=allow or responder is not None,
            rerecord_hint=_rerecord_hint(node, harness_options),
            save_error_responses=harness_options.record_errors,
            responder=responder,
        ) as opened:
            node.stash[HANDLE_KEY] = opened.handle
            yield opened
    except CassetteError as exc:
        # The miss already failed the test (with its diff): no second report.
        if not already_reported(node, exc):
            raise
    finally:
        if responder is None and cassette.opened:
            # After the cassette closed: decoding the responses runs the SDKs over a
            # mock transport, which vcrpy would intercept while it is patched.
            _note_traffic(request, harness_run_log, cassette)
    _finish(request, harness_run_log, cassette, target.model, responder is not None)


@pytest.fixture
def llm_proxy(
    request: pytest.FixtureRequest,
    llm_cassette_config: dict[str, Any],
    harness_options: HarnessOptions,
    harness_run_log: RunLog,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Any]:
    """A ``harness proxy`` process on this test's cassette, for an agent in another process:
    ``env`` (its environment), ``base_url(wire)``, ``run(argv)`` and ``popen(argv)`` (which
    contain the agent in an eval test); stopped (and saved) at teardown.

    The cassette is the one ``llm_cassette`` would open (same path rules, record
    modes, epochs, settings); see :class:`harness.testing.LLMProxy`.
    """
    from harness.core.errors import CassetteError
    from harness.proxy import ProxySpec
    from harness.testing.cassettes.llm_proxy import LLMProxy, ProxyProcess, live_upstreams

    node = request.node
    folder = tmp_path_factory.mktemp("llm-proxy")
    proxy, target, allow, responder = _prepare(
        request,
        llm_cassette_config,
        harness_options,
        harness_run_log,
        LLMProxy,
        log_path=folder / "proxy.log",
        containment=_containment(node, harness_options),
        relay_dir=folder,
    )
    config = proxy.config
    mid = mutant_id(node) if responder is not None else None
    upstreams: dict[str, str] = {}
    if harness_options.record_mode != "none" and mid is None:
        base = harness_options.base_url
        upstreams = {"*": base} if base else live_upstreams()
    spec = ProxySpec(
        cassette=proxy.path,
        record_mode="none" if mid is not None else harness_options.record_mode,
        upstreams=upstreams,
        profiles=tuple(p for p in config.profiles if p in _proxy_profiles()),
        ignore_body_fields=config.ignore_body_fields,
        ignore_query_params=config.ignore_query_params,
        normalize=config.normalize,
        allow_unplayed=allow or mid is not None,
        save_error_responses=harness_options.record_errors,
        rerecord_hint=_rerecord_hint(node, harness_options),
        mutant=mid,
    )
    spec_path = folder / "spec.json"
    spec_path.write_text(spec.model_dump_json(), "utf-8")
    process = proxy.process = ProxyProcess(spec_path, proxy.log_path)
    try:
        proxy.url = process.start()
    except CassetteError as exc:
        pytest.fail(str(exc), pytrace=False)
    node.stash[PROXY_MISS_KEY] = proxy.miss
    try:
        yield proxy
    finally:
        proxy.final = process.stop()
        proxy.close_clients()
        if proxy.refusal is not None:
            _note_containment_off(request.config, proxy.refusal)
        _note_proxy_mutant(node, proxy.final)
        if responder is None and proxy.opened:
            _note_traffic(request, harness_run_log, proxy)
    failure = proxy.final.get("failure")
    if failure:
        raise CassetteError(f"llm_proxy: {failure}")
    miss = proxy.miss()
    if miss is not None and mid is None and node.stash.get(REPORTED_KEY, None) is not miss:
        # The agent swallowed the miss (a CLI that retried, logged, answered anyway).
        pytest.fail(str(miss), pytrace=False)
    _finish(request, harness_run_log, proxy, target.model, responder is not None)


def _containment(node: pytest.Item, options: HarnessOptions) -> str | None:
    """Why a child of ``llm_proxy`` must reach only the proxy, as the live guard decides
    for the test's own process; None in a ``live`` test or where calls are not guarded."""
    if node.get_closest_marker("live") is not None:
        return None
    if options.block_live:
        return "--harness-block-live"
    return "an eval test" if node.get_closest_marker("eval") is not None else None


class _ContainmentOff:
    """Says once, at the end of the run, why ``llm_proxy`` children ran uncontained.

    Under xdist the children run on workers, whose terminal nobody sees: each
    worker hands its reasons to the controller (``workeroutput``), which says them.
    """

    def __init__(self) -> None:
        self.reasons: dict[str, None] = {}  # ordered, each once

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = getattr(session.config, "workeroutput", None)
        if output is not None:
            output[_CONTAINMENT_OFF] = list(self.reasons)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        for reason in getattr(node, "workeroutput", {}).get(_CONTAINMENT_OFF, ()):
            self.reasons.setdefault(reason)

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        for reason in self.reasons:
            terminalreporter.write_line(
                f"harness: {reason}; llm_proxy ran its children uncontained"
            )


_CONTAINMENT_OFF = "harness-llm-proxy-containment-off"


def watch_containment(config: pytest.Config) -> None:
    """Register the end-of-run note (the plugin's configure: the controller too)."""
    if config.pluginmanager.get_plugin(_CONTAINMENT_OFF) is None:
        config.pluginmanager.register(_ContainmentOff(), _CONTAINMENT_OFF)


def _note_containment_off(config: pytest.Config, reason: str) -> None:
    watch_containment(config)
    note = config.pluginmanager.get_plugin(_CONTAINMENT_OFF)
    assert isinstance(note, _ContainmentOff)
    note.reasons.setdefault(reason)


def _proxy_profiles() -> frozenset[str]:
    from harness.proxy import PROFILES

    return frozenset(PROFILES)


def _note_proxy_mutant(node: pytest.Item, final: dict[str, Any]) -> None:
    """Tell the mutant's outcome what the proxy's process saw: served, ran out."""
    from harness.testing.rows.mutant_mode import STATE_KEY

    state = node.stash.get(STATE_KEY, None)
    if state is None:
        return
    exchanges = final.get("exchanges", [])
    state.provider.served = max(state.provider.served, len(exchanges))
    if any(e.get("type") == "HttpMutantExhaustedError" for e in final.get("errors", [])):
        state.provider.exhausted = True


def _prepare(
    request: pytest.FixtureRequest,
    fixture_config: dict[str, Any],
    options: HarnessOptions,
    run_log: RunLog,
    cls: Any,
    **extra: Any,
) -> tuple[Any, Any, bool, Any]:
    """The settings, cassette path, fixture value and mutant responder of one test,
    and its eval row's first fields: ``llm_cassette``'s and ``llm_proxy``'s alike.

    Returns ``(value, target, allow_unplayed, responder)``.
    """
    from harness.core.errors import ConfigurationError
    from harness.testing.cassettes.llm_config import resolve_config
    from harness.testing.cassettes.llm_paths import PATH_NOTES_KEY, legacy_note, resolve_llm_target

    node = request.node
    marker = node.get_closest_marker("llm_cassette")
    if marker is not None and marker.args:
        raise pytest.UsageError(
            f"@pytest.mark.llm_cassette takes keyword settings only, got {marker.args!r}"
        )
    try:
        config = resolve_config(
            fixture_config,
            marker.kwargs if marker else None,
            query_params=options.ignore_query_params,
        )
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None
    target = resolve_llm_target(node, options)
    path = target.path
    if target.moved_to is not None:
        notes = request.config.stash.setdefault(PATH_NOTES_KEY, {})
        notes[legacy_note(target)] = None
    cassette = cls(
        path,
        options.record_mode,
        stream=is_streaming(node),
        simulator_url=options.base_url,
        config=config,
        model=target.model,
        **extra,
    )
    is_eval = node.get_closest_marker("eval") is not None
    responder = _mutant_responder(node, options, run_log, path)
    allow = config.allow_unplayed if config.allow_unplayed is not None else not is_eval
    run_log.cassette = path.name
    run_log.cassette_path, run_log.rootdir = path, options.rootdir
    run_log.traffic_trace = cassette.trace
    # What the run asked for, until its traffic says what it used: a cassette that
    # never opens, or a recording that saved nothing, must not read as a scripted row.
    run_log.provider = options.provider or "unknown"
    run_log.model = options.model or "unknown"
    run_log.recording = options.record_mode != "none"
    return cassette, target, allow, responder


def _finish(
    request: pytest.FixtureRequest, run_log: RunLog, cassette: Any, model: str | None, mutant: bool
) -> None:
    """The row's source once the cassette closed, and a note on a model the test ignored."""
    from harness.testing.cassettes.llm_paths import PATH_NOTES_KEY, other_model_note

    if mutant:
        return
    # Read after the cassette closed: a recording has been saved by now, and a
    # replay's source is where it was recorded.
    run_log.source = llm_source(cassette.path)
    other = other_model_note(cassette.path, model or "", run_log.model or "")
    if model and other is not None:
        request.config.stash.setdefault(PATH_NOTES_KEY, {})[other] = None


def _mutant_responder(
    node: pytest.Item, options: HarnessOptions, run_log: RunLog, path: Path
) -> Any:
    if not options.mutants or mutant_id(node) is None:
        return None
    from harness.evals.provenance import cassette_source
    from harness.testing.cassettes.tool_traffic import TOOL_REPLAY_KEY
    from harness.testing.rows.mutant_mode import STATE_KEY, MutantState

    mid = str(mutant_id(node))
    responder, (order, mutant, positional, tools) = mutant_responder(path, mid)
    source = cassette_source(path)
    node.stash[STATE_KEY] = MutantState(
        mid, mutant.operator, order, mutant.description, positional, source, "recorded"
    )
    run_log.source = source
    node.stash[TOOL_REPLAY_KEY] = tools
    return responder


def mutant_responder(path: Path, mid: str) -> tuple[Any, tuple[int, Any, Any, Any]]:
    """The responder serving mutant ``mid`` of the cassette at ``path``, and its parts
    (its order among the cassette's mutants, the mutant, its positional provider and
    the tool-traffic replay); ``llm_cassette`` and ``llm_proxy``'s process share it.

    Raises:
        ConfigurationError: the cassette has no such mutant.
        CassetteError: the cassette cannot give mutants.
    """
    from harness.core.errors import ConfigurationError
    from harness.evals.mutants import cassette_mutants, serving
    from harness.testing.cassettes.tool_traffic import ToolTrafficReplay, chain_responders
    from harness.testing.rows.http_mutants import HttpMutantResponder, cassette_api

    api = cassette_api(path)
    mutants = cassette_mutants(path, api)
    chosen = next(((i, m) for i, m in enumerate(mutants) if m.id == mid), None)
    if chosen is None:
        raise ConfigurationError(f"cassette {path} has no mutant {mid}; was it re-recorded?")
    order, mutant = chosen
    positional = serving(mutant, api, None, path)  # a request mutant rewrites what is posted
    # Tool traffic (a tool's own HTTP) is answered loosely: a mutated argument is no miss.
    tools = ToolTrafficReplay(path)
    responder = chain_responders(HttpMutantResponder(positional), tools)
    return responder, (order, mutant, positional, tools)


def _note_traffic(request: pytest.FixtureRequest, run_log: RunLog, cassette: Any) -> None:
    """The eval row's provider, model, tokens and calls, from what went over the wire."""
    from harness.testing.rows.traffic_rows import summarize_traffic

    summary = summarize_traffic(cassette.exchanges())
    fields = run_log.traffic = summary.row_fields()
    if summary.llm_calls == 0 and run_log.recording_failed():
        # Nothing saved, so nothing shows what was used: keep what was asked for.
        fields["provider"], fields["model"] = run_log.provider, run_log.model
    run_log.provider, run_log.model = fields["provider"], fields["model"]
    ledger = request.config.stash.get(LEDGER_KEY, None)
    if ledger is not None and not cassette.replaying:
        for model, usage in summary.usage_by_model:
            ledger.add(model, usage)


def llm_source(path: Path) -> str:
    """Where the cassette at ``path`` was recorded (read after it closed)."""
    from harness.core.errors import CassetteError
    from harness.evals.provenance import cassette_source

    try:
        return cassette_source(path).value
    except CassetteError:
        return "unknown"


def _rerecord_hint(node: pytest.Item, options: HarnessOptions) -> str:
    """The command that re-records this test's cassette at the same path: every
    option that chose the path (model, cassette dir, stream, epochs) kept."""
    from harness.testing.plugin.hints import path_flags

    parts = [f"pytest {node.nodeid!r} --record-mode={{mode}}", *path_flags(options)]
    if options.base_url:
        parts.append(f"--harness-base-url={options.base_url}")
    return " ".join(parts)


@pytest.fixture(autouse=True)
def harness_live_guard(request: pytest.FixtureRequest) -> Iterator[None]:
    """In ``eval`` tests (everywhere with ``--harness-block-live``) a model API call that
    no cassette answers fails the test."""
    node = request.node
    options = request.config.stash[OPTIONS_KEY]
    if node.get_closest_marker("live") is not None:
        yield  # a live test talks to the API on purpose
        return
    if options.block_live:
        why = "--harness-block-live"
    elif node.get_closest_marker("eval") is not None:
        why = "an eval test"
    else:
        yield
        return
    from harness.testing.cassettes.live_guard import guard_live_calls

    blocked = node.stash.setdefault(BLOCKED_KEY, [])
    with guard_live_calls(why, blocked.append):
        yield
    if blocked and not node.stash.get(_REPORTED_KEY, False):
        # The agent swallowed the error (a framework retried, logged, answered anyway).
        pytest.fail(str(blocked[0]), pytrace=False)


def rewrite_blocked_report(item: pytest.Item, report: pytest.TestReport) -> None:
    """A phase that failed after a blocked live call reports just that call's error."""
    blocked = item.stash.get(BLOCKED_KEY, None)
    if not blocked or not report.failed or item.stash.get(_REPORTED_KEY, False):
        return
    report.longrepr = str(blocked[0])
    item.stash[_REPORTED_KEY] = True
