"""An eval run keeps what its tests import out of the garbage collector's way, unless
``HARNESS_SPEED_OFF`` turns the tweak off."""

from __future__ import annotations

import gc
import sys
import types

import pytest

from harness._speed.gc_freeze import EVAL_THRESHOLDS, ImportFreezer


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


@pytest.mark.parametrize(
    ("eval_run", "off", "frozen_and_tuned"),
    [(True, "", True), (False, "", False), (True, "gc_freeze", False), (True, "all", False)],
)
def test_only_an_eval_run_freezes_the_heap(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    eval_run: bool,
    off: str,
    frozen_and_tuned: bool,
) -> None:
    # ... and collects young objects less often, for the run only.
    monkeypatch.setenv("HARNESS_SPEED_OFF", off)
    before = gc.get_threshold()
    gc.unfreeze()
    pytester.makepyfile(test_inner=INNER)
    args = ["-p", "no:randomly", "-s", "-p", "no:cacheprovider"]
    if eval_run:
        args += ["--harness-report", str(pytester.path / "r.json")]
    result = pytester.runpytest(*args)
    result.assert_outcomes(passed=2)
    frozen = int(next(line for line in result.outlines if "FROZEN=" in line).split("=")[-1])
    assert (frozen > 0) is frozen_and_tuned
    young = int(next(line for line in result.outlines if "THRESHOLDS=" in line).split("=")[-1])
    assert young == (EVAL_THRESHOLDS[0] if frozen_and_tuned else before[0])
    assert gc.get_threshold() == before  # put back once the inner run ended
