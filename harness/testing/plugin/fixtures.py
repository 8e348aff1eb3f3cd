"""The plugin's fixtures. Heavy imports happen inside them, never at import time."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.testing.import_clock import ImportClock
from harness.testing.naming import (
    epoch_cassette,
    epoch_of,
    is_streaming,
    legacy_epoch_cassette,
    scenario_name,
    test_file,
    test_name,
)
from harness.testing.options import HarnessOptions
from harness.testing.plugin.folders import own_folder, release_folder
from harness.testing.plugin.misses import HANDLE_KEY, already_reported
from harness.testing.row_properties import ROW_PROPERTY
from harness.testing.rows.mutant_mode import mutant_id, serve_mutant
from harness.testing.rows.runlog import LastTrace, RunLog
from harness.testing.rows.spend import LEDGER_KEY
from harness.testing.rows.workspace import Workspace

if TYPE_CHECKING:
    from harness.app import Application
    from harness.providers import LLMProvider, ScriptedProvider
    from harness.recording import CassetteHandle
    from harness.simulator import SimulatorServer
    from harness.testing.cassettes.mcp_cassette import McpCassetteFixture

__all__ = [
    "assert_trace_golden",
    "harness_app",
    "harness_options",
    "harness_run_log",
    "harness_settings",
    "make_harness_app",
    "mcp_cassette",
    "provider",
    "provider_name",
    "scripted_provider",
    "sim_server",
    "trace",
    "workspace",
]

OPTIONS_KEY = pytest.StashKey[HarnessOptions]()
# The test's RunLog, for its failure report (why each run stopped).
RUN_LOG_KEY = pytest.StashKey[RunLog]()
# One per process: it runs only while an eval row's fixtures are up.
_IMPORT_CLOCK = ImportClock()


@pytest.fixture(scope="session")
def harness_options(pytestconfig: pytest.Config) -> HarnessOptions:
    """The harness command-line options, resolved."""
    return pytestconfig.stash[OPTIONS_KEY]


@pytest.fixture
def workspace(
    request: pytest.FixtureRequest, harness_options: HarnessOptions
) -> Iterator[Workspace]:
    """A fresh workdir with write/read/copy_fixture and sentinel helpers."""
    # The test's own folder, not tmp_path: see harness.testing.plugin.folders.
    yield Workspace(own_folder(request) / "workspace", harness_options.fixtures_dir)
    release_folder(request)


@pytest.fixture
def scripted_provider() -> Iterator[ScriptedProvider]:
    """A strict ScriptedProvider: add turns; unused turns fail the test at teardown."""
    from harness.providers import ScriptedProvider

    fake = ScriptedProvider()
    yield fake
    fake.assert_complete()


@pytest.fixture
def provider_name(harness_options: HarnessOptions) -> str:
    """Which provider ``provider`` builds; parametrise it to run a test per provider."""
    return harness_options.provider or "scripted"


@pytest.fixture
def harness_run_log(request: pytest.FixtureRequest) -> Iterator[RunLog]:
    """Every run the test's applications made; eval tests report it as a row."""
    log = RunLog()
    request.node.stash[RUN_LOG_KEY] = log
    node = request.node
    is_row = node.get_closest_marker("eval") is not None and mutant_id(node) is None
    if is_row:
        _IMPORT_CLOCK.start()
        began = _IMPORT_CLOCK.seconds
        log.import_s = lambda: _IMPORT_CLOCK.seconds - began
    try:
        yield log
    finally:
        if is_row:
            _IMPORT_CLOCK.stop()
    if is_row:
        epoch = epoch_of(node)
        # The report stores the repetition's index (from 0, as schema 3 defined it).
        index = None if epoch is None else epoch - 1
        row = {"scenario": scenario_name(node), **log.summary(), "epoch": index}
        node.user_properties.append((ROW_PROPERTY, json.dumps(row)))


