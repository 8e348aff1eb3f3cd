"""Every YAML harness reads is bounded: alias bombs, deep nesting and size are refused."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import ConfigurationError
from harness.evals.cases import load_case_file
from harness.providers.script_file import load_script as load_turns
from harness.simulator import load_script as load_simulator_script
from harness.yamlload import MAX_YAML_DEPTH, DocumentBoundsError, document_bounds, load_yaml


def _bomb(tail: str) -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [{','.join([f'*{prev}'] * 9)}]")
    return "\n".join([*lines, tail])


def _deep(key: str, levels: int) -> str:
    # Block style: libyaml's flow-level limit does not apply, pydantic's recursion would.
    return (
        f"{key}:\n"
        + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(levels))
        + ("  " * (levels + 1) + "x: 1\n")
    )


READERS: dict[str, Callable[[Path], Any]] = {
    "HARNESS_SCRIPT": load_turns,
    "simulator script": load_simulator_script,
    "case file": load_case_file,
}


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_an_alias_bomb_is_one_clear_error(tmp_path: Path, reader: Callable[[Path], Any]) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(_bomb("turns: [*i]"))
    with pytest.raises(ConfigurationError, match="alias bomb") as caught:
        reader(path)
    assert str(path) in str(caught.value) or path.name in str(caught.value)


@pytest.mark.parametrize("reader", READERS.values(), ids=READERS.keys())
def test_deep_nesting_is_one_clear_error(tmp_path: Path, reader: Callable[[Path], Any]) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(_deep("turns", 1_000))
    with pytest.raises(ConfigurationError, match=f"deeper than {MAX_YAML_DEPTH} levels"):
        reader(path)


def test_a_deep_case_file_in_flow_style_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("- name: x\n  prompt: hi\n  checks: " + "[" * 900 + "]" * 900 + "\n")
    with pytest.raises(ConfigurationError, match="deeper than"):
        load_case_file(path)


def test_aliases_a_dumper_wrote_for_a_repeated_object_still_load() -> None:
    shared = {"role": "user", "content": "same"}
    text = yaml.dump({"a": [shared, shared]}, Dumper=yaml.SafeDumper)
    assert "&id001" in text
    assert load_yaml(text, source="doc") == {"a": [shared, shared]}


def test_the_error_names_the_source() -> None:
    with pytest.raises(DocumentBoundsError, match=r"^my\.yaml is refused: its YAML aliases"):
        load_yaml(_bomb("x: [*i]"), source="my.yaml")


_TREES = st.recursive(
    st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=30,
)


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


@pytest.mark.deep
@given(_TREES)
def test_the_measured_depth_matches_the_loaded_value(value: Any) -> None:
    text = yaml.safe_dump(value)
    depth = _depth(value)
    assert document_bounds(text, max_depth=depth) is None
    if depth:
        assert document_bounds(text, max_depth=depth - 1) is not None
