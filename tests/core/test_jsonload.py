"""The depth-limited JSON loader and the readers that use it: deep is an error, never a crash."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import Settings, build_application
from harness.core import ApprovalError, ConfigurationError, HarnessError
from harness.evals._report import EvalReport, load_report
from harness.jsonload import DEFAULT_MAX_DEPTH, JsonTooDeepError, json_depth, load_json
from harness.providers import ScriptedProvider, tool_call

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab,:'),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=30,
)


def _depth(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    return 0


@pytest.mark.deep
@given(json_values)
def test_the_measured_depth_is_the_real_nesting(value: Any) -> None:
    text = json.dumps(value)
    assert json_depth(text.encode()) == _depth(value)
    assert load_json(text, max_depth=max(_depth(value), 1)) == value


# Every JSON value json.dumps can write, floats and escapes included.
any_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=25,
)


@given(any_json, st.booleans())
def test_the_fast_parser_reads_what_json_loads_reads(value: Any, ascii_only: bool) -> None:
    # load_json parses shallow documents with pydantic_core; it must agree with json.loads.
    text = json.dumps(value, ensure_ascii=ascii_only)
    parsed = load_json(text.encode("utf-8", "surrogatepass"))
    assert parsed == json.loads(text)
    assert json.dumps(parsed) == json.dumps(json.loads(text))  # -0.0 and 1e16 alike


def test_a_lone_surrogate_escape_reads_as_its_escape_text() -> None:
    # Issue 41: a lone surrogate has no UTF-8 form, so it is kept as the six characters.
    loaded = load_json(b'{"a": "\\ud800", "\\udc00": 1, "b": [NaN], "c": "\\ud83d\\ude00"}')
    assert loaded["a"] == "\\ud800" and "\\udc00" in loaded
    assert loaded["c"] == "\U0001f600"  # a pair is one character, kept as it is


@pytest.mark.deep
@given(json_values)
def test_anything_deeper_than_the_limit_is_refused(value: Any) -> None:
    deep = [[value]]
    with pytest.raises(JsonTooDeepError):
        load_json(json.dumps(deep), max_depth=_depth(deep) - 1)


def test_a_megabyte_of_brackets_is_a_clear_error_naming_the_source() -> None:
    with pytest.raises(JsonTooDeepError, match=r"state\.json nests 500000 levels deep"):
        load_json("[" * 500_000 + "]" * 500_000, source="state.json")


def test_the_error_is_a_harness_error_and_a_value_error() -> None:
    assert issubclass(JsonTooDeepError, HarnessError) and issubclass(JsonTooDeepError, ValueError)


def test_a_deep_but_allowed_document_parses_without_recursion_error() -> None:
    depth = 20_000
    assert load_json("[" * depth + "]" * depth, max_depth=depth) is not None


DEEP = "[" * (DEFAULT_MAX_DEPTH + 1) + "]" * (DEFAULT_MAX_DEPTH + 1)


def test_a_deep_report_is_a_configuration_error_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(f'{{"schema_version": 2, "rows": {DEEP}}}')
    with pytest.raises(ConfigurationError, match=r"eval report .*old\.json nests 202 levels"):
        load_report(path)
    EvalReport().write(path)  # the control: a real report reads back
    assert load_report(path).rows == ()


def _paused(tmp_path: Path) -> Any:
    settings = Settings(
        workdir=tmp_path, state_dir=tmp_path / "state", enabled_tools=("read", "bash")
    )
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "keep.txt").write_text("deleting it pauses the call\n")
    provider = ScriptedProvider([tool_call("bash", command="rm -rf build; touch ran"), "done"])
    app = build_application(settings, provider=provider)
    result = app.run("clean up", session="s")
    assert result.stop_reason == "approval_required"
    return app, result.approval_id


@pytest.mark.parametrize("which", ["approval", "checkpoint"])
def test_a_deep_approval_or_checkpoint_is_refused_and_nothing_runs(
    tmp_path: Path, which: str
) -> None:
    app, approval_id = _paused(tmp_path)
    record = app.approvals.load(approval_id)
    path = (
        app.approvals.path_for("s", approval_id)
        if which == "approval"
        else app.checkpoints.path_for("s", record.checkpoint_id)
    )
    text = path.read_text()
    path.write_text(text.replace('"schema_version"', f'"deep": {DEEP}, "schema_version"', 1))
    with pytest.raises(ApprovalError, match="nests 202 levels deep"):
        app.resume_approval(approval_id, "approve", session="s")
    assert not (tmp_path / "ran").exists()
    path.write_text(text)  # the control: the untouched files resume and run the call
    assert app.resume_approval(approval_id, "approve", session="s").stop_reason == "final"
    assert (tmp_path / "ran").exists()
