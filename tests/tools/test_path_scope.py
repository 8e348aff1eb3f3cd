"""The name checks of the file tools: ``inside`` and a scope's resolved roots."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core import ToolError
from harness.tools.paths import FileScope, display_path, inside, resolve_in_workdir

_PART = st.sampled_from(["a", "b", "ab", "a.b", "..a", ".harness", "A"])
_ABSOLUTE = st.lists(_PART, max_size=5).map(lambda parts: Path("/", *parts))


@given(path=_ABSOLUTE, folder=_ABSOLUTE)
def test_inside_is_the_parents_test(path: Path, folder: Path) -> None:
    # What it replaced: lexical, on resolved (absolute) paths.
    assert inside(path, folder) == (path == folder or folder in path.parents)
    assert inside(path, folder) == PurePosixPath(path).is_relative_to(folder)


def test_a_scope_checks_as_the_function_does(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / ".harness").mkdir(parents=True)
    (real / "notes").mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)  # the workdir named through a symlink
    (real / "out").symlink_to(tmp_path)
    scope = FileScope.of(link)
    assert scope.workdir == real
    for raw in ("notes", "notes/../notes/x.txt", "new.txt", str(real / "notes")):
        assert scope.resolve(raw) == resolve_in_workdir(link, raw, state_dir=None)
        assert scope.show(scope.resolve(raw)) == display_path(link, scope.resolve(raw))
    for raw, kind in (
        (".harness/sessions", "state_dir"),
        ("out/x", "path_outside_workdir"),
        ("../x", "path_outside_workdir"),
        ("/etc/passwd", "path_outside_workdir"),
        ("", "invalid_arguments"),
    ):
        with pytest.raises(ToolError) as caught:
            scope.resolve(raw)
        assert caught.value.error_type == kind
        with pytest.raises(ToolError) as again:
            resolve_in_workdir(link, raw, state_dir=link / ".harness")
        assert again.value.error_type == kind
