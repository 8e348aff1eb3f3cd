"""What the CLI prints from the model or a trace cannot drive the person's terminal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.cli._terminal import terminal_safe

# Clear screen, hide the cursor, retitle the window, an OSC 8 link, a bidi override.
HOSTILE = (
    "done\x1b[2J\x1b[?25l\x1b]0;pwned\x07\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\u202egnp.exe"
)


def _harness(tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(HARNESS_STATE_DIR=str(tmp_path / "state"), HARNESS_WORKDIR=str(tmp_path))
    env.update(extra)
    return subprocess.run(
        [sys.executable, "-m", "harness", *args], env=env, capture_output=True, timeout=60
    )


def _scripted(tmp_path: Path, answer: str) -> dict[str, str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([answer]))
    return {"HARNESS_PROVIDER": "scripted", "HARNESS_SCRIPT": str(script)}


@pytest.mark.deep
def test_run_prints_a_hostile_answer_with_its_escapes_visible(tmp_path: Path) -> None:
    done = _harness(tmp_path, "run", "go", **_scripted(tmp_path, HOSTILE))
    assert done.returncode == 0, done.stderr
    assert b"\x1b" not in done.stdout and b"\x07" not in done.stdout
    assert "\u202e".encode() not in done.stdout
    first = done.stdout.decode().splitlines()[0]
    assert first.startswith("done\\x1b[2J\\x1b[?25l\\x1b]0;pwned\\x07")
    assert first.endswith("\\u202egnp.exe")


@pytest.mark.deep
def test_trace_show_content_escapes_a_hostile_payload(tmp_path: Path) -> None:
    env = _scripted(tmp_path, HOSTILE) | {"HARNESS_TRACE_MODE": "replay"}
    assert _harness(tmp_path, "run", "go", **env).returncode == 0
    shown = _harness(tmp_path, "trace", "show", "--last", "--content", "--width", "0")
    assert shown.returncode == 0, shown.stderr
    assert b"\x1b" not in shown.stdout
    assert b"\\x1b[2J" in shown.stdout


@pytest.mark.deep
def test_a_lone_surrogate_in_the_answer_is_printed_not_a_crash(tmp_path: Path) -> None:
    # A JSON script can spell a lone surrogate; a real provider's JSON can too.
    script = tmp_path / "script.json"
    script.write_text('["half \\ud800 a pair"]')
    env = {"HARNESS_PROVIDER": "scripted", "HARNESS_SCRIPT": str(script)}
    done = _harness(tmp_path, "run", "go", **env)
    assert done.returncode == 0, done.stderr
    # harness's JSON loader keeps a lone surrogate as its escape text (readable,
    # writable, never a crash), so the answer prints and is kept as spelled.
    assert done.stdout.decode().splitlines()[0] == "half \\ud800 a pair"
    memory = next((tmp_path / "state").rglob("memory.jsonl")).read_text("utf-8")
    assert "half \\\\ud800 a pair" in memory  # the answer was kept, not lost


@pytest.mark.deep
def test_an_undecodable_prompt_from_argv_runs(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(HARNESS_STATE_DIR=str(tmp_path / "state"), HARNESS_WORKDIR=str(tmp_path))
    done = subprocess.run(
        [sys.executable.encode(), b"-m", b"harness", b"run", b"caf\xff"],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().splitlines()[0] == "caf\ufffd"  # echo provider


@given(st.text())
def test_safe_text_has_no_control_character_but_newline_and_tab(text: str) -> None:
    safe = terminal_safe(text)
    safe.encode("utf-8")  # never raises: no lone surrogate survives
    assert all(ch in "\n\t" or not (ord(ch) < 0x20 or 0x7F <= ord(ch) <= 0x9F) for ch in safe)
    assert not any("\u202a" <= ch <= "\u202e" or "\u2066" <= ch <= "\u2069" for ch in safe)


@pytest.mark.parametrize("text", ["plain words", "tabs\tand\nlines", "ünïcødé ✓ 中文"])
def test_ordinary_text_is_unchanged(text: str) -> None:
    assert terminal_safe(text) == text
