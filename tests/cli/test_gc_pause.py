"""The collector is off inside ``collector_paused`` and as it was after, even on error."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from harness.cli._gc_pause import collector_paused


@pytest.fixture
def collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.parametrize("before", [True, False])
def test_off_inside_and_as_before_after(collector: None, before: bool) -> None:
    gc.enable() if before else gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled() is before


def test_an_error_inside_puts_it_back(collector: None) -> None:
    gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("boom")
    assert gc.isenabled()
