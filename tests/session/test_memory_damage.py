"""Damaged session state never breaks a session, and memory is read from its end."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import RunMode, Settings, build_application
from harness.providers import ScriptedProvider
from harness.session import MemoryEntry, SessionMemoryStore, SessionPlanStore

DEEP = "[" * 300 + "]" * 300


def _line(role: str, content: str) -> bytes:
    return MemoryEntry(role=role, content=content).model_dump_json().encode() + b"\n"


def _damaged_memory(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(
        _line("user", "first question")  # line 1
        + b'{"role": "assistant", "content": "caf\xe9"}\n'  # line 2: Latin-1, not UTF-8
        + _line("assistant", "first answer")  # line 3
        + DEEP.encode()
        + b"\n"  # line 4: nested 300 deep
        + b'{"role": "user", "content": 42}\n'  # line 5: wrong type
        + b"\n"  # line 6: blank, fine
        + b"{not json\n"  # line 7
        + _line("user", "second question")  # line 8
    )


def test_a_damaged_memory_file_still_runs_and_one_warning_names_the_lines(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings(workdir=tmp_path, state_dir=tmp_path / "state")
    provider = ScriptedProvider(["fine"])
    app = build_application(settings, provider=provider)
    memory = tmp_path / "state" / "sessions" / "s" / "memory.jsonl"
    _damaged_memory(memory)

    with caplog.at_level(logging.WARNING, logger="harness.session"):
        result = app.run("third question", session="s")

    assert (result.stop_reason, result.text) == ("final", "fine")
    sent = [m.content for m in provider.requests[0].messages[1:]]
    assert sent == ["first question", "first answer", "second question", "third question"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, warnings
    assert str(memory) in warnings[0]
    assert (
        "line(s) 2 (not UTF-8), 4 (nested too deep), 5 (not a memory entry), 7 (not JSON)"
        in warnings[0]
    )
    # The run's own entries were appended on a line of their own and read back.
    assert [e.content for e in app.memory.load("s", limit=2)] == ["third question", "fine"]


@pytest.mark.deep
def test_the_cli_run_works_on_damaged_memory_and_says_which_lines(tmp_path: Path) -> None:
    # Outside the workdir: damage written by hand inside it would be refused as planted.
    state = tmp_path / "state"
    _damaged_memory(state / "sessions" / "chat" / "memory.jsonl")
    (tmp_path / "work").mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(HARNESS_STATE_DIR=str(state), HARNESS_WORKDIR=str(tmp_path / "work"))
    done = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--json", "--session", "chat", "hello"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["stop_reason"] == "final"
    assert "Traceback" not in done.stderr
    assert "line(s) 2 (not UTF-8), 4 (nested too deep)" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_only_the_tail_is_read_so_damage_before_it_is_not_even_seen(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = SessionMemoryStore(tmp_path, block_size=256)
    path = store.path_for("s")
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff broken\n" + b"".join(_line("user", f"q{i}") for i in range(500)))
    with caplog.at_level(logging.WARNING, logger="harness.session"):
        tail = store.load("s", limit=3)
    assert [e.content for e in tail] == ["q497", "q498", "q499"]
    assert caplog.records == []
    with caplog.at_level(logging.WARNING, logger="harness.session"):
        everything = store.load("s")
    assert len(everything) == 500 and "line(s) 1 (not UTF-8)" in caplog.records[0].getMessage()


def test_limit_zero_reads_nothing(tmp_path: Path) -> None:
    store = SessionMemoryStore(tmp_path)
    store.append("s", MemoryEntry(role="user", content="x"))
    assert store.load("s", limit=0) == [] and len(store.load("s")) == 1


lines = st.lists(
    st.one_of(
        st.builds(
            lambda role, text: ("ok", _line(role, text)),
            st.sampled_from(["user", "assistant"]),
            st.text(max_size=40),  # newlines and non-ASCII inside content are escaped
        ),
        st.sampled_from([("bad", b"\xc3(\n"), ("bad", b"{oops\n"), ("bad", b"[1, 2]\n")]),
        st.just(("blank", b"\n")),
    ),
    max_size=40,
)


@pytest.mark.deep
@settings(max_examples=150, deadline=None)
@given(lines, st.integers(1, 50), st.integers(1, 64), st.booleans())
def test_reading_backwards_in_blocks_equals_reading_forwards(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[str, bytes]],
    limit: int,
    block: int,
    cut_last_newline: bool,
) -> None:
    store = SessionMemoryStore(tmp_path_factory.mktemp("m"), block_size=block)
    path = store.path_for("s")
    path.parent.mkdir(parents=True)
    data = b"".join(raw for _, raw in rows)
    if cut_last_newline and data.endswith(b"\n"):
        data = data[:-1]
    path.write_bytes(data)
    # Forwards, the obvious way: every line that is a valid entry.
    expected = []
    for raw in data.split(b"\n"):
        try:
            expected.append(MemoryEntry.model_validate(json.loads(raw.decode())))
        except ValueError:
            continue
    assert store.load("s") == expected
    assert store.load("s", limit=limit) == expected[-limit:]


@pytest.mark.parametrize(
    "content",
    [b"\xff\xfe", DEEP.encode(), b'"just a string"', b'{"plan": 7}', b"{"],
    ids=["bad-utf8", "deep", "not-object", "wrong-type", "truncated"],
)
def test_a_corrupt_plan_is_ignored_with_a_warning_and_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: bytes
) -> None:
    settings = Settings(workdir=tmp_path, state_dir=tmp_path / "state")
    provider = ScriptedProvider(["1. look around", "done"])
    app = build_application(settings, provider=provider)
    plan = SessionPlanStore(tmp_path / "state").path_for("s")
    plan.parent.mkdir(parents=True)
    plan.write_bytes(content)
    with caplog.at_level(logging.WARNING, logger="harness.session"):
        result = app.run("do it", mode=RunMode.PLAN_ACT, session="s")
    assert (result.stop_reason, result.text) == ("final", "done")
    assert any(str(plan) in r.getMessage() for r in caplog.records)
    # The run made a new plan first (the corrupt one was not used), then acted.
    assert "TODO plan" not in provider.requests[0].messages[0].content
