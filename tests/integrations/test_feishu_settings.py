"""FeishuSettings from the environment, webhook checks, the public surface, lazy imports."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import harness.integrations.feishu as feishu
from harness.core import ConfigurationError
from harness.integrations.feishu import (
    DEFAULT_FEISHU_PATH,
    FeishuMessenger,
    FeishuSettings,
    RecordingMessenger,
    WebhookRejected,
    feishu_signature,
    verify_webhook,
)


def test_from_env_reads_every_variable() -> None:
    settings = FeishuSettings.from_env(
        {
            "FEISHU_APP_ID": "cli_1",
            "FEISHU_APP_SECRET": "s3cret",
            "FEISHU_VERIFICATION_TOKEN": "tok-9f8e",
            "FEISHU_ENCRYPT_KEY": "key",
            "FEISHU_BASE_URL": "http://127.0.0.1:9",
            "HARNESS_FEISHU_APPROVERS": " ou_a, ou_b ,,",
            "HARNESS_FEISHU_PATH": "/hooks/feishu",
        }
    )
    assert settings.app_id == "cli_1" and settings.approvers == frozenset({"ou_a", "ou_b"})
    assert settings.path == "/hooks/feishu" and settings.base_url == "http://127.0.0.1:9"
    assert settings.encrypt_key.get_secret_value() == "key"
    assert "s3cret" not in repr(settings) and "tok-9f8e" not in repr(settings)


def test_defaults_are_fail_closed() -> None:
    settings = FeishuSettings.from_env({})
    assert settings.approvers == frozenset() and settings.path == DEFAULT_FEISHU_PATH


def test_override_beats_the_environment() -> None:
    env = {"HARNESS_FEISHU_PATH": "/a"}
    assert FeishuSettings.from_env(env, path="/b").path == "/b"
    assert FeishuSettings.from_env(env, path=None).path == "/a"


@pytest.mark.parametrize("path", ["no-slash", "/health", "/a/../b", "/has space"])
def test_bad_path_names_the_variable(path: str) -> None:
    with pytest.raises(ConfigurationError, match="HARNESS_FEISHU_PATH"):
        FeishuSettings.from_env({"HARNESS_FEISHU_PATH": path})


@pytest.mark.parametrize(
    ("webhook", "missing"),
    [
        pytest.param(
            True, "FEISHU_APP_ID, FEISHU_APP_SECRET, FEISHU_VERIFICATION_TOKEN", id="http"
        ),
        pytest.param(False, "FEISHU_APP_ID, FEISHU_APP_SECRET", id="ws"),
    ],
)
def test_require_names_every_missing_variable(webhook: bool, missing: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        FeishuSettings().require(webhook=webhook)
    assert f"needs {missing};" in str(caught.value)


def test_require_passes_when_complete() -> None:
    FeishuSettings(app_id="a", app_secret="b", verification_token="c").require(webhook=True)


def test_webhook_needs_a_configured_token() -> None:
    body = json.dumps({"type": "url_verification", "challenge": "c", "token": ""}).encode()
    with pytest.raises(WebhookRejected) as caught:
        verify_webhook(body, {}, verification_token="")
    assert caught.value.status == 401


@pytest.mark.parametrize("body", [b"[1, 2]", b"\xff\xfe", b""], ids=["array", "binary", "empty"])
def test_webhook_malformed_body_is_400(body: bytes) -> None:
    with pytest.raises(WebhookRejected) as caught:
        verify_webhook(body, {}, verification_token="t")
    assert caught.value.status == 400


def test_signature_matches_feishu_definition() -> None:
    # sha256(timestamp + nonce + encrypt_key + body), hex.
    import hashlib

    expected = hashlib.sha256(b"1700000000" + b"n1" + b"key" + b'{"a":1}').hexdigest()
    assert feishu_signature("1700000000", "n1", "key", b'{"a":1}') == expected


MODULES = [
    "_bounded_json",
    "_channel",
    "_client",
    "_commands",
    "_dedup",
    "_events",
    "_fakes",
    "_incoming",
    "_longconn",
    "_serial",
    "_server",
    "settings",
    "_webhook",
]


def _isort_style(name: str) -> tuple[int, str]:
    # ruff RUF022 order: CONSTANTS, then Classes, then functions
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


@pytest.mark.parametrize("module", ["", *MODULES])
def test_all_is_sorted_and_resolves(module: str) -> None:
    loaded = importlib.import_module(f"harness.integrations.feishu{'.' if module else ''}{module}")
    names = loaded.__all__
    assert names == sorted(names, key=_isort_style)
    assert all(hasattr(loaded, name) for name in names)


def test_package_re_exports_every_module_surface() -> None:
    for module in MODULES:
        loaded = importlib.import_module(f"harness.integrations.feishu.{module}")
        assert set(loaded.__all__) <= set(feishu.__all__), module
    assert isinstance(RecordingMessenger(), FeishuMessenger)


@pytest.mark.deep
def test_importing_the_adapter_does_not_import_the_extra() -> None:
    code = (
        "import sys, harness, harness.integrations.feishu, harness.cli._serve_cmd; "
        "print([m for m in ('lark_oapi', 'starlette', 'uvicorn') if m in sys.modules])"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_dotenv_is_read_under_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FEISHU_APP_ID", raising=False)
    (tmp_path / ".env").write_text("FEISHU_APP_ID=cli_file\nHARNESS_FEISHU_PATH=/from-file\n")
    monkeypatch.setenv("HARNESS_FEISHU_PATH", "/from-env")
    settings = FeishuSettings.from_env()
    assert (settings.app_id, settings.path) == ("cli_file", "/from-env")
    assert FeishuSettings.from_env(path="/given").path == "/given"
    assert FeishuSettings().app_id == ""  # Python construction reads nothing


def test_a_bad_value_is_one_line_naming_the_variable() -> None:
    with pytest.raises(ConfigurationError) as caught:
        FeishuSettings.from_env({"HARNESS_FEISHU_PATH": "/health"})
    assert str(caught.value) == (
        "invalid Feishu settings: HARNESS_FEISHU_PATH='/health' must be a URL path such as "
        "/api/events/feishu (not /health)"
    )


def test_every_field_has_a_variable_and_a_description() -> None:
    variables = FeishuSettings.env_variables()
    assert set(variables) == set(FeishuSettings.model_fields)
    assert all(info.description for info in FeishuSettings.model_fields.values())
