"""The attack table: every command runs for real over an overlay of a copy of one workdir.

Each row ends with nothing lost without approval and the human shown the real
changeset: while the call is held the real workdir is untouched; a paused row's
preview names every changed path and carries the digest of the layer it
applies; a free row, once applied, has lost no file and fewer than 20 lines.
The rows run two at a time in a thread pool (one bwrap each).
"""

from __future__ import annotations

import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness.effects import (
    DEFER_KEY,
    LAYER_KEY,
    Changeset,
    EffectDecision,
    EffectPolicy,
    Layer,
    apply_changeset,
    changeset_preview,
    layer_reader,
)
from harness.effects._files import line_counts
from harness.tools._protocol import ToolInput
from harness.tools.builtin._bash import BashTool
from tests.effects.cases import CASES, PAUSE, SAMPLE
from tests.effects.conftest import GIT_ENV, snapshot

# The whole table takes ~15 s on 2 busy cores, so the default run takes a sample of
# every family; `--deep` (it sets HARNESS_DEEP_TESTS=1; CI's deep-tier step) runs it all.
DEEP = os.environ.get("HARNESS_DEEP_TESTS") == "1"
# Sampled rows slow enough that only the deep tier runs them.
_SLOW_SAMPLE = frozenset({"binary-over", "colon-truncate", "mv-over", "replace-200-lines"})
SELECTED = [case for case in CASES if DEEP or case[0] in SAMPLE - _SLOW_SAMPLE]
_DEEP_ONLY = [
    pytest.mark.deep,
    pytest.mark.skipif(not DEEP, reason="deep tier: run with HARNESS_DEEP_TESTS=1"),
]


def _marks(case_id: str) -> list[pytest.MarkDecorator]:
    if case_id not in SAMPLE:
        return _DEEP_ONLY
    return [pytest.mark.deep] if case_id in _SLOW_SAMPLE else []


@dataclass
class Row:
    work: Path
    before: dict[str, bytes]
    held: dict[str, bytes]
    observation: str
    seconds: float
    changeset: Changeset | None
    decision: EffectDecision | None
    layer: Layer | None


def _run_row(base: Path, template: Path, case_id: str, command: str) -> Row:
    work = base / case_id / "work"
    shutil.copytree(template, work, symlinks=True)
    before = snapshot(work)
    started = time.perf_counter()
    tool = BashTool(state_dir=work / ".harness", key_dir=base / case_id / "key", sandbox="required")
    out = tool.run(
        ToolInput({"command": command, "timeout_seconds": 60}, work, metadata={DEFER_KEY: True})
    )
    held = snapshot(work)
    seconds = time.perf_counter() - started
    root = out.metadata.get(LAYER_KEY)
    if root is None:
        return Row(work, before, held, out.text, seconds, None, None, None)
    layer = Layer(Path(root).name, Path(root))
    changeset = layer.load_changeset()
    decision = EffectPolicy().evaluate(
        changeset,
        work,
        layer_reader(layer.upper),
        objects=layer.upper / ".git" / "objects",
        upper=layer.upper,
    )
    return Row(work, before, held, out.text, seconds, changeset, decision, layer)


@pytest.fixture(scope="module")
def rows(template: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Row]:
    base = tmp_path_factory.mktemp("rows")
    saved = {k: os.environ.get(k) for k in GIT_ENV}
    os.environ.update(GIT_ENV)  # git commit inside the sandbox needs an identity
    started = time.perf_counter()
    try:
        with ThreadPoolExecutor(2) as pool:
            futures = {
                case_id: pool.submit(_run_row, base, template, case_id, command)
                for case_id, command, _ in SELECTED
            }
            done = {case_id: future.result() for case_id, future in futures.items()}
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    print(f"\n{len(SELECTED)} commands in {time.perf_counter() - started:.1f} s")
    slow = sorted(done.items(), key=lambda item: -item[1].seconds)[:12]
    print(", ".join(f"{k} {v.seconds:.2f}" for k, v in slow))
    return done


def test_the_table_covers_every_family() -> None:
    assert len(CASES) >= 120
    assert len({case_id for case_id, _, _ in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("case_id", "command", "verdict"),
    [pytest.param(*case, id=case[0], marks=_marks(case[0])) for case in CASES],
)
def test_nothing_is_lost_without_approval(
    rows: dict[str, Row], case_id: str, command: str, verdict: str
) -> None:
    row = rows[case_id]
    assert row.held == row.before, "the call changed the real workdir before any decision"
    paused = row.decision is not None and row.decision.pause
    reasons = row.decision.reasons if row.decision else ()
    assert paused == (verdict == PAUSE), (
        f"{command!r}: expected {verdict}, reasons {reasons}, output {row.observation[-400:]!r}"
    )
    if paused:
        assert row.changeset is not None and row.layer is not None
        preview = changeset_preview(
            row.changeset, row.work, layer_reader(row.layer.upper), row.observation
        )
        assert preview.digest == row.changeset.digest
        listed = preview.files.splitlines()
        for change in row.changeset.changes:
            assert any(line.startswith(f"{change.change} {change.path}") for line in listed)
        return
    if row.changeset is not None and row.layer is not None:
        apply_changeset(row.changeset, row.work, row.layer.upper)
    _assert_nothing_lost(row.before, snapshot(row.work))


def _assert_nothing_lost(before: dict[str, bytes], after: dict[str, bytes]) -> None:
    contents = set(after.values())
    removed = 0
    for path, data in before.items():
        if path.startswith(".git/"):
            continue
        if path not in after:
            assert data in contents, f"{path} was lost without approval"
            continue
        removed += line_counts(data, after[path])[1]
    assert removed < 20, f"{removed} existing lines went without approval"
