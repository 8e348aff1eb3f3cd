"""Golden trace shapes stored by syrupy, in harness's outline language.

The ``assert_trace_golden`` fixture hands its check to syrupy when syrupy's
plugin is active: ``pytest --snapshot-update`` writes the goldens, syrupy's
report counts them and lists (and on update deletes) goldens no test used.
The files stay where and what they were: one outline per test under
``evals/shapes/<provider>/<model>/<test>.txt``, the text ``normalize_trace``
gives, so a diff of a golden reads like the trace itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation
from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SnapshotIndex

from harness.core import TraceAssertionError
from harness.testing.trace_query import normalize_trace

__all__ = ["OutlineExtension", "assert_outline_snapshot", "outline_extension"]


class OutlineExtension(SingleFileSnapshotExtension):
    """One golden outline per file, ``<directory>/<name>.txt``.

    syrupy asks an extension class (not an instance) where a snapshot lives, so
    each golden directory gets a subclass of its own (``outline_extension``).
    """

    file_extension = "txt"
    _write_mode = WriteMode.TEXT
    directory: ClassVar[Path] = Path("evals") / "shapes"

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> str:
        outline = data if isinstance(data, str) else normalize_trace(data)
        return outline.rstrip("\n") + "\n"

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(cls.directory)

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        # The fixture always names its golden; a bare ``snapshot`` call falls back
        # to the test's name, as the old golden files did.
        return index if isinstance(index, str) else test_location.snapshot_name


_extensions: dict[Path, type[OutlineExtension]] = {}


def outline_extension(directory: Path) -> type[OutlineExtension]:
    """The ``OutlineExtension`` subclass that stores goldens in ``directory``."""
    directory = directory.resolve()
    extension = _extensions.get(directory)
    if extension is None:
        extension = type("OutlineExtension", (OutlineExtension,), {"directory": directory})
        _extensions[directory] = extension
    return extension


def assert_outline_snapshot(request: pytest.FixtureRequest, tree: Any, path: Path) -> None:
    """Compare ``tree``'s outline with the golden at ``path`` through syrupy.

    Raises:
        TraceAssertionError: the golden is missing or differs; the message holds
            syrupy's diff of the two outlines.
    """
    snapshot: SnapshotAssertion = request.getfixturevalue("snapshot")
    assertion = snapshot(extension_class=outline_extension(path.parent), name=path.stem)
    if assertion == tree:
        return
    missing = not path.exists()
    what = "does not exist" if missing else "differs from this run's trace"
    lines = [
        f"golden trace shape {path} {what}; run pytest with --snapshot-update to write "
        "this run's shape, then review and commit it",
    ]
    if not missing:
        lines += assertion.get_assert_diff()
    raise TraceAssertionError("\n".join(lines))
