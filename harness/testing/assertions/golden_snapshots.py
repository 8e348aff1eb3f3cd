"""Golden trace shapes stored by syrupy, in harness's outline language.

The ``assert_trace_golden`` fixture hands its check to syrupy when syrupy's
plugin is active: ``pytest --snapshot-update`` writes the goldens, syrupy's
report counts them and lists (and on update deletes) goldens no test used.
The files stay where and what they were: one outline per test under
``evals/shapes/<provider>/<model>/<test>.txt``, the text ``normalize_trace``
gives, so a diff of a golden reads like the trace itself.
"""

from __future__ import annotations

import difflib
import warnings
from pathlib import Path
from typing import Any, ClassVar

import pytest
from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode
from syrupy.location import PyTestLocation
from syrupy.types import PropertyFilter, PropertyMatcher, SerializableData, SnapshotIndex

from harness.core import TraceAssertionError
from harness.testing.assertions.trace_query import normalize_trace

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
    if request.config.option.update_snapshots:
        # syrupy writes a golden at once and does not create its folder.
        path.parent.mkdir(parents=True, exist_ok=True)
    # ``use_extension`` keeps the extension on the assertion (a call's
    # ``extension_class`` lasts one comparison), so syrupy's report scans the
    # golden folder for unused goldens.
    assertion = snapshot.use_extension(outline_extension(path.parent))(name=path.stem)
    with warnings.catch_warnings():
        # syrupy warns when a golden's path or name does not name the test; the
        # goldens live by provider and model, named by case, on purpose.
        warnings.filterwarnings("ignore", r"\s*Can not relate snapshot", UserWarning)
        if assertion == tree:
            return
    actual = OutlineExtension().serialize(tree)
    if not path.exists():
        raise TraceAssertionError(
            f"golden trace shape {path} does not exist; run pytest with --snapshot-update "
            "to write this run's shape, then review and commit it"
        )
    stored = path.read_text(encoding="utf-8")
    # A plain unified diff of the two outlines: syrupy's own diff colours each character.
    diff = difflib.unified_diff(
        stored.splitlines(), actual.splitlines(), "golden", "this run", lineterm=""
    )
    raise TraceAssertionError(
        "\n".join(
            [
                f"golden trace shape {path} differs from this run's trace (run pytest with "
                "--snapshot-update to accept the new shape):",
                *diff,
            ]
        )
    )
