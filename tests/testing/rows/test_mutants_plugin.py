"""``--harness-mutants`` end to end: record evals against the simulator, then mutate them.

The generated evals range from strong (asserts what the run did) to useless
(asserts nothing), plus an eval that always fails: its kills must not count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.evals import (
    EvalMutants,
    MutantOutcome,
    MutantStatus,
    load_report,
    render_mutants,
    summarize_mutants,
)
from harness.simulator import SimulatorServer

pytestmark = pytest.mark.deep


SENTINEL = "SENTINEL-ALPHA-1234"
SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {
            "when": {"has_tool_results": False},
            "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        },
        {"when": {"last_tool_result_contains": SENTINEL}, "reply": f"a.txt holds {SENTINEL}"},
    ],
}

EVALS = f"""
import os
import socket
import sys

import pytest

from harness.recording import NetworkBlockedError

SENTINEL = {SENTINEL!r}
PROMPT = "What does a.txt hold?"
recorded = pytest.mark.parametrize("provider_name", ["openai"])


def _run(app, workspace):
    workspace.write("a.txt", f"the marker is {{SENTINEL}}")
    return app.run(PROMPT, session="s")


@pytest.mark.eval("strong")
@recorded
def test_strong(harness_app, workspace, trace):
    result = _run(harness_app, workspace)
    assert result.stop_reason == "final"
    assert result.text == f"a.txt holds {{SENTINEL}}"
    calls = trace.find_all(kind="tool.call")
    assert [(c.name, c.status) for c in calls] == [("read", "ok")]


@pytest.mark.eval("weak")
@recorded
def test_weak(harness_app, workspace):
    result = _run(harness_app, workspace)
    assert result.stop_reason in {{"final", "max_steps", "provider_error"}}


@pytest.mark.eval("nothing")
@recorded
def test_nothing(harness_app, workspace):
    _run(harness_app, workspace)


@pytest.mark.eval("refusal-only")
@recorded
def test_refusal_only(harness_app, workspace):
    assert _run(harness_app, workspace).text != "I can't help with that."


MUTANT_WORDS = (
    "drop_call", "corrupt_arg", "drop_marker", "alter_marker", "refuse", "stop_early",
    "repeat_call", "swap", "xfail", "harness_mutant", "original",
)


@pytest.mark.eval("gamer")
@recorded
def test_gamer(request, harness_app, workspace, tmp_path, provider):
    # An eval that fails only when it can tell it is a mutant: it must not be able to.
    _run(harness_app, workspace)
    node = request.node
    seen = " ".join([
        node.nodeid,
        node.name,
        repr(getattr(getattr(node, "callspec", None), "params", {{}})),
        repr(sorted(node.keywords)),
        repr([(m.name, m.args, m.kwargs) for m in node.iter_markers()]),
        repr(sorted(request.fixturenames)),
        repr(dict(os.environ)),
        repr(sys.argv),
        str(tmp_path),
        repr(sorted(p.name for p in tmp_path.parent.iterdir())),
        type(provider).__name__,
        repr({{k: v for k, v in vars(provider).items() if k != "_responses"}}),
    ])
    for word in MUTANT_WORDS:
        assert word not in seen, f"detected my mutant: {{word}}"


@pytest.mark.eval("always-fails")
@recorded
def test_always_fails(harness_app, workspace, harness_options):
    _run(harness_app, workspace)
    if harness_options.mutants:
        assert False, "this eval fails whatever the model does"


@pytest.mark.eval("crashy")
@recorded
def test_crashy(harness_app, workspace):
    result = _run(harness_app, workspace)
    assert result.text.split(" holds ")[1] == SENTINEL


@pytest.mark.eval("two-runs")
@recorded
def test_two_runs(harness_app, workspace):
    first = _run(harness_app, workspace)
    second = harness_app.run(PROMPT, session="other")
    assert (first.text, second.text) == (f"a.txt holds {{SENTINEL}}",) * 2


