"""Shared test setup: every trace file a test writes must satisfy the schema, and
pytester's inner runs are configured alike."""

from __future__ import annotations

import asyncio
import fcntl
import gc
import importlib
import importlib.util
import json
import os
import secrets
import stat
import subprocess
import sys
import tempfile
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from _pytest.unraisableexception import gc_collect_iterations_key

from harness.testing.plugin.folders import folder_of
from harness.tracing import validate_trace_document


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    outcome = yield
    # tmp_path, and the folder the plugin's workspace and state live in.
    folders = (getattr(item, "funcargs", {}).get("tmp_path"), folder_of(item))
    for folder in {folder for folder in folders if isinstance(folder, Path)}:
        for path in folder.rglob("traces/*.json"):
            validate_trace_document(json.loads(path.read_text("utf-8")), source=str(path))
    return outcome


# Inner runs treat warnings as errors, like this repo, and leave off plugins that
# only slow them down (langsmith's: about 0.6 s a start) or (pytest-benchmark, where
# installed) reword the summary line that ``RunResult.assert_outcomes`` parses.
_INNER_INI = """\
[pytest]
filterwarnings = error
addopts = -p no:cacheprovider -p no:hypothesispytest -p no:randomly -p no:benchmark
  -p no:langsmith_plugin
"""


# No test opens a TLS connection to a real host: only 127.0.0.1 is reachable, over
# plain HTTP or under a CA the test made. Yet every SDK client builds a TLS context
# and loads the trusted CA bundle into it, about 20 ms a client and some 12 s of CPU
# over the suite. The tests (and the processes they start) trust one certificate
# whose key was thrown away instead: loaded the same way, in 0.6 ms, and no
# connection can be verified by it.
os.environ["SSL_CERT_FILE"] = str(Path(__file__).with_name("suite") / "untrusted-ca.pem")
os.environ.pop("SSL_CERT_DIR", None)

# pytester drops the modules an inner run imported, and numpy's C core cannot be
# loaded twice in one process: numpy first imported inside an inner run would
# make a later `import scipy` in this worker fail. Loaded before any run, it stays.
if importlib.util.find_spec("numpy") is not None:
    importlib.import_module("numpy")

# httpx maps httpcore's exceptions to its own by class, through a table it builds
# once: an httpcore first imported inside an inner run, dropped, then imported
# again, raised exceptions of new classes that table no longer knew, and a plain
# `httpx.get` leaked a raw `httpcore.ConnectError` past `except httpx.TransportError`
# (the Feishu readiness poll). Loaded before any inner run, each stays one module.
for _module in ("httpcore", "httpx", "httpcore2", "httpx2"):
    if importlib.util.find_spec(_module) is not None:
        importlib.import_module(_module)


