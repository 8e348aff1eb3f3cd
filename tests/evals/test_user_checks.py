"""Checks of your own: registered from a conftest or a case file's ``checks_from:``,
they fail and pass rows like harness's own; whether a case can fail, whether a
check needs harness's runtime and whether it checks a conversation are derived
from each check; a bad registration is one clear line.

Keys here start with ``t_`` and are registered once per process (module level),
so no test depends on another's registration and none clashes with the docs'.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from harness.core.errors import ConfigurationError
from harness.evals import Check, CheckContext, register_check
from harness.evals.builtin_checks import BUILTIN_CHECKS
from harness.evals.cases import CaseChecks, load_case_file
from harness.evals.check import needs_runtime
from harness.evals.check_registry import registered_checks
from harness.evals.checks import run_checks

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class WordsAbsent:
    """The answer says none of these words; an empty list asks for nothing."""

    key: str = "t_words_absent"
    config: Any = tuple[str, ...]
    reads: frozenset[str] = frozenset({"answer"})

    def can_fail(self, config: tuple[str, ...]) -> bool:
        return bool(config)

    def run(self, config: tuple[str, ...], evidence: CheckContext) -> list[str]:
        said = [word for word in config if word in evidence.answer]
        return [f"t_words_absent: the answer says {said}"] if said else []


class SpanLimit(BaseModel):
    spans: int


@dataclass(frozen=True)
class SpanCount:
    """At most ``spans`` tool spans: reads the traces, so it needs harness's runtime."""

    key: str = "t_span_limit"
    config: Any = SpanLimit
    reads: frozenset[str] = frozenset({"traces"})

    def can_fail(self, config: SpanLimit) -> bool:
        return True

    def run(self, config: SpanLimit, evidence: CheckContext) -> list[str]:
        assert evidence.traces is not None
        found = sum(1 for t in evidence.traces for s in t.walk() if s.kind == "tool.call")
        return [] if found <= config.spans else [f"t_span_limit: {found} tool spans"]


WORDS_ABSENT = register_check(WordsAbsent())
SPAN_LIMIT = register_check(SpanCount())


def _case_file(tmp_path: Path, checks: str, *, head: str = "", target: bool = False) -> Path:
    path = tmp_path / "cases.yaml"
    run = "    target: mod:fn\n" if target else ""
    path.write_text(
        f"version: 1\n{head}cases:\n  - name: c1\n    workspace: w\n    prompt: Go.\n{run}"
        f"    checks:\n{checks}",
        "utf-8",
    )
    return path


def _load_error(path: Path) -> str:
    with pytest.raises(ConfigurationError) as caught:
        load_case_file(path)
    message = str(caught.value)
    assert "\n" not in message
    return message


# -- end to end: a conftest's check and a case file's check on harness's runtime --

MARKER = "SENTINEL-NOTE-7E1B"
SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {
            "when": {"has_tool_results": False},
            "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "note.txt"}}]},
        },
        {
            "when": {"has_tool_results": True},
            "fill": "SENTINEL-NOTE-[A-Z0-9]+",
            "reply": "The marker is {match}.",
        },
    ],
}
CONFTEST = """
from harness.evals import register_check


class WordLimit:
    key = "t_conftest_max_words"
    config = int
    reads = frozenset({"answer"})

    def can_fail(self, config):
        return True

    def run(self, config, evidence):
        words = len(evidence.answer.split())
        return [] if words <= config else [f"t_conftest_max_words: {words} words, at most {config}"]


register_check(WordLimit())
"""
USER_CHECKS = """
class ReadCount:
    key = "t_file_reads"
    config = int
    reads = frozenset({"calls"})

    def can_fail(self, config):
        return True

    def run(self, config, evidence):
        reads = sum(1 for call in evidence.calls if call.name == "read")
        return [] if reads == config else [f"t_file_reads: {reads} read(s), expected {config}"]


READS = ReadCount()
"""


def _row(name: str, words: int, reads: int) -> str:
    return (
        f"  - name: {name}\n    workspace: cases/note\n    prompt: Read note.txt, say the marker.\n"
        f"    tools: [read]\n    checks:\n      answer_contains: [{MARKER}]\n"
        f"      t_conftest_max_words: {words}\n      t_file_reads: {reads}\n"
    )


