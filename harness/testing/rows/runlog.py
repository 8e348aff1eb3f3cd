"""RunLog: what the runs of one test did, for the ``trace`` fixture and eval rows."""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.core.errors import TraceAssertionError

if TYPE_CHECKING:
    # Types only: the plugin imports this module in every pytest process, and an
    # xdist controller runs nothing, so it need not load the runtime's models.
    from harness.core.messages import Usage
    from harness.engine import RunResult
    from harness.tracing import TraceSpan, TraceTree

__all__ = ["LastTrace", "RunLog"]


@dataclass(slots=True)
class RunLog:
    """Every ``RunResult`` of the applications a test built, in order."""

    results: list[RunResult] = field(default_factory=list)
    llm_calls: int = 0
    started: float = field(default_factory=time.perf_counter)
    shape_ok: bool | None = None
    provider: str = "scripted"
    model: str = "scripted"
    # Set by the ``provider`` fixture once it knows where answers came from.
    source: str | None = None
    # The cassette file name the answers came from or went to (recorded providers).
    cassette: str | None = None
    # Its whole path: the row keeps it (absolute and from the rootdir) with its digest,
    # so a viewer finds the recording from any folder and sees when it changed.
    cassette_path: Path | None = None
    rootdir: Path | None = None
    # The fixture recorded to ``cassette_path`` (not a replay): a file that is still
    # not there when the row is made is a recording that failed, and the row says so.
    recording: bool = False
    # Seconds of the run spent importing modules (``ImportClock``), kept out of the
    # duration: a first-touching row must not read as a slower model.
    import_s: Callable[[], float] | None = None
    # Set by a case's judge check: the verdict, reason and tokens, for the row.
    judge: dict[str, Any] | None = None
    # Set by ``llm_cassette``: the row's numbers from the HTTP traffic, and the
    # traffic trace (for an agent harness did not run, there is no RunResult).
    traffic: dict[str, Any] | None = None
    traffic_trace: Callable[[], TraceTree] | None = None
    # MCP tool calls by server that no harness trace shows (``mcp_cassette``'s stand-ins).
    mcp_calls: dict[str, int] = field(default_factory=dict)
    _trees: dict[Path, tuple[tuple[int, int, int], TraceTree]] = field(
        default_factory=dict, repr=False
    )

    def observe(self, result: RunResult) -> None:
        self.results.append(result)

    @property
    def last(self) -> RunResult:
        if not self.results:
            raise TraceAssertionError("no harness run happened in this test yet")
        return self.results[-1]

    def stop_errors(self) -> str | None:
        """Why each run that failed stopped, one line each (None when none failed).

        A failed assertion on ``stop_reason`` shows only ``provider_error``; this is
        the provider's (or the simulator's) own reason, for the failure report.
        """
        lines = [
            f"run {number} (session {result.session_key or '-'}) stopped with "
            f"{result.stop_reason.value}: {result.error}"
            for number, result in enumerate(self.results, 1)
            if result.error
        ]
        return "\n".join(lines) or None

    def traces(self) -> list[TraceTree]:
        """The trace of every run that wrote one, in run order."""
        return [self.trace_of(r) for r in self.results if r.trace_path is not None]

    def trace_of(self, result: RunResult) -> TraceTree:
        """``result``'s trace, read once per test.

        A test reads its traces two or three times (its checks, the row's
        summary); each read parsed the whole file again. The file's identity and
        size decide whether the tree read before is still the file's: a trace
        rewritten since is read anew.

        Raises:
            TraceAssertionError: the run wrote no trace.
            TracingError: the file cannot be read or is not a valid trace.
        """
        from harness.testing.assertions.trace_assertions import load_trace

        path = result.trace_path
        if path is None:
            raise TraceAssertionError(f"the run (trace {result.trace_id}) wrote no trace file")
        try:
            info = path.stat()
        except OSError:
            return load_trace(path)  # says why it cannot be read
        key = (info.st_ino, info.st_size, info.st_mtime_ns)
        cached = self._trees.get(path)
        if cached is not None and cached[0] == key:
            return cached[1]
        tree = load_trace(path)
        self._trees[path] = (key, tree)
        return tree

    def final_results(self) -> list[RunResult]:
        """The runs whose totals are not already in a later (resumed) run's."""
        resumed = {r.resumed_from_approval_id for r in self.results}
        return [r for r in self.results if r.approval_id is None or r.approval_id not in resumed]

    def usage(self) -> Usage:
        """The tokens of every run of the test."""
        from harness.core.messages import Usage

        return sum((r.usage for r in self.final_results()), Usage())

    def summary(self) -> dict[str, Any]:
        """The numbers an eval row reports."""
        from harness.testing.assertions.trace_query import normalize_trace

        if self.traffic is not None and not self.results:
            return self._traffic_summary()
        trees = self.traces()
        # A resumed run's totals already include the run it continued.
        finals = self.final_results()
        return {
            "steps": sum(r.steps for r in finals),
            "tool_calls": sum(r.tool_calls for r in finals),
            "llm_calls": sum(
                1 for tree in trees for span in tree.walk() if span.kind == "llm.call"
            ),
            "input_tokens": sum(r.usage.input_tokens for r in finals),
            "output_tokens": sum(r.usage.output_tokens for r in finals),
            "cached_input_tokens": sum(r.usage.cached_input_tokens for r in finals),
            "cache_write_input_tokens": sum(r.usage.cache_write_input_tokens for r in finals),
            **self._recording(),
            **self._durations(),
            "shape": "\n\n".join(normalize_trace(tree) for tree in trees) or None,
            "traces": [str(r.trace_path) for r in self.results if r.trace_path is not None],
            "shape_ok": self.shape_ok,
            "provider": self.provider,
            "model": self.model,
            "source": self.source or ("scripted" if self.provider == "scripted" else "unknown"),
            "judge": self.judge,
            "mcp_calls": self._mcp_calls(trees),
        }

    def _mcp_calls(self, trees: list[TraceTree]) -> dict[str, int]:
        """MCP tool calls by server: the runs' ``tool.call`` spans that reached a server,
        plus what the ``mcp_cassette`` stand-ins served."""
        counts = dict(self.mcp_calls)
        for tree in trees:
            for span in tree.walk():
                server = span.attributes.get("mcp_server") if span.kind == "tool.call" else None
                if isinstance(server, str):
                    counts[server] = counts.get(server, 0) + 1
        return dict(sorted(counts.items()))

    def _traffic_summary(self) -> dict[str, Any]:
        shape = None
        if self.traffic_trace is not None:
            from harness.core.errors import HarnessError
            from harness.testing.assertions.trace_query import normalize_trace

            try:
                shape = normalize_trace(self.traffic_trace())
            except (ImportError, HarnessError):
                shape = None  # no traffic trace builder, or traffic it cannot read
        return {
            **(self.traffic or {}),
            **self._recording(),
            **self._durations(),
            "shape": shape,
            "shape_ok": self.shape_ok,
            "source": self.source or "unknown",
            "judge": self.judge,
            "mcp_calls": dict(sorted(self.mcp_calls.items())),
        }

    def _durations(self) -> dict[str, float]:
        wall = time.perf_counter() - self.started
        imports = min(self.import_s(), wall) if self.import_s is not None else 0.0
        return {"duration_s": round(wall - imports, 4), "import_s": round(imports, 4)}

    def recording_failed(self) -> bool:
        """Whether the test recorded, its cassette was never written, and a call was tried.

        A harness run that stopped with an error shows the try; an ``llm_cassette``
        test shows none (its agent is not harness's), so its missing file counts.
        """
        if not self.recording or self.cassette_path is None or self.cassette_path.exists():
            return False
        return self.traffic is not None or any(r.error for r in self.results)

    def _recording(self) -> dict[str, Any]:
        """The cassette's name, paths and sha256 (None where there is none, or no file),
        and ``recording_failed`` when a recording saved nothing."""
        path = self.cassette_path
        found: dict[str, Any] = {"cassette": self.cassette}
        if path is None:
            return found
        path = path.absolute()
        found["cassette_path"] = str(path)
        if self.rootdir is not None and path.is_relative_to(self.rootdir):
            found["cassette_relpath"] = path.relative_to(self.rootdir).as_posix()
        # Not written (a failed recording): the row says no digest.
        with contextlib.suppress(OSError):
            found["cassette_sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
        if self.recording_failed():
            found["recording_failed"] = True  # the collector makes its failure an error
        return found


class LastTrace:
    """The ``trace`` fixture: the trace of the latest run, loaded when first used.

    Works wherever a ``TraceTree`` is accepted by the assertions, and forwards
    queries (``find``, ``one``, ``find_all``, ``walk``, ``root``) to that tree.
    """

    def __init__(self, log: RunLog) -> None:
        self._log = log

    def __trace_tree__(self) -> TraceTree:
        if not self._log.results and self._log.traffic_trace is not None:
            return self._log.traffic_trace()  # an llm_cassette test: its traffic trace
        result = self._log.last
        if result.trace_path is None:
            raise TraceAssertionError(
                "the last run wrote no trace file; is trace_mode 'off' or the state dir unwritable?"
            )
        from harness.testing.assertions.trace_assertions import load_trace

        return load_trace(result.trace_path)

    @property
    def tree(self) -> TraceTree:
        return self.__trace_tree__()

    @property
    def root(self) -> TraceSpan:
        return self.tree.root

    def __getattr__(self, name: str) -> Any:
        return getattr(self.__trace_tree__(), name)
