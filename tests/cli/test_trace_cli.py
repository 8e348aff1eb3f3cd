"""``harness trace list`` and ``harness trace show`` as real subprocesses on real files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.tracing import FileTraceRecorder, Tracer, TraceTree
from tests.tracing.scripted_run import SECRET, record_traces


def _harness(tmp_path: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.pop("COLUMNS", None)
    env.update(HARNESS_STATE_DIR=str(tmp_path / "state"), HARNESS_WORKDIR=str(tmp_path))
    env.update(extra)
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _record(state: Path, session: str | None, stop: str, *, mode: str = "metadata") -> TraceTree:
    tracer = Tracer(FileTraceRecorder(state), mode=mode)  # type: ignore[arg-type]
    root = tracer.begin_trace("agent.run", session_key=session)
    with tracer.span("agent.step", attributes={"step": 1}):
        pass
    tree = tracer.end_trace(root, attributes={"stop_reason": stop, "steps": 1})
    assert tree is not None and tree.path is not None
    return tree


@pytest.fixture
def three_traces(tmp_path: Path) -> list[TraceTree]:
    """Three traces, oldest first, in two sessions and one without a session."""
    state = tmp_path / "state"
    return [
        _record(state, "alpha", "final"),
        _record(state, "beta", "max_steps"),
        _record(state, None, "final"),
    ]


def _listed_ids(stdout: str) -> list[str]:
    return [line.split()[0] for line in stdout.splitlines()[1:]]


@pytest.mark.deep
def test_list_is_newest_first_with_the_columns(
    tmp_path: Path, three_traces: list[TraceTree]
) -> None:
    done = _harness(tmp_path, "trace", "list")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    header, *rows = done.stdout.splitlines()
    assert header.split() == ["TRACE", "SESSION", "STARTED", "DURATION", "STOP", "STEPS"]
    assert _listed_ids(done.stdout) == [t.trace_id for t in reversed(three_traces)]
    newest = rows[0].split()
    assert newest[1] == "-"  # no session
    assert newest[-2:] == ["final", "1"]
    assert rows[1].split()[1] == "beta" and "max_steps" in rows[1]


@pytest.mark.deep
def test_list_filters_by_session_and_limits(tmp_path: Path, three_traces: list[TraceTree]) -> None:
    alpha = _harness(tmp_path, "trace", "list", "--session", "alpha")
    assert _listed_ids(alpha.stdout) == [three_traces[0].trace_id]
    limited = _harness(tmp_path, "trace", "list", "--limit", "2")
    assert _listed_ids(limited.stdout) == [three_traces[2].trace_id, three_traces[1].trace_id]
    as_json = json.loads(_harness(tmp_path, "trace", "list", "--json").stdout)
    assert [t["trace_id"] for t in as_json["traces"]] == [
        t.trace_id for t in reversed(three_traces)
    ]
    assert as_json["traces"][0]["capture_mode"] == "metadata"
    nothing = _harness(tmp_path, "trace", "list", "--session", "gamma")
    assert nothing.returncode == 0 and nothing.stdout == ""
    assert "no traces for session 'gamma'" in nothing.stderr


@pytest.mark.deep
@pytest.mark.parametrize(
    "content",
    [
        pytest.param('{"schema_version": 2, "trace_id": ', id="truncated"),
        pytest.param("[]", id="not-an-object"),
    ],
)
def test_a_corrupt_file_is_listed_as_unreadable_with_one_warning_line(
    tmp_path: Path, three_traces: list[TraceTree], content: str
) -> None:
    bad = tmp_path / "state" / "sessions" / "alpha" / "traces" / "broken.json"
    bad.write_text(content, "utf-8")
    done = _harness(tmp_path, "trace", "list")
    bad.unlink()  # the suite checks every trace file a test leaves behind
    assert done.returncode == 0
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert (
        done.stderr.startswith("warning: 1 trace file unreadable") and "broken.json" in done.stderr
    )
    assert "Traceback" not in done.stderr + done.stdout
    assert _listed_ids(done.stdout)[:3] == [t.trace_id for t in reversed(three_traces)]
    assert done.stdout.splitlines()[-1].startswith("unreadable")


@pytest.mark.deep
def test_show_last_picks_the_newest_trace(tmp_path: Path, three_traces: list[TraceTree]) -> None:
    done = _harness(tmp_path, "trace", "show", "--last")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"trace {three_traces[2].trace_id}  session -")
    beta = _harness(tmp_path, "trace", "show", "--last", "--session", "beta")
    assert beta.stdout.startswith(f"trace {three_traces[1].trace_id}  session beta")
    none = _harness(tmp_path, "trace", "show", "--last", "--session", "gamma")
    assert none.returncode == 2 and "no readable trace of session 'gamma'" in none.stderr


def _in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str, state: Path | None = None
) -> tuple[int, str]:
    from typer.testing import CliRunner

    from harness.cli import app

    for name in [k for k in os.environ if k.startswith("HARNESS_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("HARNESS_STATE_DIR", str(state or tmp_path / "state"))
    monkeypatch.setenv("HARNESS_WORKDIR", str(tmp_path))
    done = CliRunner().invoke(app, list(args))
    return done.exit_code, done.output


def test_show_without_a_trace_says_what_to_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output = _in_process(tmp_path, monkeypatch, "trace", "show")
    assert code == 2
    assert "(not both)" not in output
    assert "give a trace file" in output and "--last" in output
    assert "harness trace list" in output


def test_show_refuses_a_file_and_last_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output = _in_process(tmp_path, monkeypatch, "trace", "show", "x.json", "--last")
    assert code == 2 and "either a trace file or --last, not both" in output


@pytest.mark.parametrize("command", ["list", "show --last"], ids=["list", "show-last"])
def test_a_state_dir_that_is_a_file_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    state = tmp_path / "state.txt"
    state.write_text("not a folder\n")
    code, output = _in_process(tmp_path, monkeypatch, "trace", *command.split(), state=state)
    assert code == 2
    assert f"{state} is a file" in output and "HARNESS_STATE_DIR" in output


@pytest.mark.deep
def test_show_content_prints_redacted_payloads_of_a_replay_trace(tmp_path: Path) -> None:
    paused, _ = record_traces(tmp_path, trace_mode="replay")
    assert paused.path is not None
    done = _harness(tmp_path, "trace", "show", "--content", "--width", "0", str(paused.path))
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "| prompt:" in out and "Check the files and write the version down." in out
    assert "| observation:" in out and "version 7" in out  # what the read returned
    assert "| arguments:" in out and "deploy-key.txt" in out
    assert SECRET not in out  # redacted as stored
    assert "no content" not in out
    plain = _harness(tmp_path, "trace", "show", "--width", "0", str(paused.path))
    assert "version 7" not in plain.stdout  # payloads only with --content


@pytest.mark.deep
def test_show_content_on_a_metadata_trace_says_why_there_is_none(tmp_path: Path) -> None:
    paused, _ = record_traces(tmp_path, trace_mode="metadata")
    assert paused.path is not None
    done = _harness(tmp_path, "trace", "show", "--content", str(paused.path))
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith(f"no content: trace {paused.trace_id} was captured in metadata mode")
    assert "HARNESS_TRACE_MODE=replay" in last
    assert "Check the files" not in done.stdout


@pytest.mark.deep
@pytest.mark.parametrize("width", [60, 100, 140])
def test_show_wraps_to_the_width(tmp_path: Path, width: int) -> None:
    paused, _ = record_traces(tmp_path, trace_mode="replay")
    assert paused.path is not None
    done = _harness(tmp_path, "trace", "show", "--content", "--width", str(width), str(paused.path))
    lines = done.stdout.splitlines()
    assert all(len(line) <= width for line in lines[1:]), [x for x in lines if len(x) > width]
    unwrapped = _harness(tmp_path, "trace", "show", "--width", "0", str(paused.path)).stdout
    # Wrapping moves words, it never drops them.
    assert sorted(" ".join(unwrapped.splitlines()[1:]).split()) == sorted(
        " ".join(line for line in lines[1:] if not line.lstrip().startswith("|")).split()
    )


@pytest.mark.deep
def test_show_wraps_to_the_terminal_by_default(tmp_path: Path) -> None:
    paused, _ = record_traces(tmp_path, trace_mode="metadata")
    assert paused.path is not None
    done = _harness(tmp_path, "trace", "show", str(paused.path), COLUMNS="72")
    assert max(len(line) for line in done.stdout.splitlines()[1:]) <= 72