def test_registered_checks_fail_one_row_and_pass_another(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    evals = pytester.path / "evals"
    (evals / "cases").mkdir(parents=True)
    shutil.copy(ROOT / "evals" / "test_cases.py", evals / "test_user_cases.py")
    (evals / "conftest.py").write_text(CONFTEST, "utf-8")
    (pytester.path / "user_checks.py").write_text(USER_CHECKS, "utf-8")
    pytester.syspathinsert()
    workspace = pytester.path / "fixtures" / "cases" / "note"
    workspace.mkdir(parents=True)
    (workspace / "note.txt").write_text(f"marker: {MARKER}\n", "utf-8")
    (evals / "cases" / "note.yaml").write_text(
        "version: 1\nchecks_from: ['user_checks:READS']\ncases:\n"
        + _row("holds", words=10, reads=1)
        + _row("misses", words=2, reads=3),
        "utf-8",
    )
    server = sim_server(SIM_SCRIPT)
    result = pytester.runpytest(
        "--harness-provider", "openai", "-p", "no:randomly", "--record-mode", "once",
        "--harness-base-url", server.url,
    )  # fmt: skip
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*verdict: case 'misses'*",
            "*- t_conftest_max_words: 4 words, at most 2",
            "*- t_file_reads: 1 read(s), expected 3",
        ]
    )
    assert "case 'holds'" not in result.stdout.str()


# -- derived: can it fail, does it need the runtime, does it check a conversation --


def test_a_case_whose_only_check_is_vacuous_is_refused(tmp_path: Path) -> None:
    refused = _load_error(_case_file(tmp_path, "      t_words_absent: []\n"))
    assert "cases.yaml: case 'c1': checks: a case needs a check that can fail" in refused
    assert "t_words_absent" in refused  # the list of keys is the registry's
    (case,) = load_case_file(_case_file(tmp_path, "      t_words_absent: [sorry]\n"))
    assert (WORDS_ABSENT, ("sorry",)) in case.checks.asked()


def test_a_check_reading_the_runtime_is_refused_on_a_target(tmp_path: Path) -> None:
    refused = _load_error(_case_file(tmp_path, "      t_span_limit: {spans: 2}\n", target=True))
    assert re.search(
        r"case 'c1': .*t_span_limit need\(s\) harness's own runtime; .*t_words_absent", refused
    )
    (case,) = load_case_file(_case_file(tmp_path, "      t_words_absent: [x]\n", target=True))
    # On a target's evidence (no traces) a runtime check does not run; the others do.
    evidence = CheckContext(answer="x marks it", workdir=tmp_path)
    assert run_checks(case.checks, evidence) == ["t_words_absent: the answer says ['x']"]


def test_the_derived_lists_are_the_ones_once_kept_by_hand() -> None:
    runtime = {check.key for check in BUILTIN_CHECKS if needs_runtime(check)}
    assert runtime == {
        "stop_reason", "steps", "tools_called", "tools_failed", "tools_not_called",
        "calls", "observations", "trace_outline", "judge",
    }  # fmt: skip
    talk = {check.key for check in BUILTIN_CHECKS if "conversation" in check.reads}
    assert talk == {"said_contains", "said_not_contains", "state", "max_turns", "conversation_end"}
    # Every field of CaseChecks is a built-in check, and every built-in check a field.
    assert set(CaseChecks.model_fields) == {check.key for check in BUILTIN_CHECKS}
    assert needs_runtime(SPAN_LIMIT) and not needs_runtime(WORDS_ABSENT)


def test_a_user_check_of_a_conversation_needs_a_user_block(tmp_path: Path) -> None:
    @dataclass(frozen=True)
    class Turns:
        key: str = "t_turns_said"
        config: Any = int
        reads: frozenset[str] = frozenset({"conversation"})

        def can_fail(self, config: int) -> bool:
            return True

        def run(self, config: int, evidence: CheckContext) -> list[str]:
            return []

    check = Turns()
    if "t_turns_said" not in registered_checks():
        register_check(check)
    refused = _load_error(_case_file(tmp_path, "      t_turns_said: 2\n      steps: 1\n"))
    assert "t_turns_said check(s) a conversation: give a user block" in refused


# -- bad input: one line saying what was wrong --


@pytest.mark.parametrize(
    ("checks", "says"),
    [
        pytest.param("      t_nope: 1\n", "checks.t_nope: unknown field", id="unknown-key"),
        pytest.param(
            "      t_words_absent: 3\n", "checks.t_words_absent: expected a list", id="type"
        ),
        pytest.param(
            "      t_span_limit: {}\n", "checks.t_span_limit.spans: Field required", id="model"
        ),
    ],
)
def test_a_bad_check_value_names_file_case_and_key(tmp_path: Path, checks: str, says: str) -> None:
    assert f"cases.yaml: case 'c1': {says}" in _load_error(_case_file(tmp_path, checks))


@dataclass(frozen=True)
class _Bad:
    key: Any = "t_bad"
    config: Any = int
    reads: Any = frozenset({"answer"})

    def can_fail(self, config: Any) -> bool:
        return True

    def run(self, config: Any, evidence: CheckContext) -> list[str]:
        return []