@pytest.fixture
def provider(
    request: pytest.FixtureRequest,
    provider_name: str,
    harness_options: HarnessOptions,
    harness_run_log: RunLog,
) -> Iterator[LLMProvider]:
    """The scripted provider, or openai/anthropic through this test's cassette."""
    if harness_options.mutants and mutant_id(request.node) is not None:
        with serve_mutant(request.node, harness_options, harness_run_log) as served:
            yield served
        return
    if provider_name == "scripted":
        harness_run_log.source = "scripted"
        yield request.getfixturevalue("scripted_provider")
        return
    from harness.core.errors import CassetteError
    from harness.testing.cassettes.recorded import DEFAULT_MODELS, cassette_path

    model = harness_options.model or DEFAULT_MODELS.get(provider_name, provider_name)
    node = request.node
    stream = is_streaming(node)
    relative = test_file(Path(str(node.path)), harness_options.rootdir)
    name = test_name(node) + ("-stream" if stream else "")
    path = cassette_path(harness_options.cassette_dir, provider_name, model, relative, name)
    # Recording writes every epoch its own cassette; a replay serves an epoch its
    # own when one was recorded, else the single recording (the row names which).
    own = epoch_cassette(path, epoch_of(node))
    legacy = legacy_epoch_cassette(path, epoch_of(node))
    if harness_options.record_mode != "none" or own.exists():
        path = own
    elif legacy is not None and legacy.exists():
        path = legacy  # recorded before epochs counted from 1
    harness_run_log.cassette = path.name
    harness_run_log.cassette_path, harness_run_log.rootdir = path, harness_options.rootdir
    harness_run_log.provider, harness_run_log.model = provider_name, model
    harness_run_log.recording = harness_options.record_mode != "none"
    ledger = request.config.stash.get(LEDGER_KEY, None)
    if ledger is not None:
        ledger.check_price(model)
    try:
        yield from _recorded(request, path, provider_name, model, stream, harness_options)
    except CassetteError as exc:
        # The miss already failed the test (with its diff); raising it again here
        # would report the same miss a second time, as a teardown error.
        if not already_reported(node, exc):
            raise
    # Read after the cassette closed: a recording run has saved it by now, and a
    # replay's source is where it was recorded, not "replay".
    harness_run_log.source = _source_of(path, node.stash.get(HANDLE_KEY, None))
    if ledger is not None:
        ledger.add(model, harness_run_log.usage())


def _recorded(
    request: pytest.FixtureRequest,
    path: Path,
    provider_name: str,
    model: str,
    stream: bool,
    harness_options: HarnessOptions,
) -> Iterator[LLMProvider]:
    from harness.testing.cassettes.recorded import recorded_provider

    node = request.node
    with recorded_provider(
        provider_name,
        model=model,
        cassette=path,
        record_mode=harness_options.record_mode,
        base_url=harness_options.base_url,
        # Made only when a miss shows it: it reads the cassette's header.
        rerecord_hint=functools.partial(_rerecord_hint, node, path, provider_name, harness_options),
        allow_unplayed=node.get_closest_marker("eval") is None,
        ignore_query_params=harness_options.ignore_query_params,
        save_error_responses=harness_options.record_errors,
        stream=stream,
    ) as recorded:
        node.stash[HANDLE_KEY] = recorded.handle
        yield recorded.provider


def _rerecord_hint(node: pytest.Item, path: Path, provider: str, options: HarnessOptions) -> str:
    """The command that re-records this test's cassette, as it was recorded.

    Built when a miss shows it, from the cassette's ``harness:`` header only.
    """
    from harness.testing.plugin.hints import path_flags

    parts = [f"pytest {node.nodeid!r} --record-mode={{mode}} --harness-provider={provider}"]
    parts += path_flags(options)  # model, cassette dir, stream, epochs: the same path
    if options.base_url:
        parts.append(f"--harness-base-url={options.base_url}")
        return " ".join(parts)
    header = _cassette_header(path)
    against = header.get("recorded_against") if header is not None else None
    if header is not None:
        from harness.evals.provenance import source_of_recording

        simulated = source_of_recording(against if isinstance(against, str) else None)
        simulator = simulated.value == "simulator"
    else:  # no harness block (a plain vcrpy file, or none yet): its hosts decide
        simulator = _source_of(path) == "simulator"
    if simulator:
        # The address it was recorded against, not a guess: the re-record must reach
        # a simulator on that port (8765 only when nothing says otherwise).
        where = _recorded_address(against) or "127.0.0.1:8765"
        port = where.rpartition(":")[2] if ":" in where else "8765"
        parts.append(
            f"--harness-base-url=http://{where} (it was recorded against the harness "
            f"simulator: run `harness sim serve --script <its script> --port {port}` first)"
        )
    return " ".join(parts)


