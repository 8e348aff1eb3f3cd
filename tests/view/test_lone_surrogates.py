"""A lone surrogate in a report or trace never crashes a reader (issue 41).

JSON may spell a lone UTF-16 surrogate (``"\\ud800"``); read as is, it makes a
string no UTF-8 writer takes, and ``harness eval compare`` and ``harness view``
crashed writing it out. Loaders keep it as its escape text instead.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.evals import load_report
from harness.evals._report import EvalReport, EvalRow
from harness.evals._rows import Verdict
from harness.jsonload import load_json

LONE = "\ud800"  # a high surrogate with no low one after it


def _report(path: Path, scenario: str, message: str) -> Path:
    row = EvalRow(scenario=scenario, nodeid=f"t::{scenario}", verdict=Verdict.PASS)
    data = EvalReport(rows=(row,)).model_dump(mode="json")
    data["rows"][0]["message"] = message
    data.pop("cases")
    path.write_text(json.dumps(data), encoding="utf-8")  # ensure_ascii: "\ud800" in the file
    return path


def _harness(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    "command",
    [
        pytest.param(
            ["eval", "compare", "old.json", "new.json"], id="eval-compare", marks=pytest.mark.deep
        ),
        pytest.param(["eval", "compare", "--json", "old.json", "new.json"], id="compare-json"),
        pytest.param(["view", "new.json", "-o", "page.html"], id="view-report"),
        pytest.param(["view", "--compare", "old.json", "new.json", "-o", "c.html"], id="view-cmp"),
    ],
)
def test_commands_read_a_report_holding_a_lone_surrogate(
    tmp_path: Path, command: list[str]
) -> None:
    _report(tmp_path / "old.json", "case", "fine")
    _report(tmp_path / "new.json", f"case{LONE}", f"odd {LONE} text")
    done = _harness(*command, cwd=tmp_path)
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr
    pages = list(tmp_path.glob("*.html"))
    for page in pages:
        assert "case\\\\ud800" in page.read_text("utf-8")  # shown escaped, inside the page's JSON


def test_a_report_holding_one_is_written_and_read_back(tmp_path: Path) -> None:
    row = EvalRow(scenario="s", nodeid="t::s", verdict=Verdict.FAIL, message=f"bad {LONE}")
    path = tmp_path / "report.json"
    EvalReport(rows=(row,)).write(path)
    assert load_report(path).rows[0].message == "bad \\ud800"


_ANY_CHAR = st.characters() | st.integers(0xD800, 0xDFFF).map(chr)


@given(st.text(_ANY_CHAR, max_size=40), st.booleans())
def test_any_text_loads_as_utf8_encodable(text: str, as_key: bool) -> None:
    document = json.dumps({text: 1} if as_key else {"k": [text]})
    loaded = load_json(document)
    value = next(iter(loaded)) if as_key else loaded["k"][0]
    value.encode("utf-8")  # never a UnicodeEncodeError
    if not any(0xD800 <= ord(c) <= 0xDFFF for c in text):
        assert value == text
