"""An SDK's first import runs with the cyclic collector paused, and it is resumed after."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.providers.sdk_import import preload_sdk

PROBE = "import gc\nSEEN = gc.isenabled()\n"


@pytest.fixture
def probe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    name = f"_harness_probe_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(PROBE, "utf-8")
    (tmp_path / "_harness_broken_probe.py").write_text("raise ImportError('no')\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    sys.modules.pop(name, None)
    sys.modules.pop("_harness_broken_probe", None)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_for_the_import_and_left_as_it_was(
    probe: str, enabled: bool
) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        preload_sdk(probe)
        assert sys.modules[probe].SEEN is False
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_a_failed_import_raises_and_resumes_the_collector(probe: str) -> None:
    assert gc.isenabled()
    with pytest.raises(ImportError, match="no"):
        preload_sdk("_harness_broken_probe")
    assert gc.isenabled()


def test_a_module_already_imported_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr("importlib.import_module", lambda name: calls.append(name))
    preload_sdk("json")
    assert calls == []
