"""vcrpy's imports of absent HTTP libraries fail fast while a cassette is entered, and only then."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

import pytest

from harness.recording._absent import known_absent_skipped

# One of the libraries vcrpy tries, missing from this test's virtualenv.
ABSENT = "httplib2"


@pytest.fixture
def absent_here() -> None:
    if importlib.util.find_spec(ABSENT) is not None:
        pytest.skip(f"{ABSENT} is installed here")


@pytest.mark.usefixtures("absent_here")
def test_a_known_absent_library_fails_at_once_inside_the_block() -> None:
    meta_path = list(sys.meta_path)
    with known_absent_skipped(), pytest.raises(ImportError):
        importlib.import_module(ABSENT)  # learned: not there
    with known_absent_skipped():
        finder = sys.meta_path[0]
        with pytest.raises(ModuleNotFoundError, match=ABSENT):
            finder.find_spec(ABSENT, None)  # answered without searching sys.path
        assert finder.find_spec("json", None) is None  # anything else: the other finders'
    assert sys.meta_path == meta_path  # nothing left behind


@pytest.mark.usefixtures("absent_here")
def test_a_library_made_importable_by_a_new_path_is_found_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with known_absent_skipped(), pytest.raises(ImportError):
        importlib.import_module(ABSENT)
    (tmp_path / f"{ABSENT}.py").write_text("FOUND = True\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, ABSENT, raising=False)
    try:
        with known_absent_skipped():
            assert importlib.import_module(ABSENT).FOUND is True
    finally:
        sys.modules.pop(ABSENT, None)
