"""The secret scan refuses to save keys, and checks existing cassettes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core import CassetteError
from harness.recording import check_cassettes, scan_cassette_file, use_cassette
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
