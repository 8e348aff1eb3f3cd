"""A test's own folder for its workspace and state, made without ``tmp_path``.

pytest's ``tmp_path`` numbers each folder by listing the base temp folder and
links a ``<name>current`` symlink beside it: two entries a test, and a listing
of all of them for the next. With a row per test an eval suite of N rows paid
O(N) per row (0.35 ms at 1,000 rows here, 1.2 ms with one test's name). A
random name in one shared sub-folder costs one ``mkdir`` at any size.

The folder honours ``tmp_path_retention_policy`` as ``tmp_path`` does: under
``failed`` it is removed once its test has passed; otherwise pytest's own
clean-up of old base temp folders removes it with them.
"""

from __future__ import annotations

import re
import secrets
import shutil
from pathlib import Path

import pytest

__all__ = ["folder_of", "note_outcome", "own_folder", "release_folder"]

_FOLDER_KEY = pytest.StashKey[Path]()
_PASSED_KEY = pytest.StashKey[bool]()
# pytest's own limit for the name part of a tmp_path folder.
_NAME_CHARS = 30


def own_folder(request: pytest.FixtureRequest) -> Path:
    """The folder of ``request``'s test (made on first use, 0700, empty)."""
    node: pytest.Item = request.node
    found = node.stash.get(_FOLDER_KEY, None)
    if found is not None:
        return found
    factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
    # The base temp folder is the user's own (0700): nobody else can take a name in it.
    shared = factory.getbasetemp() / "harness-tests"
    shared.mkdir(mode=0o700, exist_ok=True)
    name = re.sub(r"\W", "_", node.name)[:_NAME_CHARS]
    while True:
        folder = shared / f"{name}-{secrets.token_hex(4)}"
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:  # one in four billion: draw again
            continue
        node.stash[_FOLDER_KEY] = folder
        return folder


def folder_of(item: pytest.Item) -> Path | None:
    """The folder ``item``'s test made, until its teardown released it (else None)."""
    return item.stash.get(_FOLDER_KEY, None)


def note_outcome(item: pytest.Item, report: pytest.TestReport) -> None:
    """Remember whether the test's call passed (for the ``failed`` retention policy)."""
    if report.when == "call":
        item.stash[_PASSED_KEY] = report.passed


def release_folder(request: pytest.FixtureRequest) -> None:
    """At the test's teardown: remove its folder if the retention policy says so."""
    node: pytest.Item = request.node
    folder = node.stash.get(_FOLDER_KEY, None)
    if folder is None:
        return
    del node.stash[_FOLDER_KEY]
    policy = request.config.getini("tmp_path_retention_policy")
    # A test whose call never ran (a setup error) has no call report: it did not pass.
    if policy == "failed" and node.stash.get(_PASSED_KEY, False):
        shutil.rmtree(folder, ignore_errors=True)  # best effort, as pytest's own
