"""Every YAML reader names its file when the text is not YAML: one line with the file,
the line and the column, never PyYAML's ``"<unicode string>"`` over three lines."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import HarnessError
from harness.evals.cases import load_case_file
from harness.evals.prices import load_prices
from harness.evals.provenance import cassette_source
from harness.evals.recorded_responses import read_recorded_responses
from harness.recording import use_cassette
from harness.simulator import load_script
from harness.testing.rows.http_mutants import cassette_api
from harness.yamlload import YamlSyntaxError, load_yaml

BROKEN = "version: 1\nitems: [\n  - {a: b\n"  # an unclosed flow mapping at line 3


def _open_cassette(path: Path) -> None:
    with use_cassette(path, record_mode="none"):
        pass


LOADERS: dict[str, Callable[[Path], object]] = {
    "case-file": load_case_file,
    "prices": lambda path: load_prices({"HARNESS_PRICES": str(path)}),
    "simulator-script": load_script,
    "cassette": _open_cassette,
    "cassette-source": cassette_source,
    "cassette-mutants": lambda path: read_recorded_responses(path, "openai"),
    "http-mutants": cassette_api,
}


@pytest.mark.parametrize("loader", list(LOADERS), ids=list(LOADERS))
def test_a_yaml_error_is_one_line_naming_the_file(loader: str, tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(BROKEN)
    with pytest.raises(HarnessError) as raised:
        LOADERS[loader](path)
    message = str(raised.value)
    assert str(path) in message or "broken.yaml" in message, message
    assert "line 3, column 3" in message, message
    assert "<unicode string>" not in message and "\n" not in message, message


@given(st.text(max_size=40))
def test_load_yaml_fails_only_with_its_one_line_error(text: str) -> None:
    try:
        load_yaml(text, source="doc.yaml")
    except YamlSyntaxError as exc:
        assert str(exc).startswith("doc.yaml is not valid YAML: ") and "\n" not in str(exc)
