"""``zone_rules``: each path gets the rights of the deepest zone holding it, never more.

Rules are computed over a real folder tree (no kernel needed) and then read
back the way Landlock reads them: a path's rights are the union of the rules on
it and on its ancestors. Property-tested over random trees and zones.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.tools.sandbox._landlock import FILE_RIGHTS, READ, WRITE, zone_rules

NAMES = st.sampled_from(["a", "b", "c"])
TREE = st.lists(st.lists(NAMES, min_size=1, max_size=3), min_size=1, max_size=8)


def _granted(rules: dict[str, int], path: str) -> int:
    rights = 0
    probe = Path(path)
    for place in (probe, *probe.parents):
        rights |= rules.get(str(place), 0)
    return rights


def _deepest(zones: dict[Path, int], path: Path) -> int:
    holder = max((z for z in zones if path.is_relative_to(z)), key=lambda z: len(z.parts))
    return zones[holder]


@settings(max_examples=40, deadline=None)
@given(
    tree=TREE,
    picks=st.lists(st.tuples(st.integers(0, 7), st.sampled_from([0, READ, WRITE])), max_size=4),
)
def test_every_path_gets_at_most_its_zone_and_exactly_it_off_the_way(
    tree: list[list[str]], picks: list[tuple[int, int]]
) -> None:
    with tempfile.TemporaryDirectory() as raw:
        root = Path(raw).resolve()
        folders = [root.joinpath(*parts) for parts in tree]
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "f.txt").write_text("x")
        zones: dict[Path, int] = {Path("/"): READ, root: WRITE}
        for index, rights in picks:
            zones[folders[index % len(folders)]] = rights
        rules: dict[str, int] = {}
        for path, rights, _ in zone_rules(zones):
            assert path not in rules, f"two rules for {path}"
            rules[path] = rights

        ways = {str(parent) for zone in zones for parent in zone.parents}
        for dirpath, dirnames, filenames in os.walk(root):
            for name in [*dirnames, *filenames]:
                path = Path(dirpath, name)
                want = _deepest(zones, path)
                if path.is_file():
                    want &= FILE_RIGHTS
                got = _granted(rules, str(path)) & (FILE_RIGHTS if path.is_file() else ~0)
                assert got & ~want == 0, f"{path} gets more than its zone"
                if str(path) not in ways:
                    assert got == want, f"{path} off the way to a zone lost rights"
