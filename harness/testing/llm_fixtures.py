"""The fixtures for testing any agent: ``llm_cassette``, its config, and the live-call guard."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.testing.fixtures import OPTIONS_KEY
from harness.testing.misses import HANDLE_KEY, already_reported
from harness.testing.mutant_mode import mutant_id
from harness.testing.naming import is_streaming
from harness.testing.options import HarnessOptions
from harness.testing.runlog import RunLog
from harness.testing.spend import LEDGER_KEY

__all__ = [
    "BLOCKED_KEY",
    "harness_live_guard",
    "llm_cassette",
    "llm_cassette_config",
    "llm_source",
    "rewrite_blocked_report",
]

BLOCKED_KEY = pytest.StashKey[list[Exception]]()
_REPORTED_KEY = pytest.StashKey[bool]()


@pytest.fixture
def llm_cassette_config() -> dict[str, Any]:
    """Settings of every ``llm_cassette`` in scope; override it like pytest-recording's
    ``vcr_config`` (keys: profile, ignore_body_fields, ignore_query_params,
    ignore_hosts, offline_hosts, allow_unplayed)."""
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
    :class:`harness.testing.LLMCassette` and ``harness.testing.llm_paths``.
    """
    from harness.core.errors import CassetteError, ConfigurationError
    from harness.testing.llm_cassette import LLMCassette, open_llm_cassette
    from harness.testing.llm_config import resolve_config
    from harness.testing.llm_paths import (
        PATH_NOTES_KEY,
        legacy_note,
        other_model_note,
        resolve_llm_target,
    )

    node = request.node
    marker = node.get_closest_marker("llm_cassette")
    if marker is not None and marker.args:
        raise pytest.UsageError(
            f"@pytest.mark.llm_cassette takes keyword settings only, got {marker.args!r}"
        )
    try:
        config = resolve_config(
            llm_cassette_config,
            marker.kwargs if marker else None,
            query_params=harness_options.ignore_query_params,
        )
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None
    target = resolve_llm_target(node, harness_options)
    path = target.path
    if target.moved_to is not None:
        notes = request.config.stash.setdefault(PATH_NOTES_KEY, {})
        notes[legacy_note(target)] = None
    cassette = LLMCassette(
        path,
        harness_options.record_mode,
        stream=is_streaming(node),
        simulator_url=harness_options.base_url,
        config=config,
        model=target.model,
    )
    is_eval = node.get_closest_marker("eval") is not None
    responder = _mutant_responder(node, harness_options, harness_run_log, path)
    allow = config.allow_unplayed if config.allow_unplayed is not None else not is_eval
    harness_run_log.cassette = path.name
    harness_run_log.cassette_path, harness_run_log.rootdir = path, harness_options.rootdir
    harness_run_log.traffic_trace = cassette.trace
    # What the run asked for, until its traffic says what it used: a cassette that
    # never opens, or a recording that saved nothing, must not read as a scripted row.
    harness_run_log.provider = harness_options.provider or "unknown"
    harness_run_log.model = harness_options.model or "unknown"
    harness_run_log.recording = harness_options.record_mode != "none"
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
    if responder is None:
        # Read after the cassette closed: a recording has been saved by now, and a
        # replay's source is where it was recorded.
        harness_run_log.source = llm_source(path)
        other = other_model_note(path, target.model or "", harness_run_log.model or "")
        if target.model and other is not None:
            request.config.stash.setdefault(PATH_NOTES_KEY, {})[other] = None


def _mutant_responder(
    node: pytest.Item, options: HarnessOptions, run_log: RunLog, path: Path
) -> Any:
    if not options.mutants or mutant_id(node) is None:
        return None
    from harness.core.errors import ConfigurationError
    from harness.evals.mutants import cassette_mutants, serving
    from harness.evals.provenance import cassette_source
    from harness.testing.http_mutants import HttpMutantResponder, cassette_api
    from harness.testing.mutant_mode import STATE_KEY, MutantState
    from harness.testing.tool_traffic import TOOL_REPLAY_KEY, ToolTrafficReplay, chain_responders

    mid = mutant_id(node)
    api = cassette_api(path)
    mutants = cassette_mutants(path, api)
    chosen = next(((i, m) for i, m in enumerate(mutants) if m.id == mid), None)
    if chosen is None:
        raise ConfigurationError(f"cassette {path} has no mutant {mid}; was it re-recorded?")
    order, mutant = chosen
    positional = serving(mutant, api, None, path)  # a request mutant rewrites what is posted
    source = cassette_source(path)
    node.stash[STATE_KEY] = MutantState(
        str(mid), mutant.operator, order, mutant.description, positional, source, "recorded"
    )
    run_log.source = source
    # Tool traffic (a tool's own HTTP) is answered loosely: a mutated argument is no miss.
    tools = node.stash[TOOL_REPLAY_KEY] = ToolTrafficReplay(path)
    return chain_responders(HttpMutantResponder(positional), tools)


def _note_traffic(request: pytest.FixtureRequest, run_log: RunLog, cassette: Any) -> None:
    """The eval row's provider, model, tokens and calls, from what went over the wire."""
    from harness.testing.traffic_rows import summarize_traffic

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
    from harness.testing.hints import path_flags

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
    from harness.testing.live_guard import guard_live_calls

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
