"""A valid trace thousands of spans deep renders; deeper than the limit is one clear error."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.jsonload import TRACE_MAX_DEPTH
from harness.tracing import TraceFormatError, TraceTree
from harness.tracing._render import render_trace
from harness.tracing.outline import span_path

TIME = "2026-12-01T00:00:00+00:00"


def _deep_trace(depth: int) -> str:
    """A trace whose spans nest ``depth`` deep, built as text (json.dumps would recurse)."""
    opens, closes = [], []
    for i in range(depth):
        parent = f'"s{i - 1}"' if i else "null"
        kind = "agent.run" if i == 0 else "agent.step"
        opens.append(
            f'{{"span_id": "s{i}", "parent_id": {parent}, "trace_id": "t1", "kind": "{kind}", '
            f'"name": "{kind}", "started_at": "{TIME}", "ended_at": "{TIME}", '
            f'"duration_ms": 1.0, "sequence": {i}, "status": "ok", '
            f'"attributes": {{"step": {i}}}, "events": [], "children": ['
        )
        closes.append("]}")
    root = "".join(opens) + "".join(closes)
    return (
        f'{{"schema_version": 1, "trace_id": "t1", "session_key": "s", "created_at": "{TIME}", '
        f'"root": {root}, "metadata": {{}}}}'
    )


def _show(path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    return subprocess.run(
        [sys.executable, "-m", "harness", "trace", "show", *options, str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.deep
@pytest.mark.parametrize("options", [(), ("--outline",)], ids=["view", "outline"])
def test_a_5000_deep_trace_renders_with_trace_show(tmp_path: Path, options: tuple[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text(_deep_trace(5000))
    done = _show(path, "--width", "0", *options)  # unwrapped: one line per span
    assert done.returncode == 0, done.stderr[-2000:]
    assert "RecursionError" not in done.stderr and "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    spans = lines[1:] if not options else lines
    assert len(spans) == 5000
    assert spans[-1].startswith("  " * 4999 + "agent.step")


@pytest.mark.deep
def test_the_tree_queries_work_on_a_deep_trace() -> None:
    tree = TraceTree.from_json(_deep_trace(3000))
    assert len(list(tree.walk())) == 3000
    deepest = tree.one(kind="agent.step", step=2999)
    assert len(tree.ancestors(deepest)) == 2999
    assert span_path(tree.root, deepest).count(" > ") == 2999
    assert render_trace(tree).count("\n") == 3000


@pytest.mark.deep
def test_a_trace_deeper_than_the_limit_is_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "too-deep.json"
    levels = TRACE_MAX_DEPTH // 2 + 10  # two JSON levels per span level
    path.write_text(_deep_trace(levels))
    with pytest.raises(TraceFormatError, match=r"too-deep\.json nests \d+ levels deep"):
        TraceTree.load(path)
    done = _show(path)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "too-deep.json nests" in done.stderr


def test_a_schema_error_deep_down_names_its_place(tmp_path: Path) -> None:
    text = _deep_trace(400).replace(
        '"status": "ok", "attributes": {"step": 399}',
        '"status": "meh", "attributes": {"step": 399}',
    )
    with pytest.raises(TraceFormatError, match=r"root(\.children\[0\]){399}\.status"):
        TraceTree.from_json(text)