# harness writes its block first; a header longer than this is read whole.
_HEADER_BYTES = 16 * 1024


def _cassette_header(path: Path) -> dict[str, Any] | None:
    """The cassette's ``harness:`` block, or None (no file, no block, unreadable)."""
    import yaml

    from harness.recording import METADATA_KEY
    from harness.yamlload import load_yaml

    try:
        if path.suffix == ".json":
            data = json.loads(path.read_text("utf-8"))
        else:
            with path.open("rb") as file:
                head = file.read(_HEADER_BYTES).decode("utf-8", "replace")
            text, found, _ = head.partition("\ninteractions:")
            if not found:
                text = path.read_text("utf-8").partition("\ninteractions:")[0]
            data = load_yaml(text, source=str(path))
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError):
        return None
    header = data.get(METADATA_KEY) if isinstance(data, dict) else None
    return header if isinstance(header, dict) else None


def _recorded_address(against: object) -> str | None:
    """``host:port`` of a ``recorded_against`` value (its first host), or None."""
    if not isinstance(against, str):
        return None
    first = against.removesuffix("(harness simulator)").split(",")[0].strip()
    return first or None


def _source_of(path: Path, handle: CassetteHandle | None = None) -> str:
    """Where the cassette's answers came from.

    After a session, the ``harness:`` block the cassette layer parsed (or saved)
    decides; only a plain vcrpy file, which has none, is read for its hosts.
    """
    from harness.core.errors import CassetteError
    from harness.evals.provenance import cassette_source, source_of_recording

    metadata = handle.metadata if handle is not None else None
    if metadata is not None:
        return source_of_recording(metadata.recorded_against).value
    try:
        return cassette_source(path).value
    except CassetteError:
        return "unknown"  # the run itself already failed on the unreadable cassette


@pytest.fixture
def harness_settings(
    request: pytest.FixtureRequest, workspace: Workspace
) -> Iterator[dict[str, Any]]:
    """Settings for ``harness_app``; override this fixture, or pass overrides to
    ``make_harness_app``."""
    # Beside the workspace in the test's own folder (whatever folder an overridden
    # ``workspace`` chose: state never goes into it).
    state = own_folder(request) / "state"
    # Made here, as harness makes it (0700), so that building the app need not
    # prove a folder can be made there (a probe folder made and removed: 0.8 ms
    # on a small VM's disk, every test).
    state.mkdir(mode=0o700, exist_ok=True)
    yield {"workdir": workspace.root, "state_dir": state, "trace_mode": "metadata"}
    release_folder(request)  # when ``workspace`` is the caller's own