@pytest.fixture
def pytester(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """pytest's ``pytester``, with the inner-run configuration above.

    Inner runs read like a developer's run: on CI (``CI`` or ``BUILD_NUMBER`` set)
    pytest stops truncating the short summary, so a failure's text would appear twice.
    """
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("BUILD_NUMBER", raising=False)
    pytester.makeini(_INNER_INI)
    monkeypatch.setattr(pytester, "parseconfig", _without_gc_rounds(pytester.parseconfig))
    return pytester


def _without_gc_rounds(parseconfig: Callable[..., pytest.Config]) -> Callable[..., pytest.Config]:
    """``parseconfig`` (and ``getitems``, ``parseconfigure`` through it) without the
    unraisable-exception plugin's ``gc.collect`` when the config is unconfigured.

    ``inline_run`` already turns it off for its configs; configs made only to
    collect did not, and a full collection of this worker's heap (harness and the
    SDKs loaded) took about 0.15 s each: 7.3 s of CPU over five tests.
    """

    def parse(*args: str | os.PathLike[str]) -> pytest.Config:
        config = parseconfig(*args)
        config.stash[gc_collect_iterations_key] = 0
        return config

    return parse


def pytest_sessionfinish(session: pytest.Session) -> None:
    # lark_oapi's websocket module opens an event loop when it is imported and never
    # closes it; left to the collector at exit it prints a ResourceWarning per worker.
    client = sys.modules.get("lark_oapi.ws.client")
    loop = getattr(client, "loop", None)
    if isinstance(loop, asyncio.AbstractEventLoop) and not loop.is_running():
        loop.close()


@pytest.fixture(autouse=True)
def _approval_key_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Approval keys and the decision ledger go to a fresh folder per test, never ~.

    A random name in one shared private sub-folder, as harness's own fixture does
    (``harness.testing.plugin.fixtures``), and not made until harness writes a key
    there (it creates the folder it needs): most tests never do, and a folder made
    for each of 4,800 tests, then removed, cost about a millisecond each. (Numbered
    folders from ``mktemp`` were worse: it lists the base folder to number each.)
    """
    shared = tmp_path_factory.getbasetemp() / "xdg-state"
    shared.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(shared / f"xdg-state-{secrets.token_hex(8)}"))
    monkeypatch.delenv("HARNESS_APPROVAL_KEY", raising=False)


ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class EvalReplay:
    """``harness eval --report PATH`` over the committed cassettes: its output and report."""

    returncode: int
    stdout: str
    stderr: str
    report: Path


@contextmanager
def _run_lock(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[Path]:
    """A folder shared by every xdist worker of this run (never another run's), locked.

    Under xdist each worker's basetemp is ``<run's basetemp>/popen-gwN``; the
    parent belongs to this run alone.
    """
    base = tmp_path_factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    folder = root / f"shared-{name}"
    with (root / f"shared-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            folder.mkdir(exist_ok=True)
            yield folder
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def eval_replay(tmp_path_factory: pytest.TempPathFactory) -> EvalReplay:
    """One replay of every committed eval per test run, shared by all xdist workers.

    The first worker to ask runs it; the others wait on the lock and read its result.
    """
    with _run_lock(tmp_path_factory, "eval-replay") as folder:
        done_file, report = folder / "done.json", folder / "report.json"
        if not done_file.exists():
            env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
            done = subprocess.run(
                [sys.executable, "-m", "harness", "eval", "--report", str(report)],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
            )
            result = {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}
            done_file.write_text(json.dumps(result), "utf-8")
        loaded = json.loads(done_file.read_text("utf-8"))
    return EvalReplay(loaded["returncode"], loaded["stdout"], loaded["stderr"], report)


_HYPOTHESIS_HOME = pytest.StashKey[tempfile.TemporaryDirectory[str]]()


def pytest_configure(config: pytest.Config) -> None:
    """Hypothesis keeps its example database and caches in a temporary folder.

    By default it writes ``.hypothesis/`` into the current folder, the checkout;
    it fixes that path at its first use, during collection, hence here. Failing
    examples are then not replayed by the next run; the failure report prints
    each one, with the ``@example`` to pin it.

    Two caches are kept across processes and runs, neither holding an example, so
    no run can see another's through them:
    - the constants Hypothesis reads from the source of every local module
      (harness's and the tests', some 600) to seed its examples, keyed by a hash of
      each file's source; parsing them took each worker about 2.5 s;
    - its Unicode tables, keyed by the Unicode version; ``st.text()`` draws from
      the characters UTF-8 can encode, and finding them took each worker 1.7 s.
    """
    from hypothesis import settings
    from hypothesis.configuration import set_hypothesis_home_dir

    # No per-example deadline: on a loaded 2-core CI machine a 200 ms deadline
    # fails tests by timing, not by behaviour (a flaky test is a house defect).
    settings.register_profile("harness", deadline=None)
    settings.load_profile("harness")
    home = tempfile.TemporaryDirectory(prefix="harness-hypothesis-")
    config.stash[_HYPOTHESIS_HOME] = home
    for cache in ("constants", "unicode_data"):
        shared = _shared_cache(cache)
        if shared is not None:
            (Path(home.name) / cache).symlink_to(shared, target_is_directory=True)
    set_hypothesis_home_dir(home.name)


def _shared_cache(name: str) -> Path | None:
    """This user's folder for one of Hypothesis' caches, in the system temp folder;
    None when it cannot be trusted (another user's, or not a private folder)."""
    kind = name.replace("_", "-")
    folder = Path(tempfile.gettempdir()) / f"harness-hypothesis-{kind}-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        found = folder.lstat()
    except OSError:
        return None
    private = stat.S_ISDIR(found.st_mode) and found.st_mode & 0o077 == 0
    return folder if private and found.st_uid == os.getuid() else None


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    home = config.stash.get(_HYPOTHESIS_HOME, None)
    if home is not None:
        home.cleanup()
    # The test process is done: what it holds goes back to the system at exit
    # anyway. Frozen, the heap is not collected over and over while the interpreter
    # tears down its modules (7,500 of them in a worker here): 3.5 s -> 0.2 s per
    # xdist worker, which the controller waited for at the end of every run.
    gc.freeze()
