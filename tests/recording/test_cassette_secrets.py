"""The secret scan refuses to save keys, and checks existing cassettes."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core import CassetteError
from harness.recording import check_cassettes, scan_cassette_file, use_cassette
from harness.recording._format import parse_document
from harness.recording._secrets import brief
from harness.simulator import SimulatorServer

from .helpers import openai_client

CLEAN = "version: 1\ninteractions: []\n"


def _ask(sim: SimulatorServer, path: Path, prompt: str, mode: str = "once") -> None:
    with openai_client(sim.url) as client, use_cassette(path, record_mode=mode):
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": prompt}]
        )


@pytest.mark.parametrize(
    ("prompt", "kind"),
    [
        pytest.param("my key is sk-proj-abcdefghijklmnop", "api key", id="openai-key"),
        pytest.param("use sk-ant-api03-abcdefghijkl", "api key", id="anthropic-key"),
        pytest.param("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9", "bearer token", id="bearer"),
        pytest.param("aws AKIAIOSFODNN7EXAMPLE here", "AWS access key id", id="aws"),
    ],
)
def test_refuses_to_save_a_key_and_writes_nothing(
    sim: SimulatorServer, tmp_path: Path, prompt: str, kind: str
) -> None:
    path = tmp_path / "leak.yaml"
    with pytest.raises(CassetteError, match=rf"interaction 0, request\.body: {kind}") as caught:
        _ask(sim, path, prompt)
    assert not path.exists()
    assert list(tmp_path.iterdir()) == []  # no temporary file left either
    assert prompt.split()[-1] not in str(caught.value)  # the error does not repeat the secret


def test_refusal_keeps_the_existing_cassette(sim: SimulatorServer, tmp_path: Path) -> None:
    path = tmp_path / "keep.yaml"
    _ask(sim, path, "harmless")
    before = path.read_text()
    with pytest.raises(CassetteError, match="refusing to save"):
        _ask(sim, path, "key sk-test-SECRET123456", mode="new_episodes")
    assert path.read_text() == before


def test_environment_key_values_are_secrets(
    sim: SimulatorServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "plain-looking-value-42")
    with pytest.raises(CassetteError, match=r"value of \$ANTHROPIC_API_KEY"):
        _ask(sim, tmp_path / "env.yaml", "echo plain-looking-value-42")


def test_scan_cassette_file_names_interaction_and_field(tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    path.write_text(
        "version: 1\ninteractions:\n"
        "- request: {method: POST, uri: 'http://x/v1', body: ok, headers: {}}\n"
        "  response: {status: {code: 200}, headers: {}, body: {string: ok}}\n"
        "- request: {method: POST, uri: 'http://x/v1', body: ok,"
        " headers: {authorization: ['Bearer sk-live-0123456789abcdef']}}\n"
        "  response: {status: {code: 200}, headers: {}, body: {string: ok}}\n"
    )
    findings = scan_cassette_file(path)
    assert {(f.interaction, f.field) for f in findings} == {(1, "request.headers.authorization[0]")}
    assert "0123456789abcdef" not in str(findings[0])


def test_check_cassettes_walks_directories(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "clean.yaml").write_text(CLEAN)
    (tmp_path / "a" / "b" / "leak.json").write_text(
        '{"version": 1, "interactions": [], "x": "sk-abcdefghijklmn"}'
    )
    (tmp_path / "a" / "b" / "broken.yml").write_text("{ unclosed")
    (tmp_path / "a" / "notes.txt").write_text("sk-abcdefghijklmn")
    findings = check_cassettes([tmp_path / "a"])
    assert sorted((f.path.name, f.kind) for f in findings) == [
        ("broken.yml", "unreadable"),
        ("leak.json", "api key (sk-...)"),
    ]
    assert check_cassettes([tmp_path / "a" / "clean.yaml"]) == []


_WORDS = st.lists(st.text(string.ascii_letters + "'(),.", min_size=1, max_size=12), max_size=60)


@given(words=_WORDS, width=st.integers(min_value=20, max_value=200))
def test_brief_cuts_between_words(words: list[str], width: int) -> None:
    flat = " ".join(words)
    shown = brief("\n  ".join(words), width)
    assert len(shown) <= width and "\n" not in shown
    if len(flat) <= width:
        assert shown == flat
        return
    head = shown.removesuffix(" [...]")
    assert head != shown and flat.startswith(head)
    assert flat[len(head)] == " ", "the cut fell inside a word"


def test_check_findings_read_as_sentences(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harness.cli import app

    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe")
    # In a long-named folder: the parse error is one line now, the path makes it long.
    long_folder = tmp_path / ("a-long-folder-name-" * 8)
    long_folder.mkdir()
    (long_folder / "broken.yaml").write_text("a: [unclosed\n" + "b: " + "word " * 80 + "\n")
    (tmp_path / "other.yaml").write_text("interactions:\n- request: {method: POST}\n")
    (tmp_path / "layout.yaml").write_text(
        "version: 1\ninteractions:\n- request: {method: POST}\n  response: 5\n"
    )
    done = CliRunner().invoke(app, ["cassettes", "check", str(tmp_path)])
    assert done.exit_code == 1
    lines = {Path(line.split(":", 1)[0]).name: line for line in done.output.splitlines()}
    assert lines["bin.yaml"].startswith(f"{tmp_path / 'bin.yaml'}: cannot be read: ")
    assert f"{tmp_path / 'other.yaml'}: not replayable: " in lines["other.yaml"]
    assert f"{tmp_path / 'layout.yaml'}: interaction 0: malformed: " in lines["layout.yaml"]
    for line in lines.values():
        assert "(file)" not in line and "(layout)" not in line and ", (" not in line
    # A long reason is cut after a whole word, and says so.
    broken = long_folder / "broken.yaml"
    with pytest.raises(CassetteError) as caught:
        parse_document(broken, broken.read_text())
    whole = " ".join(str(caught.value).split())
    shown = lines["broken.yaml"].removeprefix(f"{broken}: cannot be read: ")
    assert shown.endswith(" [...]") and len(shown) < len(whole)
    head = shown.removesuffix(" [...]")
    assert whole.startswith(head) and whole[len(head)] == " "
