"""File names in previews and prompts: one line each, nothing hidden, nothing forged.

A newline in a file name used to start a line of its own in the approval
prompt (``harness approvals``, the Feishu message), so a call could forge a
``=== deleted`` section or a ``reasons:`` line. Names are now quoted the way
git quotes them; the quoting is reversible and never holds a line break.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness import Settings, build_application
from harness.approval.preview import render_preview
from harness.effects import changeset_preview, layer_reader, read_changeset
from harness.effects._names import escape_line, shown_path, unquote_name
from harness.integrations.feishu._channel import format_approval_message
from harness.providers import ScriptedProvider, tool_call
from harness.tools.sandbox import choose_sandbox

FORGED = "=== deleted precious.txt"
# A name holding a newline, a forged section, a bidi override and a key-looking word
# (a sensitive path, so the name is in a risk reason too).
NAME = f"a\n{FORGED}\u202eexe.key"

_NAMES = st.text(
    st.characters(blacklist_characters="/\x00", blacklist_categories=()), min_size=1
).map(lambda name: name.encode("utf-8", "surrogatepass").decode("utf-8", "surrogateescape"))


@given(name=_NAMES | st.binary(min_size=1).map(os.fsdecode))
def test_a_shown_name_is_one_plain_line_and_names_exactly_one_name(name: str) -> None:
    shown = shown_path(name)
    assert "\n" not in shown and "\r" not in shown
    assert all(ch == " " or ch.isprintable() for ch in shown), shown
    assert unquote_name(shown) == name


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("plain.txt", "plain.txt"),
        ("a b.txt", "a b.txt"),
        ("数据.txt", "数据.txt"),
        ("a\nb", '"a\\nb"'),
        ("tab\there", '"tab\\there"'),
        ("esc\x1b[2J", '"esc\\x1b[2J"'),
        ("bidi\u202etxt.exe", '"bidi\\u202etxt.exe"'),
        (os.fsdecode(b"caf\xe9.txt"), '"caf\\xe9.txt"'),
        ('"quoted"', '"\\"quoted\\""'),
        ("back\\slash", '"back\\\\slash"'),
        (" lead", '" lead"'),
    ],
    ids=repr,
)
def test_names_are_quoted_like_git_quotes_them(name: str, shown: str) -> None:
    assert shown_path(name) == shown


def test_a_line_keeps_plain_text_and_escapes_newlines() -> None:
    assert escape_line("deletes a.txt") == "deletes a.txt"
    assert escape_line("deletes a\nb\\c") == "deletes a\\nb\\\\c"


def test_a_changeset_preview_shows_odd_names_quoted(tmp_path: Path) -> None:
    work, upper = tmp_path / "work", tmp_path / "upper"
    work.mkdir()
    upper.mkdir()
    odd = [NAME, os.fsdecode(b"caf\xe9.txt")]
    for name in odd:
        (upper / name).write_text("x\n")
    changeset = read_changeset(upper, work)
    preview = changeset_preview(changeset, work, layer_reader(upper))
    preview.model_dump_json()  # no lone surrogate left to refuse
    for text in (preview.summary, preview.files, preview.diff):
        assert not any(line.startswith(FORGED) for line in text.split("\n"))
        assert "\u202e" not in text
    assert shown_path(NAME) in preview.files
    assert '"caf\\xe9.txt"' in preview.files


@pytest.mark.skipif(not choose_sandbox("auto").overlay, reason="bwrap cannot mount an overlay")
def test_a_newline_in_a_file_name_forges_no_line_of_the_prompt(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "precious.txt").write_text("keep\n")
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("read", "bash"),
        approval_provider="cli",
    )
    command = "printf x > \"$(printf 'a\\n=== deleted precious.txt\\u202eexe.key')\""
    app = build_application(
        settings, provider=ScriptedProvider([tool_call("bash", command=command), "done"])
    )
    try:
        result = app.run("go", session="demo")
        assert result.stop_reason == "approval_required", result.text
        assert result.approval_id is not None
        record = app.approvals.load(result.approval_id)
    finally:
        app.close()
    assert (work / NAME).exists() is False  # held, not applied
    texts = {
        "approvals": render_preview(record.preview, approval_id=record.approval_id),
        "feishu": format_approval_message(record),
        "run": result.text,
        "reasons": "\n".join(record.risk_reasons),
    }
    for where, text in texts.items():
        lines = text.split("\n")
        assert not any(line.lstrip().startswith(FORGED) for line in lines), where
        assert "\u202e" not in text, where
    assert shown_path(NAME) in texts["approvals"]
    assert shown_path(NAME) in texts["feishu"]
