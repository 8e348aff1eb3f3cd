"""The test modules the guides show run, offline, against the recipe cassettes they mirror.

(Or, for a test of harness's own runtime marked ``run: pytest against the
simulator``: recorded against ``harness sim`` in a folder of its own, then replayed.)

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
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.docs.doc_blocks import ROOT, Block, all_blocks

RECIPES = [b for b in all_blocks() if b.marker == "run" and b.marker_value.startswith("pytest as ")]
SIMULATED = [b for b in all_blocks() if b.marker_value == "pytest against the simulator"]
# What the simulator answers a block recorded against it: read the file, then say what it holds.
SIM_SCRIPT = {
    "version": 1,
    "rules": [
        {
            "when": {"tools_include": "read", "has_tool_results": False},
            "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "README.md"}}]},
        },
        {
            "fill": "hello",
            "when": {"last_tool_result_contains": "hello"},
            "reply": "It says {match}.",
        },
    ],
}


def _target(block: Block) -> Path:
    return Path(block.marker_value.removeprefix("pytest as ").split()[0])


def test_each_recipe_block_names_a_recipe_test_file() -> None:
    assert RECIPES, "no block is marked `<!-- run: pytest as PATH -->`"
    for block in RECIPES:
        target = _target(block)
        assert (ROOT / target).is_file(), f"{block.id}: {target} is not a file of the repo"
        recorded = ROOT / "examples" / "cassettes" / target.with_suffix("")
        assert recorded.is_dir(), f"{block.id}: no cassettes at {recorded.relative_to(ROOT)}"


def _pytest(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        # The block imports the recipe's agent (examples.*) and harness from this checkout.
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "HOME": str(tmp_path / "home"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider"]
    # The inner run's temporary folders stay inside this test's.
    command += [f"--rootdir={tmp_path}", f"--basetemp={tmp_path / 'inner'}", *args]
    return subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.deep
@pytest.mark.parametrize("block", SIMULATED, ids=[block.id for block in SIMULATED])
def test_simulated_blocks_record_and_replay(
    block: Block, tmp_path: Path, sim_server: Callable[..., Any]
) -> None:
    test_file = tmp_path / "test_block.py"
    test_file.write_text(block.text, "utf-8")
    server = sim_server(SIM_SCRIPT)
    recorded = _pytest(
        tmp_path, str(test_file), "--record-mode=once", f"--harness-base-url={server.url}"
    )
    assert recorded.returncode == 0, f"{block.id}, recording:\n{recorded.stdout[-4000:]}"
    assert list((tmp_path / "cassettes").rglob("*.yaml")), "the recording wrote no cassette"
    replayed = _pytest(tmp_path, str(test_file), "--harness-block-live")
    assert replayed.returncode == 0, f"{block.id}, replay:\n{replayed.stdout[-4000:]}"
    assert " passed" in replayed.stdout and "skipped" not in replayed.stdout, replayed.stdout


@pytest.mark.deep
@pytest.mark.parametrize("block", RECIPES, ids=[block.id for block in RECIPES])
def test_recipe_blocks_pass_on_the_recipe_cassettes(block: Block, tmp_path: Path) -> None:
    target = tmp_path / _target(block)
    target.parent.mkdir(parents=True)
    target.write_text(block.text, "utf-8")
    done = _pytest(
        tmp_path,
        str(target),
        f"--harness-cassette-dir={ROOT / 'examples' / 'cassettes'}",
        "--harness-block-live",
    )
    assert done.returncode == 0, f"{block.id}:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
    if " passed" not in done.stdout and " skipped" in done.stdout:
        # A recipe of a program installed apart (a Node agent, the Codex CLI) skips
        # and says what to install; its block then cannot run here either.
        pytest.skip(f"{block.id}: the recipe skipped here (-rs shows why):\n{done.stdout[-600:]}")
    assert " passed" in done.stdout and "skipped" not in done.stdout, done.stdout[-2000:]
