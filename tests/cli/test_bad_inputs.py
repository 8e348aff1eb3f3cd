"""Every command answers bad input with one `error:` line, a documented exit code
and no traceback: a table of bad inputs, each run as a real ``harness`` process."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

DEPTH = 100_000  # far past Python's recursion limit


@dataclass(frozen=True)
class Case:
    """``harness ARGS`` with ``ENV``; ``{name}`` in args/env is a file from ``_files``."""

    args: tuple[str, ...]
    code: int
    fragment: str
    env: dict[str, str] = field(default_factory=dict)


def _files(root: Path) -> dict[str, str]:
    deep = "[" * DEPTH + "]" * DEPTH
    files = {
        "corrupt": "{nope",
        "deep": deep,
        "deep_object": '{"a":' * DEPTH + "1" + "}" * DEPTH,
        "wrong_type": '{"schema_version": 1, "rows": "not a list"}',
        "list": "[1, 2, 3]",
        "schema": '{"version": 1, "unknown_key": true}',
    }
    paths = {}
    for name, text in files.items():
        path = root / f"{name}.json"
        path.write_text(text)
        paths[name] = str(path)
    script_yaml = root / "script.yaml"
    script_yaml.write_text("version: 1\nrules: [\n  - {a: b\n")
    paths["script_yaml"] = str(script_yaml)
    latin = root / "latin.json"
    latin.write_bytes(b'["caf\xe9"]')
    paths["latin"] = str(latin)
    paths["missing"] = str(root / "missing.json")
    (root / "a_file").write_text("x")
    paths["a_file"] = str(root / "a_file")
    (root / "empty_dir").mkdir()
    paths["empty_dir"] = str(root / "empty_dir")
    return paths


SCRIPTED = {"HARNESS_PROVIDER": "scripted"}

CASES: dict[str, Case] = {
    # -- the root command --------------------------------------------------
    "unknown-command": Case(("nope",), 2, "No such command"),
    "root-bad-flag": Case(("--bogus",), 2, "--bogus"),
    # -- run: flags ----------------------------------------------------------
    "run-bad-flag": Case(("run", "--bogus", "hi"), 2, "--bogus"),
    "run-no-prompt": Case(("run",), 2, "PROMPT"),
    "run-empty-prompt": Case(("run", " "), 2, "prompt is empty"),
    "run-max-steps-0": Case(("run", "--max-steps", "0", "hi"), 2, "--max-steps"),
    "run-max-steps-text": Case(("run", "--max-steps", "many", "hi"), 2, "--max-steps"),
    "run-bad-mode": Case(("run", "--mode", "nope", "hi"), 2, "run mode"),
    "run-session-escape": Case(("run", "--session", "../evil", "hi"), 2, "letters, digits"),
    "run-session-slash": Case(("run", "--session", "a/b", "hi"), 2, "letters, digits"),
    # -- run: settings from the environment ---------------------------------
    "env-provider": Case(("run", "hi"), 2, "HARNESS_PROVIDER", {"HARNESS_PROVIDER": "gpt5"}),
    "env-steps-text": Case(("run", "hi"), 2, "HARNESS_MAX_STEPS", {"HARNESS_MAX_STEPS": "x"}),
    "env-steps-big": Case(("run", "hi"), 2, "at most 1000", {"HARNESS_MAX_STEPS": "5000"}),
    "env-stream": Case(("run", "hi"), 2, "HARNESS_STREAM", {"HARNESS_STREAM": "maybe"}),
    "env-trace-mode": Case(("run", "hi"), 2, "HARNESS_TRACE_MODE", {"HARNESS_TRACE_MODE": "v"}),
    "env-log-level": Case(("run", "hi"), 2, "HARNESS_LOG_LEVEL", {"HARNESS_LOG_LEVEL": "loud"}),
    "env-tools": Case(("run", "hi"), 2, "HARNESS_ENABLED_TOOLS", {"HARNESS_ENABLED_TOOLS": "x"}),
    "env-fuzzy": Case(
        ("run", "hi"), 2, "HARNESS_EDIT_FUZZY_THRESHOLD", {"HARNESS_EDIT_FUZZY_THRESHOLD": "2"}
    ),
    "env-workdir-missing": Case(
        ("run", "hi"), 2, "does not exist", {"HARNESS_WORKDIR": "/nonexistent/dir"}
    ),
    "env-workdir-file": Case(("run", "hi"), 2, "not a folder", {"HARNESS_WORKDIR": "{a_file}"}),
    "env-state-under-file": Case(
        ("run", "hi"), 2, "cannot be created", {"HARNESS_STATE_DIR": "{a_file}/state"}
    ),
    "env-state-is-file": Case(("run", "hi"), 2, "is a file", {"HARNESS_STATE_DIR": "{a_file}"}),
    "env-state-in-proc": Case(
        ("run", "hi"), 2, "cannot be created", {"HARNESS_STATE_DIR": "/proc/harness/state"}
    ),
    "script-unset": Case(("run", "hi"), 2, "HARNESS_SCRIPT", SCRIPTED),
    "script-missing": Case(
        ("run", "hi"), 2, "HARNESS_SCRIPT", {**SCRIPTED, "HARNESS_SCRIPT": "{missing}"}
    ),
    "script-corrupt": Case(
        ("run", "hi"), 2, "not valid JSON", {**SCRIPTED, "HARNESS_SCRIPT": "{corrupt}"}
    ),
    "script-deep": Case(("run", "hi"), 2, "", {**SCRIPTED, "HARNESS_SCRIPT": "{deep}"}),
    # PyYAML's three lines named the text "<unicode string>"; the file and line are one line.
    "script-yaml": Case(
        ("run", "hi"),
        2,
        "script.yaml' is not valid YAML: line 3, column 3",
        {**SCRIPTED, "HARNESS_SCRIPT": "{script_yaml}"},
    ),
    "script-latin1": Case(("run", "hi"), 2, "", {**SCRIPTED, "HARNESS_SCRIPT": "{latin}"}),
    "openai-remote-no-key": Case(
        ("run", "hi"),
        2,
        "OPENAI_API_KEY",
        {"HARNESS_PROVIDER": "openai", "HARNESS_BASE_URL": "https://api.example.invalid/v1"},
    ),
    # A URL without its scheme was taken for a remote host and blamed on the key.
    "base-url-no-scheme": Case(
        ("run", "hi"),
        2,
        "HARNESS_BASE_URL=127.0.0.1:8765 has no scheme; use http://127.0.0.1:8765",
        {"HARNESS_PROVIDER": "openai", "HARNESS_BASE_URL": "127.0.0.1:8765"},
    ),
    "sdk-base-url-no-scheme": Case(
        ("run", "hi"),
        2,
        "OPENAI_BASE_URL=127.0.0.1:8765 has no scheme; use http://127.0.0.1:8765",
        {"HARNESS_PROVIDER": "openai", "OPENAI_BASE_URL": "127.0.0.1:8765"},
    ),
    "base-url-ftp": Case(
        ("health",), 2, "use http:// or https://", {"HARNESS_BASE_URL": "ftp://127.0.0.1/"}
    ),
    # -- health, approvals, approve, reject ---------------------------------
    "health-bad-flag": Case(("health", "--bogus"), 2, "--bogus"),
    "health-parallel-0": Case(
        ("health",), 2, "HARNESS_MAX_PARALLEL_TOOLS", {"HARNESS_MAX_PARALLEL_TOOLS": "0"}
    ),
    "health-sandbox": Case(("health",), 2, "HARNESS_BASH_SANDBOX", {"HARNESS_BASH_SANDBOX": "x"}),
    "health-denylist": Case(("health",), 2, "rm", {"HARNESS_TOOL_DENYLIST": "rm"}),
    "approvals-session": Case(("approvals", "--session", "../x"), 2, "letters, digits"),
    "approvals-bad-flag": Case(("approvals", "--bogus"), 2, "--bogus"),
    "approve-no-id": Case(("approve",), 2, "APPROVAL_ID"),
    "approve-unknown-id": Case(("approve", "nope"), 1, "nope"),
    "approve-path-id": Case(("approve", "../../etc/passwd"), 1, ""),
    "reject-no-id": Case(("reject",), 2, "APPROVAL_ID"),
    "reject-session": Case(("reject", "x", "--session", ".hidden"), 2, "letters, digits"),
    # -- trace show ------------------------------------------------------------
    "trace-missing": Case(("trace", "show", "{missing}"), 2, "missing.json"),
    "trace-corrupt": Case(("trace", "show", "{corrupt}"), 2, "corrupt.json"),
    "trace-deep": Case(("trace", "show", "{deep_object}"), 2, ""),
    "trace-wrong-type": Case(("trace", "show", "{list}"), 2, ""),
    # -- eval and its sub-commands ----------------------------------------------
    "eval-epochs-0": Case(("eval", "--epochs", "0"), 2, "--epochs"),
    "eval-no-evals-dir": Case(("eval", "--evals-dir", "{missing}"), 2, "no evals folder"),
    "eval-report-dir": Case(("eval", "--report", "{empty_dir}"), 2, "is a folder"),
    "eval-fail-on-alone": Case(("eval", "--fail-on", "survivors"), 2, "--mutants"),
    "eval-fail-on-bad": Case(("eval", "--fail-on", "bogus"), 2, "--fail-on"),
    "compare-missing": Case(("eval", "compare", "{missing}", "{missing}"), 2, "does not exist"),
    "compare-corrupt": Case(("eval", "compare", "{corrupt}", "{corrupt}"), 2, "corrupt.json"),
    "compare-deep": Case(("eval", "compare", "{deep}", "{deep}"), 2, ""),
    "compare-deep-object": Case(("eval", "compare", "{deep_object}", "{deep_object}"), 2, ""),
    "compare-wrong-type": Case(("eval", "compare", "{wrong_type}", "{wrong_type}"), 2, ""),
    "compare-latin1": Case(("eval", "compare", "{latin}", "{latin}"), 2, "latin.json"),
    "compare-one-arg": Case(("eval", "compare", "{corrupt}"), 2, "Missing argument"),
    "compare-bad-fail-on": Case(
        ("eval", "compare", "{corrupt}", "{corrupt}", "--fail-on", "x"), 2, "--fail-on"
    ),
    "merge-no-output": Case(("eval", "merge", "{corrupt}"), 2, "--output"),
    "merge-missing": Case(("eval", "merge", "{missing}", "--output", "{missing}"), 2, ""),
    "merge-deep": Case(("eval", "merge", "{deep}", "--output", "{missing}"), 2, ""),
    # -- cassettes check --------------------------------------------------------
    "cassettes-missing": Case(("cassettes", "check", "{missing}"), 2, "no such file"),
    "cassettes-empty-dir": Case(("cassettes", "check", "{empty_dir}"), 2, "no cassette files"),
    "cassettes-not-a-cassette": Case(("cassettes", "check", "{list}"), 1, "not readable"),
    "cassettes-corrupt": Case(("cassettes", "check", "{corrupt}"), 1, "not readable"),
    # -- sim serve ---------------------------------------------------------------
    "sim-no-script": Case(("sim", "serve"), 2, "--script"),
    "sim-missing-script": Case(("sim", "serve", "--script", "{missing}"), 2, "no such file"),
    "sim-script-dir": Case(("sim", "serve", "--script", "{empty_dir}"), 2, "is a directory"),
    "sim-corrupt-script": Case(("sim", "serve", "--script", "{corrupt}"), 2, "corrupt.json"),
    "sim-deep-script": Case(("sim", "serve", "--script", "{deep}"), 2, ""),
    "sim-schema": Case(("sim", "serve", "--script", "{schema}"), 2, "schema"),
    "sim-port-high": Case(("sim", "serve", "--script", "{schema}", "--port", "99999"), 2, "port"),
    "sim-port-negative": Case(("sim", "serve", "--script", "{schema}", "--port", "-1"), 2, "port"),
    # -- serve ---------------------------------------------------------------------
    "serve-port-high": Case(("serve", "--port", "70000"), 2, "--port"),
    "serve-port-zero": Case(("serve", "--port", "0"), 2, "--port"),
    "serve-bad-mode": Case(("serve", "--feishu-mode", "pigeon"), 2, "--feishu-mode"),
}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _files(tmp_path_factory.mktemp("bad-inputs"))


def _environment(tmp_path: Path, extra: dict[str, str], files: dict[str, str]) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("HARNESS_", "OPENAI_", "ANTHROPIC_", "FEISHU_"))
    }
    env.update({"HARNESS_WORKDIR": str(tmp_path), "HARNESS_STATE_DIR": str(tmp_path / "state")})
    env.update({key: value.format(**files) for key, value in extra.items()})
    return env


def _harness(
    args: tuple[str, ...], env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_table_has_at_least_forty_bad_inputs() -> None:
    assert len(CASES) >= 40


# Each row starts `harness` in a process: the default run checks a sample, the deep tier all.
DEFAULT_ROWS = {
    "base-url-no-scheme",
    "run-no-prompt",
    "sim-no-script",
    "trace-deep",
    "unknown-command",
}


@pytest.mark.parametrize(
    "name",
    [n if n in DEFAULT_ROWS else pytest.param(n, marks=pytest.mark.deep) for n in sorted(CASES)],
)
def test_bad_input_gets_one_clear_error(name: str, tmp_path: Path, files: dict[str, str]) -> None:
    case = CASES[name]
    args = tuple(arg.format(**files) for arg in case.args)
    done = _harness(args, _environment(tmp_path, case.env, files), tmp_path)
    lines = done.stderr.splitlines()
    assert done.returncode == case.code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert "errors.pydantic.dev" not in done.stderr and "Value error," not in done.stderr
    assert "[type=" not in done.stderr
    assert 1 <= len(lines) <= 3, done.stderr
    assert any(line.startswith("error:") for line in lines), done.stderr
    assert case.fragment.lower() in done.stderr.lower(), done.stderr


@pytest.mark.deep
def test_bad_workdir_creates_nothing(tmp_path: Path, files: dict[str, str]) -> None:
    workdir = tmp_path / "typo" / "dir"
    env = _environment(tmp_path, {}, files)
    env.pop("HARNESS_STATE_DIR")
    env["HARNESS_WORKDIR"] = str(workdir)
    done = _harness(("run", "hi"), env, tmp_path)
    assert done.returncode == 2 and "does not exist" in done.stderr
    assert not (tmp_path / "typo").exists()


@pytest.mark.deep
def test_state_dir_check_leaves_nothing_behind(tmp_path: Path, files: dict[str, str]) -> None:
    env = _environment(tmp_path, {"HARNESS_STATE_DIR": str(tmp_path / "new" / "state")}, files)
    done = _harness(("health",), env, tmp_path)
    assert done.returncode == 0, done.stderr
    # health reads the configuration; the probe proved the folder can be made.
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        yield held.getsockname()[1]


@pytest.mark.deep
def test_sim_serve_on_a_busy_port(tmp_path: Path, files: dict[str, str], busy_port: int) -> None:
    script = tmp_path / "sim.yaml"
    script.write_text("version: 1\nrules:\n  - reply: {text: hi}\n")
    args = ("sim", "serve", "--script", str(script), "--port", str(busy_port))
    done = _harness(args, _environment(tmp_path, {}, files), tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: cannot listen on 127.0.0.1:{busy_port}: the port is already in use; stop "
        "what holds it or choose another port (port 0 picks a free one)"
    ]


@pytest.mark.deep
def test_debug_shows_the_traceback(tmp_path: Path, files: dict[str, str]) -> None:
    env = _environment(tmp_path, {"HARNESS_DEBUG": "1"}, files)
    done = _harness(("eval", "compare", files["corrupt"], files["corrupt"]), env, tmp_path)
    assert done.returncode != 0
    assert "Traceback" in done.stderr and "ConfigurationError" in done.stderr


@pytest.mark.deep
def test_serve_on_a_busy_port(tmp_path: Path, files: dict[str, str], busy_port: int) -> None:
    feishu = {
        "FEISHU_APP_ID": "cli_test",
        "FEISHU_APP_SECRET": "secret_test",
        "FEISHU_VERIFICATION_TOKEN": "tok",
    }
    env = _environment(tmp_path, feishu, files)
    done = _harness(("serve", "--port", str(busy_port)), env, tmp_path)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"error: port {busy_port} on 127.0.0.1 is already in use; stop what holds it or "
        "choose another with --port"
    ]