@pytest.mark.parametrize(
    ("check", "says"),
    [
        pytest.param(
            object(), "object is not a Check: give it key, config, reads", id="not-a-check"
        ),
        pytest.param(_Bad(key="Bad-Key"), "'Bad-Key' is not a case-file key", id="key"),
        pytest.param(_Bad(reads=frozenset({"answr"})), "unknown: ['answr']", id="reads"),
        pytest.param(_Bad(reads=frozenset()), "reads must be a non-empty frozenset", id="no-reads"),
        pytest.param(_Bad(key="files"), "the key 'files' is taken by BuiltinCheck", id="builtin"),
        pytest.param(_Bad(key="t_words_absent"), "is taken by WordsAbsent", id="duplicate"),
        pytest.param(_Bad(config=object()), "is not a type pydantic can validate", id="config"),
    ],
)
def test_a_bad_registration_is_one_clear_line(check: Any, says: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(says)) as caught:
        register_check(check)
    assert "\n" not in str(caught.value)


def test_a_conftest_imported_again_takes_its_key_over() -> None:
    # pytester's in-process runs and importlib.reload make a new class of the same
    # name in the same module: the new object is the one this run's case files mean.
    namespace: dict[str, Any] = {"__name__": "t_conftest_again"}
    source = (
        "from typing import Any\n"
        "class Again:\n"
        "    key = 't_again'\n"
        "    config = bool\n"
        "    reads = frozenset({'answer'})\n"
        "    def can_fail(self, config: Any) -> bool: return bool(config)\n"
        "    def run(self, config: Any, evidence: Any) -> list[str]: return []\n"
    )
    exec(source, namespace)
    first = register_check(namespace["Again"]())
    exec(source, namespace)
    second = register_check(namespace["Again"]())
    assert first is not second and registered_checks()["t_again"] is second
    with pytest.raises(ConfigurationError, match="'t_again' is taken by Again"):
        register_check(_Bad(key="t_again"))  # another class: still refused


def test_the_same_check_registers_twice_and_is_a_check() -> None:
    assert register_check(WORDS_ABSENT) is WORDS_ABSENT
    assert isinstance(WORDS_ABSENT, Check) and isinstance(BUILTIN_CHECKS[0], Check)


def test_a_checks_module_that_fails_to_import_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "t_broken_syntax.py").write_text("def (:\n")
    (tmp_path / "t_broken_raise.py").write_text("raise RuntimeError('boom')\n")
    for module, says in (
        ("t_broken_syntax", "importing t_broken_syntax raised SyntaxError, line 1: "),
        ("t_broken_raise", "importing t_broken_raise raised RuntimeError: boom"),
    ):
        path = _case_file(tmp_path, "      steps: 1\n", head=f"checks_from: ['{module}:X']\n")
        refused = _load_error(path)
        assert f"checks_from '{module}:X': {says}" in refused and "\n" not in refused, refused


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        pytest.param("t_no_such_module:X", "is it on sys.path?", id="module"),
        pytest.param("harness.evals.check:NOPE", "harness.evals.check has no NOPE", id="attribute"),
        pytest.param(
            "harness.evals.check:EVIDENCE",
            "frozenset is not a Check: give it key, config, reads, can_fail(config) and "
            "run(config, evidence)",
            id="not-a-check",
        ),
    ],
)
def test_a_bad_checks_from_is_one_line(tmp_path: Path, spec: str, says: str) -> None:
    path = _case_file(tmp_path, "      steps: 1\n", head=f"checks_from: ['{spec}']\n")
    refused = _load_error(path)
    assert f"cases.yaml: checks_from {spec!r}: " in refused and refused.endswith(says), refused


# -- parsing, for any input --


@given(st.lists(st.text(max_size=12), max_size=5))
def test_a_user_check_value_round_trips_through_the_loader(words: list[str]) -> None:
    checks = CaseChecks.model_validate({"t_words_absent": words, "steps": 1})
    assert dict((c.key, v) for c, v in checks.asked())["t_words_absent"] == tuple(words)
    assert "t_words_absent" in checks.given()


@given(st.text(max_size=20))
def test_only_lowercase_keys_are_case_file_keys(key: str) -> None:
    # Empty reads: a valid key is refused for its reads, so nothing is ever registered.
    with pytest.raises(ConfigurationError) as caught:
        register_check(_Bad(key=key, reads=frozenset()))
    bad_key = "is not a case-file key" in str(caught.value)
    assert bad_key == (re.fullmatch(r"[a-z][a-z0-9_]*", key) is None)
