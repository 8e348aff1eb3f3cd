"""``harness serve``: option parsing, clear failures, and the wiring it hands to uvicorn."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import harness.cli._serve_cmd  # noqa: F401 - registers the command on the app
import harness.integrations.feishu as feishu
from harness.cli import app

FEISHU_ENV = {
    "FEISHU_APP_ID": "cli_test",
    "FEISHU_APP_SECRET": "secret_test",
    "FEISHU_VERIFICATION_TOKEN": "tok",
}


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name in (*FEISHU_ENV, "FEISHU_ENCRYPT_KEY", "FEISHU_BASE_URL", "HARNESS_FEISHU_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HARNESS_WORKDIR", str(tmp_path))
    monkeypatch.setenv("HARNESS_STATE_DIR", str(tmp_path / "state"))
    return dict(FEISHU_ENV)


class FakeServer:
    """Stands in for uvicorn: serves the built ASGI app to a test client once."""

    def __init__(self, asgi: Any, **options: Any) -> None:
        self.asgi = asgi
        self.options = options
        self.responses: dict[str, Any] = {}

    def run(self) -> None:
        from starlette.testclient import TestClient

        with TestClient(self.asgi) as client:
            self.responses["health"] = client.get(
                "/health", headers={"Authorization": "Bearer tok"}
            )
            self.responses["challenge"] = client.post(
                "/custom/hook", json={"type": "url_verification", "challenge": "c", "token": "tok"}
            )


def test_help_lists_the_options() -> None:
    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--feishu-path", "--feishu-mode", "http", "ws"):
        assert option in result.output


def test_missing_extra_fails_with_the_install_command(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "lark_oapi", None)  # find_spec -> None: "not installed"
    result = CliRunner().invoke(app, ["serve"], env=env)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and 'pip install "harness-toolkit[feishu]"' in lines[0]
    assert "lark_oapi" in lines[0]


def test_missing_credentials_fail_in_one_line(env: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["serve"], env={"FEISHU_APP_ID": "cli_test"})
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        "error: the Feishu adapter needs FEISHU_APP_SECRET, FEISHU_VERIFICATION_TOKEN; "
        "copy them from the app's page in the Feishu developer console"
    )


@pytest.mark.deep
@pytest.mark.parametrize("mode", ["http", "ws"])
def test_serve_wires_the_app_for_uvicorn(
    env: dict[str, str], monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    servers: list[FakeServer] = []
    connections: list[Any] = []

    def fake_make_server(asgi: Any, **options: Any) -> FakeServer:
        servers.append(FakeServer(asgi, **options))
        return servers[-1]

    monkeypatch.setattr(feishu, "make_server", fake_make_server)
    monkeypatch.setattr(feishu, "start_long_connection", lambda *a: connections.append(a))
    args = ["serve", "--port", "8123", "--feishu-path", "/custom/hook", "--feishu-mode", mode]
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    (server,) = servers
    assert (server.options["host"], server.options["port"]) == ("127.0.0.1", 8123)
    health = server.responses["health"].json()
    assert health["feishu_path"] == ("/custom/hook" if mode == "http" else None)
    if mode == "http":
        assert server.responses["challenge"].json() == {"challenge": "c"}
        assert connections == []
    else:
        assert server.responses["challenge"].status_code == 404  # events come over ws
        assert len(connections) == 1


def test_unknown_mode_is_refused(env: dict[str, str]) -> None:
    result = CliRunner().invoke(app, ["serve", "--feishu-mode", "smtp"], env=env)
    assert result.exit_code == 2 and "smtp" in result.output + result.stderr