@pytest.fixture
def make_harness_app(
    request: pytest.FixtureRequest,
    harness_settings: dict[str, Any],
    harness_run_log: RunLog,
    provider_name: str,
) -> Iterator[Callable[..., Application]]:
    """Build applications on the workspace: ``make_harness_app(enabled_tools=(...))``."""
    from harness import Settings, build_application
    from harness.providers import FunctionProvider, RequestLoggingProvider, ScriptedProvider

    del provider_name  # declared so that parametrising it reaches `provider`
    built: list[Application] = []
    # Each test signs its approvals with a key of its own and keeps its own ledger of
    # decided ids, under its tmp dir: a test suite never writes into the user's
    # ~/.local/state, and no test sees another's decisions.
    state_home = _private_state_home(request.getfixturevalue("tmp_path_factory"))
    request.getfixturevalue("monkeypatch").setenv("XDG_STATE_HOME", str(state_home))

    def make(
        *,
        provider: LLMProvider | None = None,
        tools: Any = (),
        mcp_servers: Any = None,
        **overrides: Any,
    ) -> Application:
        chosen = provider if provider is not None else request.getfixturevalue("provider")
        if provider is not None:  # the test brought its own: only fakes are known to be scripted
            fake = isinstance(provider, ScriptedProvider | FunctionProvider)
            harness_run_log.source = "scripted" if fake else "unknown"
        if not isinstance(chosen, ScriptedProvider):
            chosen = RequestLoggingProvider(chosen)  # so tests can see what was sent
        settings = Settings(**{**harness_settings, **overrides})
        servers = _mcp_servers(request, mcp_servers or settings.mcp_servers, harness_run_log)
        app = build_application(settings, provider=chosen, tools=tools, mcp_servers=servers)
        app.observers.append(harness_run_log.observe)
        if request.getfixturevalue("harness_options").tools == "live":
            from harness.testing.plugin.tools_live import watch_app

            watch_app(request.node, app, chosen, harness_run_log.cassette_path)
        built.append(app)
        return app

    yield make
    for app in built:
        app.close()
    if _mutated(request.node):
        return  # a mutant's changed call misses the MCP cassette; the eval judged its answer
    for app in built:
        if app.mcp is not None:
            app.mcp.check_misses()  # a replayed MCP request no cassette answers fails the test


def _mcp_servers(request: pytest.FixtureRequest, value: Any, log: RunLog) -> Any:
    """``value`` bound to the test's next MCP cassette (None when it names no server)."""
    if value is None:
        return None
    from harness.testing.cassettes.mcp_recording import mcp_cassette_for, recorded_mcp_servers

    node = request.node
    index = node.stash.get(_MCP_COUNT_KEY, 0) + 1
    node.stash[_MCP_COUNT_KEY] = index
    options = request.getfixturevalue("harness_options")
    cassette = mcp_cassette_for(node, options, log.cassette_path, index)
    if options.mutants:  # a tool-result mutant changes one result of one of the cassettes
        from harness.testing.rows.mcp_mutants import served_mcp_cassette

        first = mcp_cassette_for(node, options, log.cassette_path, 1)
        cassette = served_mcp_cassette(request, options, first, index)
    return recorded_mcp_servers(value, cassette, options)


_MCP_COUNT_KEY = pytest.StashKey[int]()


def _mutated(node: pytest.Item) -> bool:
    """Whether this copy of an eval serves a mutant (not the control, not a plain run)."""
    from harness.evals.mutant_results import CONTROL

    return mutant_id(node) not in (None, CONTROL)


def _private_state_home(factory: pytest.TempPathFactory) -> Path:
    """A fresh path outside the test's tmp_path (a test may make all of that its workdir).

    ``mktemp`` at the base temp folder lists that folder to number the new one, so
    with a row per test a suite of N rows paid O(N) per row (2 ms at 1,000 rows);
    a random name in one shared sub-folder costs the same at any size. The folder
    itself is not made: most tests never write there, a ``mkdir`` costs 0.3 ms on a
    small VM's disk, and whatever writes there makes it (as it would ``~/.local/state``).
    Nobody else can take the name first: pytest's base temp folder is the user's own (0700).
    """
    import secrets

    shared = factory.getbasetemp() / "harness-xdg-state"
    shared.mkdir(mode=0o700, exist_ok=True)
    return shared / f"xdg-state-{secrets.token_hex(8)}"


