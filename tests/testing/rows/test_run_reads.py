"""A test's traces are read once."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.providers import ScriptedProvider
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