@pytest.mark.eval("offline")
@recorded
def test_offline(harness_app, workspace, harness_options):
    result = _run(harness_app, workspace)
    if harness_options.mutants:
        # The guard refuses before a packet leaves (192.0.2.1 is TEST-NET-1 anyway).
        with pytest.raises(NetworkBlockedError):
            socket.create_connection(("192.0.2.1", 443), timeout=1)
    assert SENTINEL in result.text


@pytest.mark.eval("scripted")
def test_scripted(harness_app, scripted_provider):
    scripted_provider.add("hi")
    assert harness_app.run("hi").text == "hi"


@pytest.mark.eval("no-provider")
def test_no_provider(workspace):
    assert workspace.root is not None
"""

STRONG_MUTANTS = {
    "drop_call.1",
    "corrupt_arg.1",
    "drop_marker.1",
    "alter_marker.1",
    "refuse.1",
    "stop_early.1",
    "repeat_call.1",
}


@pytest.fixture(scope="module")
def recorded_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose evals were recorded once against the simulator (then stopped)."""
    root = tmp_path_factory.mktemp("mutants")
    (root / "evals").mkdir()
    (root / "evals" / "test_evals.py").write_text(EVALS, "utf-8")
    (root / "pytest.ini").write_text(
        "[pytest]\nfilterwarnings = error\n"
        "addopts = -p no:cacheprovider -p no:randomly -p no:benchmark\n",
        "utf-8",
    )
    server = SimulatorServer(SIM_SCRIPT)
    server.start()
    try:
        done = _pytest(root, "--record-mode", "once", "--harness-base-url", server.url)
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    return root


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "PYTEST_"))}


def _basetemp(root: Path) -> list[str]:
    """A basetemp of the project's own for a pytest started here.

    Without one, pytest numbers its folder in the machine's shared temp root and,
    as it exits, removes old ones there, which races with every other pytest
    doing the same: a parallel suite's inner run then crashed with "Directory not
    empty" on another run's garbage folder.
    """
    return ["--basetemp", str(root / ".basetemp")]


def _pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pytest", "evals", "-m", "eval", *_basetemp(root), *args]
    return subprocess.run(
        command, cwd=root, env=_env(), capture_output=True, text=True, timeout=300, check=False
    )


def _harness_eval(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "harness", "eval", *args]
    return subprocess.run(
        command, cwd=root, env=_env(), capture_output=True, text=True, timeout=300, check=False
    )


@pytest.fixture(scope="module")
def mutated(recorded_project: Path) -> dict[str, EvalMutants]:
    """One serial ``--harness-mutants`` run over the recorded project, by scenario."""
    report = recorded_project / "mutants.json"
    done = _pytest(recorded_project, "--harness-mutants", "--harness-report", str(report))
    assert done.returncode == 1, done.stdout + done.stderr  # survivors fail as strict xpasses
    assert "xfailed" in done.stdout.splitlines()[-1]
    return {s.scenario: s for s in summarize_mutants(load_report(report).mutants)}


def test_a_strong_eval_kills_every_mutant(mutated: dict[str, EvalMutants]) -> None:
    strong = mutated["strong"]
    assert strong.status is MutantStatus.OK and strong.control is not None
    assert strong.control.outcome is MutantOutcome.PASS
    assert (strong.total, strong.killed, strong.survivors, strong.errors) == (7, 7, (), ())
    assert strong.source.value == "simulator"


@pytest.mark.parametrize("scenario", ["weak", "nothing"])
def test_an_eval_that_asserts_nothing_useful_cannot_fail(
    mutated: dict[str, EvalMutants], scenario: str
) -> None:
    weak = mutated[scenario]
    assert weak.status is MutantStatus.CANNOT_FAIL and weak.killed == 0
    assert {r.mutant for r in weak.survivors} == STRONG_MUTANTS
    assert weak.failing


