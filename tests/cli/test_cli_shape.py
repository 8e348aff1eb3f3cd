"""The CLI's shape: run exit codes, --version, eval compare --json, --report PATH,
eval pass-through to pytest, health after allow/deny, the progress line and the
simulator without a key. Real ``harness`` processes throughout."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest

from harness import __version__
from harness.evals import EvalReport, EvalRow, Verdict


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HARNESS_", "OPENAI_", "ANTHROPIC_"))
    }
    env.update({"HARNESS_STATE_DIR": str(tmp_path / "state"), "HARNESS_WORKDIR": str(tmp_path)})
    env.update(extra)
    return env


def _harness(
    tmp_path: Path, *args: str, cwd: Path | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=_env(tmp_path, **extra),
        cwd=cwd or tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _scripted(tmp_path: Path, turns: list[object]) -> dict[str, str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    return {
        "HARNESS_PROVIDER": "scripted",
        "HARNESS_SCRIPT": str(script),
        "HARNESS_ENABLED_TOOLS": "read,write",
    }


# -- harness run: exit codes -----------------------------------------------------


@pytest.mark.deep
def test_run_final_exits_0(tmp_path: Path) -> None:
    done = _harness(tmp_path, "run", "hi", **_scripted(tmp_path, ["all done"]))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["all done", "[stop_reason: final, steps: 1]"]
    assert done.stderr == ""  # piped: no progress line, no noise


@pytest.mark.deep
def test_run_paused_for_approval_exits_3(tmp_path: Path) -> None:
    turns = [{"tool": "write", "arguments": {"path": "key.txt", "content": "k"}}, "done"]
    done = _harness(tmp_path, "run", "--json", "write it", **_scripted(tmp_path, turns))
    assert done.returncode == 3, done.stderr
    data = json.loads(done.stdout)
    assert data["stop_reason"] == "approval_required" and data["approval_id"]
    assert not (tmp_path / "key.txt").exists()


@pytest.mark.deep
def test_run_step_limit_exits_4(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    turns = [{"tool": "read", "arguments": {"path": "a.txt"}}] * 3
    done = _harness(tmp_path, "run", "--max-steps", "2", "read", **_scripted(tmp_path, turns))
    assert done.returncode == 4, done.stderr
    assert "[stop_reason: max_steps, steps: 2]" in done.stdout


@pytest.mark.deep
def test_run_provider_error_exits_1_and_prints_it_once(tmp_path: Path) -> None:
    done = _harness(tmp_path, "run", "hi", **_scripted(tmp_path, [{"error": "upstream 503"}]))
    assert done.returncode == 1
    assert "[stop_reason: provider_error, steps: 1]" in done.stdout
    output = done.stdout + done.stderr
    assert output.count("upstream 503") == 1, output
    assert done.stderr.splitlines() == ["error: upstream 503"]


@pytest.mark.deep
def test_run_help_documents_the_exit_codes(tmp_path: Path) -> None:
    done = _harness(tmp_path, "run", "--help")
    text = " ".join(done.stdout.split())
    assert "0 final answer, 3 paused for approval (approval_required)" in text
    assert "4 step limit reached (max_steps), 1 the provider or the run failed" in text


def test_version(tmp_path: Path) -> None:
    done = _harness(tmp_path, "--version")
    assert (done.returncode, done.stdout) == (0, f"harness {__version__}\n")


# -- the progress line -------------------------------------------------------------


def _run_on_a_terminal(tmp_path: Path, *args: str, **extra: str) -> tuple[int, str]:
    """Run harness with stdout and stderr on one pseudo-terminal; all it drew."""
    leader, follower = pty.openpty()
    env = _env(tmp_path, TERM="xterm", COLUMNS="100", **extra)
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", *args],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: the process is gone
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.deep
def test_progress_line_on_a_terminal_names_step_tool_and_time(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha")
    turns = [{"tool": "read", "arguments": {"path": "a.txt"}}, "read it"]
    code, drawn = _run_on_a_terminal(tmp_path, "run", "go", **_scripted(tmp_path, turns))
    assert code == 0, drawn
    assert "read it" in drawn
    assert "step 2 · " in drawn and "s" in drawn.split("step 2 · ", 1)[1]


@pytest.mark.deep
def test_no_progress_line_when_piped(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha")
    turns = [{"tool": "read", "arguments": {"path": "a.txt"}}, "read it"]
    done = _harness(tmp_path, "run", "go", **_scripted(tmp_path, turns))
    assert done.returncode == 0
    assert done.stderr == "" and "step 1 ·" not in done.stdout and "\x1b" not in done.stdout


# -- health ------------------------------------------------------------------------


@pytest.mark.deep
def test_health_shows_the_tools_left_after_allow_and_deny(tmp_path: Path) -> None:
    done = _harness(
        tmp_path,
        "health",
        "--json",
        HARNESS_ENABLED_TOOLS="read,write,edit,bash",
        HARNESS_TOOL_ALLOWLIST="read,write,bash",
        HARNESS_TOOL_DENYLIST="bash",
    )
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    assert info["enabled_tools"] == ["read", "write", "edit", "bash"]
    assert info["effective_tools"] == ["read", "write"]
    assert info["refused_tools"] == ["edit", "bash"]


@pytest.mark.deep
def test_health_text_lists_effective_tools(tmp_path: Path) -> None:
    done = _harness(
        tmp_path, "health", HARNESS_ENABLED_TOOLS="read,bash", HARNESS_TOOL_DENYLIST="bash"
    )
    assert "effective_tools: read\n" in done.stdout
    assert "refused_tools: bash\n" in done.stdout


# -- eval: compare --json, --report PATH, pass-through -------------------------------


def _report(path: Path, verdicts: dict[str, Verdict]) -> Path:
    rows = tuple(
        EvalRow(scenario=name, nodeid=f"evals/test_x.py::test_{name}", verdict=verdict)
        for name, verdict in verdicts.items()
    )
    EvalReport(rows=rows).write(path)
    return path


@pytest.mark.deep
def test_eval_compare_json(tmp_path: Path) -> None:
    old = _report(tmp_path / "old.json", {"edit": Verdict.PASS, "read": Verdict.PASS})
    new = _report(tmp_path / "new.json", {"edit": Verdict.FAIL, "read": Verdict.PASS})
    done = _harness(tmp_path, "eval", "compare", str(old), str(new), "--json")
    assert done.returncode == 1, done.stderr  # a regression fails by default
    data = json.loads(done.stdout)
    by_case = {case["case"]: case for case in data["cases"]}
    assert by_case["edit"]["status"] == "regression"
    assert (by_case["edit"]["old"]["passes"], by_case["edit"]["new"]["passes"]) == (1, 0)
    assert by_case["read"]["status"] == "same"
    failing = _harness(tmp_path, "eval", "compare", str(old), str(new), "--fail-on", "regression")
    assert failing.returncode == 1, failing.stderr
    gated = _harness(
        tmp_path, "eval", "compare", str(old), str(new), "--json", "--fail-on", "regression"
    )
    statuses = [case["status"] for case in json.loads(gated.stdout)["cases"]]
    assert gated.returncode == 1 and statuses.count("regression") == 1


@pytest.mark.deep
def test_eval_compare_and_merge_have_typer_help(tmp_path: Path) -> None:
    listed = _harness(tmp_path, "eval", "--help")
    for option in ("--report", "--epochs", "--evals-dir", "--baseline", "--mutants"):
        assert option in listed.stdout
    assert "compare" in listed.stdout and "merge" in listed.stdout
    compare = _harness(tmp_path, "eval", "compare", "--help")
    assert compare.returncode == 0 and "--json" in compare.stdout
    merge = _harness(tmp_path, "eval", "merge", "--help")
    assert merge.returncode == 0 and "--output" in merge.stdout


@pytest.fixture
def eval_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "evals").mkdir(parents=True)
    (project / "evals" / "test_tiny.py").write_text(
        "import pytest\n\n"
        "@pytest.mark.eval\ndef test_passes():\n    assert True\n\n"
        "@pytest.mark.eval\ndef test_breaks():\n    assert 1 == 2, 'one is not two'\n"
    )
    return project


PYTEST_QUIET = ("-p", "no:randomly", "-p", "no:cacheprovider")


@pytest.mark.deep
def test_report_path_writes_exactly_that_file(tmp_path: Path, eval_project: Path) -> None:
    target = eval_project / "out" / "report.json"
    done = _harness(tmp_path, "eval", "--report", str(target), *PYTEST_QUIET, cwd=eval_project)
    assert done.returncode == 1  # one eval fails
    written = sorted(p.relative_to(eval_project) for p in eval_project.rglob("*.json"))
    assert written == [Path("out/report.json")]
    assert done.stdout.rstrip().splitlines()[-1] == f"report: {target}"
    report = EvalReport.model_validate_json(target.read_text())
    assert {row.scenario: row.verdict for row in report.rows} == {
        "test_passes": Verdict.PASS,
        "test_breaks": Verdict.FAIL,
    }


@pytest.mark.deep
def test_eval_table_has_reason_and_epoch_columns(tmp_path: Path, eval_project: Path) -> None:
    target = tmp_path / "r.json"
    done = _harness(
        tmp_path,
        "eval",
        "--epochs",
        "2",
        "--report",
        str(target),
        *PYTEST_QUIET,
        cwd=eval_project,
    )
    table = done.stdout[done.stdout.index("scenario  ") :].splitlines()
    assert table[0].split()[:2] == ["scenario", "epoch"] and table[0].split()[-1] == "reason"
    body = [line.split() for line in table[2:6]]
    assert sorted((cells[0], cells[1]) for cells in body) == [
        ("test_breaks", "1"),
        ("test_breaks", "2"),
        ("test_passes", "1"),
        ("test_passes", "2"),
    ]
    breaks = [line for line in table[2:6] if line.startswith("test_breaks")]
    assert all(line.endswith("one is not two") for line in breaks), breaks


@pytest.mark.deep
def test_eval_passes_unknown_args_to_pytest(tmp_path: Path, eval_project: Path) -> None:
    target = tmp_path / "r.json"
    done = _harness(
        tmp_path,
        "eval",
        "--report",
        str(target),
        "-k",
        "passes",
        *PYTEST_QUIET,
        cwd=eval_project,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = EvalReport.model_validate_json(target.read_text())
    assert [row.scenario for row in report.rows] == ["test_passes"]


@pytest.mark.deep
def test_eval_flag_pytest_rejects_ends_with_its_usage_error(
    tmp_path: Path, eval_project: Path
) -> None:
    done = _harness(tmp_path, "eval", "--no-such-flag", *PYTEST_QUIET, cwd=eval_project)
    assert done.returncode == 2
    assert "unrecognized arguments: --no-such-flag" in done.stderr  # pytest's own words
    assert done.stderr.rstrip().splitlines()[-1].startswith("error: pytest refused")
    assert "no eval ran" not in done.stdout
    assert not list(eval_project.rglob("*.json"))


def test_eval_run_options_are_refused_before_a_sub_command(tmp_path: Path) -> None:
    old = _report(tmp_path / "old.json", {"edit": Verdict.PASS})
    done = _harness(tmp_path, "eval", "--epochs", "3", "compare", str(old), str(old))
    assert done.returncode == 2
    assert done.stderr.startswith("error: --epochs belong(s) to running evals")


def test_root_help_documents_errors_and_exit_codes(tmp_path: Path) -> None:
    done = _harness(tmp_path, "--help")
    text = " ".join(done.stdout.split())
    assert "HARNESS_DEBUG=1 shows the traceback" in text
    assert "Exit codes: 0 success, 1 failure, 2 bad usage or settings" in text
    assert "--version" in text
