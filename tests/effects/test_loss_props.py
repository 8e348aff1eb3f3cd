"""Properties of the loss measure, the store classification and the code-path patterns."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from harness.effects.codepaths import DEFAULT_CODE_PATHS, CodePattern
from harness.effects.gitstore import store_path
from harness.effects.loss import lost_bytes

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