@pytest.fixture
def mcp_cassette(
    request: pytest.FixtureRequest, harness_options: HarnessOptions, harness_run_log: RunLog
) -> Iterator[McpCassetteFixture]:
    """Stand-ins for the MCP servers an agent starts: ``command()``, ``url()``, ``servers()``."""
    from harness.core.errors import CassetteError
    from harness.testing.cassettes.mcp_cassette import McpCassetteFixture
    from harness.testing.cassettes.mcp_recording import (
        fixture_mcp_cassette,
        old_fixture_mcp_cassette,
    )

    node = request.node
    path = fixture_mcp_cassette(node, harness_options)
    moved_from = old_fixture_mcp_cassette(node, harness_options, path)
    if harness_options.mutants and path.is_file():  # a tool-result mutant serves a changed copy
        from harness.testing.rows.mcp_mutants import served_mcp_cassette

        path = served_mcp_cassette(request, harness_options, path)
    live = harness_options.tools == "live"
    fixture = McpCassetteFixture(
        path, harness_options.record_mode, live=live, moved_from=moved_from
    )
    if live:  # the first live answer unlike its recording fails the test, named
        from harness.testing.plugin.tools_live import watch_stand_ins

        watch_stand_ins(node, fixture.changes)
    yield fixture
    if harness_run_log.traffic_trace is not None:  # an llm_cassette test: mark its MCP calls
        from harness.testing.cassettes.mcp_traffic import with_mcp_calls

        harness_run_log.traffic_trace = with_mcp_calls(harness_run_log.traffic_trace, fixture.tapes)
    try:
        try:
            fixture.close()
        except CassetteError:
            # A mutant's changed call misses the cassette: the agent got the miss as an
            # error answer and the eval judged it; only a real replay fails on a miss.
            if not _mutated(node):
                raise
    finally:
        for server, count in fixture.calls.items():  # the row's calls by server
            harness_run_log.mcp_calls[server] = harness_run_log.mcp_calls.get(server, 0) + count


@pytest.fixture
def harness_app(make_harness_app: Callable[..., Application]) -> Application:
    """An Application on the workspace with a temporary state dir and tracing on."""
    return make_harness_app()


@pytest.fixture
def trace(harness_run_log: RunLog) -> LastTrace:
    """The trace of the latest run in this test (loaded when used)."""
    return LastTrace(harness_run_log)


@pytest.fixture
def assert_trace_golden(
    request: pytest.FixtureRequest, harness_options: HarnessOptions, harness_run_log: RunLog
) -> Callable[..., None]:
    """``assert_trace_golden(trace, name=None)`` against evals/shapes/<provider>/<model>/.

    With syrupy's plugin active, syrupy stores the golden (``--snapshot-update``
    writes it); without syrupy, the outline file is compared directly.
    """
    from harness.testing.assertions import trace_assertions
    from harness.testing.cassettes.recorded import shape_path

    use_syrupy = _syrupy_active(request.config) and not harness_options.update_shapes

    def check(tree: Any, name: str | None = None) -> None:
        path = shape_path(
            harness_options.shapes_dir,
            harness_run_log.provider,
            harness_run_log.model,
            name or test_name(request.node),
        )
        try:
            if use_syrupy:
                from harness.testing.assertions.golden_snapshots import assert_outline_snapshot

                assert_outline_snapshot(request, tree, path)
            else:
                trace_assertions.assert_trace_golden(
                    tree, path, update=harness_options.update_shapes
                )
        except AssertionError:
            harness_run_log.shape_ok = False
            raise
        harness_run_log.shape_ok = True

    return check


def _syrupy_active(config: pytest.Config) -> bool:
    # syrupy sets ``config._syrupy`` at session start; ``-p no:syrupy`` leaves it unset.
    return config.pluginmanager.has_plugin("syrupy") and hasattr(config, "_syrupy")


@pytest.fixture
def sim_server() -> Iterator[Callable[..., SimulatorServer]]:
    """Start the OpenAI/Anthropic simulator: ``sim_server(script)`` -> running server."""
    from harness.simulator import SimulatorServer

    started: list[SimulatorServer] = []

    def start(script: Any) -> SimulatorServer:
        server = SimulatorServer(script)
        server.start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