def test_an_eval_that_always_fails_proves_nothing(mutated: dict[str, EvalMutants]) -> None:
    broken = mutated["always-fails"]
    assert broken.status is MutantStatus.CONTROL_FAILED
    assert broken.control is not None and "fails whatever the model does" in broken.control.message
    assert broken.failing


def test_a_crash_is_an_error_not_a_kill(mutated: dict[str, EvalMutants]) -> None:
    crashy = mutated["crashy"]
    errors = {r.mutant: r.message for r in crashy.errors}
    assert "refuse.1" in errors and errors["refuse.1"].startswith("IndexError")
    assert "refuse.1" not in {r.mutant for r in crashy.survivors}
    assert crashy.killed + len(crashy.errors) + len(crashy.survivors) == crashy.total


def test_runs_of_one_test_share_the_sequence_and_running_out_is_labelled(
    mutated: dict[str, EvalMutants],
) -> None:
    two = mutated["two-runs"]
    assert two.control is not None and two.control.outcome is MutantOutcome.PASS
    assert two.control.served == two.control.available == 4
    # Dropping the first answer leaves the second run short of one response.
    assert two.exhausted >= 1 and two.status is MutantStatus.OK


def test_mutants_run_with_the_network_blocked(mutated: dict[str, EvalMutants]) -> None:
    offline = mutated["offline"]
    assert offline.control is not None and offline.control.outcome is MutantOutcome.PASS


def test_evals_without_a_cassette_are_listed_as_not_mutated(
    mutated: dict[str, EvalMutants],
) -> None:
    for scenario, why in (
        ("scripted", "scripted provider: no cassette"),
        ("no-provider", "uses neither the provider fixture nor llm_cassette"),
    ):
        summary = mutated[scenario]
        assert summary.status is MutantStatus.NOT_MUTATED and summary.total == 0
        assert summary.control is not None and why in summary.control.message
        assert not summary.failing


def test_harness_eval_mutants_prints_the_table_and_fails_on_survivors_under_xdist(
    recorded_project: Path, mutated: dict[str, EvalMutants]
) -> None:
    report = recorded_project / "cli.json"
    gated = _harness_eval(
        recorded_project, "--mutants", "--fail-on", "survivors", "--report", str(report), "-n", "2"
    )
    assert gated.returncode == 1, gated.stdout + gated.stderr
    out = gated.stdout
    assert render_mutants(load_report(report)) in out
    lines = out.splitlines()
    strong = next(line for line in lines if line.startswith("strong "))
    assert strong.split()[2:] == ["simulator", "7", "7", "0", "0", "0", "100%", "ok"]
    weak = next(line for line in lines if line.startswith("weak "))
    assert weak.split()[2:] == ["simulator", "7", "0", "0", "7", "0", "0%", "CANNOT", "FAIL"]
    assert "  survived: refuse.1 (refusal in final answer 1)" in lines
    failing = sum(1 for s in mutated.values() if s.failing)
    assert f"--fail-on survivors: {failing} eval(s) let mutants through" in out
    # Parallel workers report the same outcomes as the serial run.
    parallel = {s.scenario: s for s in summarize_mutants(load_report(report).mutants)}
    assert {k: (v.status, v.killed, len(v.survivors)) for k, v in parallel.items()} == {
        k: (v.status, v.killed, len(v.survivors)) for k, v in mutated.items()
    }
    stored = json.loads(report.read_text("utf-8"))
    assert {m["outcome"] for m in stored["mutants"]} >= {"killed", "survived", "pass", "error"}

    lenient = _harness_eval(recorded_project, "--mutants", "-k", "strong")
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr


def test_a_bare_pytest_run_prints_the_kill_table(recorded_project: Path) -> None:
    done = _pytest(recorded_project, "--harness-mutants", "-k", "strong")
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout[done.stdout.index(" harness mutants ") :].splitlines()
    assert summary[1].startswith(
        "xfailed = killed (the eval failed), XPASS(strict) = survived (a request"
    )
    strong = next(line for line in summary if line.startswith("strong "))
    assert strong.split()[-2:] == ["100%", "ok"]


