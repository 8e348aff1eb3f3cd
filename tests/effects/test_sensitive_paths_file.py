"""A project adds sensitive paths in ``.harness/sensitive-paths``; it can never remove one."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import Settings, build_application
from harness.app import Application
from harness.core import ConfigurationError
from harness.effects._codepaths import DEFAULT_CODE_PATHS, DEFAULT_PATTERNS
from harness.effects._sensitive_file import load_code_paths, parse_sensitive_lines
from harness.providers import ScriptedProvider, tool_call


def _app(tmp_path: Path, lines: str, provider: ScriptedProvider) -> Application:
    work = tmp_path / "work"
    (work / ".harness").mkdir(parents=True)
    (work / ".harness" / "sensitive-paths").write_text(lines)
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("read", "write"),
        approval_provider="cli",
    )
    return build_application(settings, provider=provider)


def test_a_path_the_file_adds_is_held_for_approval(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [tool_call("write", path="deploy/release.sh", content="echo ship\n"), "asked"]
    )
    app = _app(tmp_path, "# deploy scripts run in CI\n\ndeploy/**\n", provider)
    result = app.run("write the release script", session="demo")
    assert result.stop_reason == "approval_required", result.text
    assert not (tmp_path / "work" / "deploy" / "release.sh").exists()
    record = app.approvals.load(result.approval_id or "")
    assert any(".harness/sensitive-paths (deploy/**)" in r for r in record.risk_reasons)


def test_a_path_the_file_does_not_list_is_written(tmp_path: Path) -> None:
    provider = ScriptedProvider([tool_call("write", path="notes.txt", content="hi\n"), "ok"])
    result = _app(tmp_path, "deploy/**\n", provider).run("go", session="demo")
    assert result.stop_reason == "final"
    assert (tmp_path / "work" / "notes.txt").read_text() == "hi\n"


@pytest.mark.parametrize("line", ["-tox.ini", "!tox.ini", "- Makefile"])
def test_a_line_removing_a_default_is_refused_and_the_default_stays(
    tmp_path: Path, line: str
) -> None:
    provider = ScriptedProvider([tool_call("write", path="tox.ini", content="[tox]\n"), "ok"])
    with pytest.raises(ConfigurationError, match=r"sensitive-paths:2: .* can only add paths"):
        _app(tmp_path, f"deploy/**\n{line}\n", provider)
    assert not (tmp_path / "work" / "tox.ini").exists()


def test_a_bad_line_names_its_file_and_line(tmp_path: Path) -> None:
    (tmp_path / ".harness").mkdir()
    (tmp_path / ".harness" / "sensitive-paths").write_text("a\n# note\n+\n")
    with pytest.raises(ConfigurationError, match=r"sensitive-paths:3: '\+' names no pattern"):
        load_code_paths(tmp_path)


def test_without_the_file_the_defaults_apply(tmp_path: Path) -> None:
    assert load_code_paths(tmp_path) == DEFAULT_CODE_PATHS


_LINE = st.text(st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=20)


@given(st.lists(_LINE, max_size=8))
def test_the_parser_only_ever_adds(lines: list[str]) -> None:
    text = "\n".join(lines)
    try:
        patterns = parse_sensitive_lines(text, "f")
    except ConfigurationError as exc:
        assert str(exc).startswith("f:")  # every refusal names file and line
        return
    wanted = [
        line.strip().removeprefix("+").strip()
        for line in text.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]
    assert patterns == tuple(dict.fromkeys(wanted))
    assert all(p and p[0] not in "-!" and p.isprintable() for p in patterns)
    code = DEFAULT_CODE_PATHS.adding(patterns, "f")
    kept = {p.pattern for p in code.patterns}
    assert {p for p, _ in DEFAULT_PATTERNS} <= kept and set(patterns) <= kept


@given(st.sampled_from([p for p, _ in DEFAULT_PATTERNS]), st.sampled_from(["-", "!", "+-", "+ !"]))
def test_no_line_removes_a_default(pattern: str, sign: str) -> None:
    with pytest.raises(ConfigurationError, match=r"f:1: .* can only add paths"):
        parse_sensitive_lines(f"{sign}{pattern}\n", "f")
