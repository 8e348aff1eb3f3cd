"""``harness undo`` as a user runs it: list, undo one call, a run back to a call, all of it.

The changes are made by real ``harness run`` processes with a scripted model
(``write`` and ``edit``, and bash over the overlay where bwrap can mount one);
``harness undo`` then runs as its own process. Each test starts several
processes: all but one are in the deep tier.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.tools.sandbox import choose_sandbox


def _env(tmp_path: Path, turns: list[object], tools: str = "read,write,edit") -> dict[str, str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_STATE_DIR=str(tmp_path / "state"),
        HARNESS_WORKDIR=str(tmp_path / "work"),
        HARNESS_PROVIDER="scripted",
        HARNESS_SCRIPT=str(script),
        HARNESS_ENABLED_TOOLS=tools,
    )
    return env


def _harness(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _call(tool: str, **arguments: object) -> dict[str, object]:
    return {"tool": tool, "arguments": arguments}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    (folder / "a.txt").write_text("one\ntwo\nthree\n")
    os.chmod(folder / "a.txt", 0o640)
    return folder


def _three_calls(tmp_path: Path) -> tuple[dict[str, str], list[dict[str, object]]]:
    """One run: edit a.txt, write b.txt, edit a.txt again; its journal entries as JSON."""
    env = _env(
        tmp_path,
        [
            _call("edit", path="a.txt", old_text="one", new_text="ONE"),
            _call("write", path="b.txt", content="bee\n"),
            _call("edit", path="a.txt", old_text="three", new_text="THREE"),
            "done",
        ],
    )
    ran = _harness(env, "run", "change things")
    assert ran.returncode == 0, ran.stderr
    listed = json.loads(_harness(env, "undo", "--json").stdout)
    (entries,) = listed.values()
    return env, entries


@pytest.mark.deep
def test_undo_lists_runs_and_their_calls(tmp_path: Path, work: Path) -> None:
    env, entries = _three_calls(tmp_path)
    shown = _harness(env, "undo")
    assert shown.returncode == 0, shown.stderr
    run = entries[0]["run"]
    assert f"run {run}  (3 applied call(s)" in shown.stdout
    assert "edit   " + str(entries[0]["call"]) + "  modified a.txt" in shown.stdout
    assert "write  " + str(entries[1]["call"]) + "  created b.txt" in shown.stdout


def test_undo_one_call_and_refusal_naming_the_file(tmp_path: Path, work: Path) -> None:
    env, entries = _three_calls(tmp_path)
    first, second, third = (str(e["call"]) for e in entries)

    refused = _harness(env, "undo", first)
    assert refused.returncode == 1
    assert "a.txt was changed after call" in refused.stderr and third in refused.stderr
    assert (work / "a.txt").read_text() == "ONE\ntwo\nTHREE\n"

    done = _harness(env, "undo", second[:12])  # a unique prefix is enough
    assert done.returncode == 0, done.stderr
    assert "removed  b.txt" in done.stdout and not (work / "b.txt").exists()
    again = _harness(env, "undo", second)
    assert again.returncode == 2 and "undone already" in again.stderr


@pytest.mark.deep
def test_undo_a_run_back_to_a_call_then_all_of_it(tmp_path: Path, work: Path) -> None:
    env, entries = _three_calls(tmp_path)
    run, first = str(entries[0]["run"]), str(entries[0]["call"])

    dry = _harness(env, "undo", "--run", run, "--to", first, "--dry-run")
    assert dry.returncode == 0 and "would undo 2 call(s)" in dry.stdout
    assert (work / "b.txt").exists()

    back = _harness(env, "undo", "--run", "last", "--to", first)
    assert back.returncode == 0, back.stderr
    assert (work / "a.txt").read_text() == "ONE\ntwo\nthree\n" and not (work / "b.txt").exists()

    everything = _harness(env, "undo", "--run", run[:8], "--all")
    assert everything.returncode == 0, everything.stderr
    assert (work / "a.txt").read_text() == "one\ntwo\nthree\n"
    assert (work / "a.txt").stat().st_mode & 0o777 == 0o640
    assert "[undone]" in _harness(env, "undo", "--run", run).stdout
    pruned = _harness(env, "undo", "--prune", "0")
    assert pruned.returncode == 0 and "forgot 3 applied change(s)" in pruned.stdout
    assert "no applied changes are journaled" in _harness(env, "undo").stdout


@pytest.mark.deep
def test_undo_usage_errors_say_how_to_fix_them(tmp_path: Path, work: Path) -> None:
    env = _env(tmp_path, [])
    empty = _harness(env, "undo")
    assert empty.returncode == 0 and "no applied changes are journaled" in empty.stdout
    for args, message in [
        (("--all",), "--to and --all need --run RUN"),
        (("x", "--all", "--run", "r"), "give one of CALL, --to CALL, --all or --prune"),
        (("--run", "nope", "--all"), "no applied changes are journaled"),
        (("call_nope",), "no applied change from call 'call_nope'"),
    ]:
        done = _harness(env, "undo", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert message in done.stderr, (args, done.stderr)
    helped = _harness(env, "undo", "--help")
    assert "harness undo --run RUN --to CALL" in helped.stdout


@pytest.mark.deep
@pytest.mark.skipif(not choose_sandbox("auto").overlay, reason="no overlay here")
def test_undo_a_bash_call_restores_a_symlink_and_a_deleted_file(tmp_path: Path, work: Path) -> None:
    os.symlink("a.txt", work / "link")
    command = "ln -sfn elsewhere link; echo new > c.txt; chmod 600 a.txt"
    env = _env(tmp_path, [_call("bash", command=command), "done"], tools="read,bash")
    ran = _harness(env, "run", "change things")
    assert ran.returncode == 0, ran.stderr
    assert os.readlink(work / "link") == "elsewhere"

    done = _harness(env, "undo", "--run", "last", "--all")

    assert done.returncode == 0, done.stderr
    assert os.readlink(work / "link") == "a.txt" and not (work / "c.txt").exists()
    assert (work / "a.txt").stat().st_mode & 0o777 == 0o640
