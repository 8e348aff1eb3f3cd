"""A test's traces are read once, and an eval run keeps its imports out of the collector's way."""

from __future__ import annotations

import gc
import sys
import types
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.providers import ScriptedProvider
from harness.testing.gc_freeze import EVAL_THRESHOLDS, ImportFreezer
from harness.testing.rows.runlog import RunLog
from harness.tracing import TraceTree


def _logged_run(tmp_path: Path) -> RunLog:
    log = RunLog()
    workdir = tmp_path / "w"
    workdir.mkdir()
    settings = Settings(workdir=workdir, state_dir=tmp_path / "s", trace_mode="metadata")
    app = build_application(settings, provider=ScriptedProvider(["done"]))
    app.observers.append(log.observe)
    app.run("hello")
    app.close()
    return log


def test_a_trace_is_read_once_per_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = _logged_run(tmp_path)
    reads: list[Path] = []
    real = TraceTree.load.__func__  # type: ignore[attr-defined]

    def counting(cls: type[TraceTree], path: str | Path) -> TraceTree:
        reads.append(Path(path))
        return real(cls, path)  # type: ignore[no-any-return]

    monkeypatch.setattr(TraceTree, "load", classmethod(counting))
    first = log.traces()
    assert log.trace_of(log.last) is first[0]
    assert log.traces()[0] is first[0]
    assert reads == [log.last.trace_path]


def test_a_trace_rewritten_since_is_read_again(tmp_path: Path) -> None:
    log = _logged_run(tmp_path)
    path = log.last.trace_path
    assert path is not None
    before = log.trace_of(log.last)
    tree = TraceTree.load(path)
    tree.root.name = "agent.renamed"
    path.write_text(tree.to_json(), "utf-8")
    after = log.trace_of(log.last)
    assert after is not before and after.root.name == "agent.renamed"


def test_a_missing_trace_says_so(tmp_path: Path) -> None:
    log = _logged_run(tmp_path)
    assert log.last.trace_path is not None
    log.last.trace_path.unlink()
    with pytest.raises(Exception, match="cannot read trace file"):
        log.trace_of(log.last)


def test_the_heap_is_frozen_only_after_a_test_imported_many_modules(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    freezer = ImportFreezer(threshold=50)
    frozen = gc.get_freeze_count()
    try:
        for n in range(10):  # a helper or two: no freeze
            monkeypatch.setitem(sys.modules, f"_harness_fake_{n}", types.ModuleType("x"))
        freezer.after_test()
        assert freezer.freezes == 0
        for n in range(10, 80):  # an SDK's worth
            monkeypatch.setitem(sys.modules, f"_harness_fake_{n}", types.ModuleType("x"))
        freezer.after_test()
        assert freezer.freezes == 1 and gc.get_freeze_count() > frozen
        freezer.after_test()  # nothing new since: no second freeze
        assert freezer.freezes == 1
    finally:
        gc.unfreeze()


INNER = """
import gc, sys, types

import pytest


def test_imports_much():
    for n in range(400):
        sys.modules[f"_inner_fake_{n}"] = types.ModuleType("x")


def test_sees_the_heap():
    frozen = gc.get_freeze_count()
    for n in range(400):
        del sys.modules[f"_inner_fake_{n}"]
    gc.unfreeze()
    print(f"FROZEN={frozen}")
    print(f"THRESHOLDS={gc.get_threshold()[0]}")
"""


@pytest.mark.parametrize("eval_run", [True, False])
def test_only_an_eval_run_freezes_the_heap(pytester: pytest.Pytester, eval_run: bool) -> None:
    # ... and collects young objects less often, for the run only.
    before = gc.get_threshold()
    gc.unfreeze()
    pytester.makepyfile(test_inner=INNER)
    args = ["-p", "no:randomly", "-s", "-p", "no:cacheprovider"]
    if eval_run:
        args += ["--harness-report", str(pytester.path / "r.json")]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=2)
    frozen = int(next(line for line in result.outlines if "FROZEN=" in line).split("=")[-1])
    assert (frozen > 0) is eval_run
    young = int(next(line for line in result.outlines if "THRESHOLDS=" in line).split("=")[-1])
    assert young == (EVAL_THRESHOLDS[0] if eval_run else before[0])
    assert gc.get_threshold() == before  # put back once the inner run ended