def test_fail_on_survivors_refuses_a_run_where_nothing_was_mutated(
    recorded_project: Path,
) -> None:
    done = _harness_eval(
        recorded_project, "--mutants", "--fail-on", "survivors", "-k", "scripted or no_provider"
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "0 cannot fail, 0 control failed, 2 not mutated" in done.stdout
    assert "no eval was mutated, so none has shown it can fail" in done.stdout


def test_an_eval_that_cannot_fail_or_is_weak_fails_harness_eval_mutants(
    recorded_project: Path,
) -> None:
    done = _harness_eval(recorded_project, "--mutants", "-k", "nothing or refusal_only")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    nothing = next(line for line in lines if line.startswith("nothing "))
    assert nothing.split()[-3:] == ["0%", "CANNOT", "FAIL"]
    # One kill in seven (the refusal) is 14%: weak, never ok.
    weak = next(line for line in lines if line.startswith("refusal-only "))
    assert weak.split()[-2:] == ["14%", "WEAK"]
    assert "2 eval(s) cannot show they fail when the model misbehaves" in done.stdout
    lenient = _harness_eval(
        recorded_project, "--mutants", "-k", "refusal_only", "--min-kill-rate", "0.1"
    )
    assert lenient.returncode == 0, lenient.stdout + lenient.stderr
    assert next(line for line in lenient.stdout.splitlines() if "refusal-only" in line).endswith(
        " ok"
    )


def test_the_cli_default_kill_rate_is_the_toolkits() -> None:
    from harness.cli._eval_cmd import DEFAULT_MIN_KILL_RATE
    from harness.evals.mutant_results import DEFAULT_MIN_KILL_RATE as TOOLKIT

    assert DEFAULT_MIN_KILL_RATE == TOOLKIT


def test_an_eval_cannot_tell_its_mutant_from_its_control(mutated: dict[str, EvalMutants]) -> None:
    gamer = mutated["gamer"]
    assert gamer.control is not None and gamer.control.outcome is MutantOutcome.PASS
    # It saw nothing to fail on, so every mutant survived: it cannot fail.
    assert gamer.status is MutantStatus.CANNOT_FAIL and gamer.killed == 0
    assert {r.mutant for r in gamer.survivors} == STRONG_MUTANTS


REPORT_DUMP = """
import json, os


def pytest_runtest_logreport(report):
    if report.when == "call" and report.outcome != "passed":
        with open(os.environ["REPORT_DUMP"], "a", encoding="utf-8") as out:
            out.write(json.dumps([report.nodeid, report.outcome, report.longreprtext]) + "\\n")
"""


def test_a_killed_mutants_report_is_its_reason_and_a_crash_keeps_its_traceback(
    recorded_project: Path, tmp_path: Path
) -> None:
    (tmp_path / "reportdump.py").write_text(REPORT_DUMP, "utf-8")
    dump = tmp_path / "reports.jsonl"
    env = {**_env(), "PYTHONPATH": str(tmp_path), "REPORT_DUMP": str(dump)}
    command = [sys.executable, "-m", "pytest", "evals", "-m", "eval", "--harness-mutants"]
    command += ["-k", "strong or crashy", "-p", "reportdump", *_basetemp(tmp_path)]
    subprocess.run(command, cwd=recorded_project, env=env, capture_output=True, timeout=300)
    reports = [json.loads(line) for line in dump.read_text("utf-8").splitlines()]
    killed = [text for nodeid, outcome, text in reports if "test_strong[" in nodeid]
    assert killed and all(  # the reason alone: no frames, no source
        text.startswith("mutant ") and " killed: " in text and "def test_strong" not in text
        for text in killed
    ), killed
    assert max(len(text.splitlines()) for text in killed) <= 4
    crash = next(text for nodeid, _, text in reports if "test_crashy[openai-refuse.1]" in nodeid)
    assert "IndexError" in crash and "def test_crashy" in crash  # the whole traceback
