"""Properties of the loss measure, the store classification and the code-path patterns."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.effects._changeset import Changeset, FileChange, FileState
from harness.effects._codepaths import DEFAULT_CODE_PATHS, CodePattern
from harness.effects._gitrefs import moved_ref_reasons
from harness.effects._gitstore import store_path
from harness.effects._loss import lost_bytes
from tests.effects.conftest import GIT_ENV

data = st.binary(max_size=300) | st.text("ab\n", max_size=300).map(str.encode)
name = st.text("abcXY._-", min_size=1, max_size=8).filter(lambda n: n not in (".", ".."))
folders = st.lists(name.filter(lambda n: n.lower() != ".git"), max_size=4)


@given(data, data)
def test_the_loss_is_never_more_than_the_old_content(old: bytes, new: bytes) -> None:
    assert 0 <= lost_bytes(old, new, len(old)) <= len(old)


@given(data, data)
def test_appending_and_keeping_lose_nothing(old: bytes, tail: bytes) -> None:
    assert lost_bytes(old, old + tail, len(old)) == 0
    assert lost_bytes(old, old, len(old)) == 0


@given(data)
def test_deleting_or_emptying_loses_everything(old: bytes) -> None:
    assert lost_bytes(old, None, len(old)) == len(old)
    assert lost_bytes(old, b"", len(old)) == len(old)
    assert lost_bytes(None, b"x", 12345) == 12345  # unreadable: fails closed


@given(data, data, data)
def test_a_change_in_the_middle_loses_at_most_the_middle(
    head: bytes, mid: bytes, tail: bytes
) -> None:
    old = head + mid + tail
    assert lost_bytes(old, head + b"\0new\0" + tail, len(old)) <= len(mid) + 1


@given(folders, folders, st.sampled_from([".git", ".GIT", ".Git"]))
def test_the_outermost_git_folder_names_the_store(
    above: list[str], below: list[str], git: str
) -> None:
    path = "/".join([*above, git, *below, "f"])
    where = store_path(path)

    assert where is not None
    assert where.git_dir == "/".join([*above, git])
    assert where.inner == "/".join([*below, "f"])
    assert store_path("/".join([*above, *below, "f"])) is None


@given(folders, st.sampled_from(["Makefile", "conftest.py", "setup.py", "x.mk", ".envrc"]))
def test_a_default_code_file_is_found_at_any_depth(above: list[str], base: str) -> None:
    assert DEFAULT_CODE_PATHS.reason("/".join([*above, base])) is not None


@given(folders, folders)
def test_a_double_star_pattern_matches_at_any_depth(above: list[str], below: list[str]) -> None:
    pattern = CodePattern("**/deploy/*.sh", "x")

    assert pattern.matches("/".join([*above, "deploy", "run.sh"]))
    assert pattern.matches("/".join([*above, "deploy", "run.sh", *below]))  # a folder covers all
    assert not pattern.matches("/".join([*above, "deploy.sh"]))


# --- ref ordering, asked of a real repository ----------------------------------------


@pytest.fixture(scope="module")
def history(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, list[str], set[tuple[int, int]]]:
    """A repository: main c0..c3 in a line, side s4 from c1; its commits and ancestor pairs."""
    repo = tmp_path_factory.mktemp("refs")
    env = {**os.environ, **GIT_ENV}

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)
        return done.stdout.decode().strip()

    git("init", "-q", "-b", "main")
    commits = []
    for index in range(4):
        git("commit", "-q", "--allow-empty", "-m", f"c{index}")
        commits.append(git("rev-parse", "HEAD"))
    git("checkout", "-q", "-b", "side", commits[1])
    git("commit", "-q", "--allow-empty", "-m", "s4")
    commits.append(git("rev-parse", "HEAD"))
    git("checkout", "-q", "main")
    parents = {0: [], 1: [0], 2: [1], 3: [2], 4: [1]}

    def ancestors(node: int) -> set[int]:
        found = {node}
        for parent in parents[node]:
            found |= ancestors(parent)
        return found

    pairs = {(a, d) for d in parents for a in ancestors(d)}
    return repo, commits, pairs


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 4), st.integers(0, 4) | st.none())
def test_a_ref_may_only_move_forward(
    history: tuple[Path, list[str], set[tuple[int, int]]], old: int, new: int | None
) -> None:
    repo, commits, pairs = history
    ref = repo / ".git" / "refs" / "heads" / "probe"
    ref.write_text(commits[old] + "\n")
    state = FileState(kind="file", mode=0o644, size=41, sha256="0" * 64)
    change = FileChange(
        path=".git/refs/heads/probe",
        change="deleted" if new is None else "modified",
        before=state,
        after=None if new is None else state.model_copy(update={"sha256": "1" * 64}),
    )
    data = None if new is None else (commits[new] + "\n").encode()

    reasons = moved_ref_reasons(Changeset(changes=(change,)), repo, lambda p: data, lambda s: None)

    forward = new is not None and (old, new) in pairs
    assert (reasons == []) is forward, (old, new, reasons)


@given(folders)
def test_a_leading_slash_anchors_a_pattern_at_the_workdir(above: list[str]) -> None:
    pattern = CodePattern("/build.sh", "x")

    assert pattern.matches("build.sh")
    assert pattern.matches("/".join([*above, "build.sh"])) is (not above)
