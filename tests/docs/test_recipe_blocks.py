"""The test modules the guides show run, offline, against the recipe cassettes they mirror.

A block marked ``<!-- run: pytest as examples/raw_openai/test_raw_openai.py -->`` is
written to that path under an empty rootdir and run by pytest there, with
``--harness-cassette-dir`` pointing at the repo's ``examples/cassettes``: its
cassette paths are the recipe's, so the block replays what the recipe recorded,
and a block that drifted from its recipe (another request, another test name)
fails on a miss. Each run is a pytest process importing an agent framework:
deep tier, but one cheap check of the convention stays in the default run.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.doc_blocks import ROOT, Block, all_blocks

RECIPES = [block for block in all_blocks() if block.marker == "run"]


def _target(block: Block) -> Path:
    return Path(block.marker_value.removeprefix("pytest as ").split()[0])


def test_each_recipe_block_names_a_recipe_test_file() -> None:
    assert RECIPES, "no block is marked `<!-- run: pytest as PATH -->`"
    for block in RECIPES:
        target = _target(block)
        assert (ROOT / target).is_file(), f"{block.id}: {target} is not a file of the repo"
        recorded = ROOT / "examples" / "cassettes" / target.with_suffix("")
        assert recorded.is_dir(), f"{block.id}: no cassettes at {recorded.relative_to(ROOT)}"


@pytest.mark.deep
@pytest.mark.parametrize("block", RECIPES, ids=[block.id for block in RECIPES])
def test_recipe_blocks_pass_on_the_recipe_cassettes(block: Block, tmp_path: Path) -> None:
    target = tmp_path / _target(block)
    target.parent.mkdir(parents=True)
    target.write_text(block.text, "utf-8")
    env = {
        **os.environ,
        # The block imports the recipe's agent (examples.*) and harness from this checkout.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(target),
            "-q",
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
            f"--rootdir={tmp_path}",
            f"--basetemp={tmp_path / 'inner'}",  # the inner run's folders stay in this test's
            f"--harness-cassette-dir={ROOT / 'examples' / 'cassettes'}",
            "--harness-block-live",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{block.id}:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]
