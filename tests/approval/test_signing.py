"""The approval key and the signed-document reader, on real files."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import Settings
from harness.approval._signing import ApprovalSigner, read_signed_document
from harness.approval.keyfile import default_key_path, load_approval_key
from harness.approval.preview import ApprovalPreview, CallPreview
from harness.approval.records import APPROVAL_SCHEMA_VERSION, ApprovalRecord
from harness.core import ApprovalError, ConfigurationError

KEY_A = b"a" * 32
KEY_B = b"b" * 32


def _record(**changes: Any) -> ApprovalRecord:
    values: dict[str, Any] = {
        "approval_id": "appr_1",
        "session_key": "demo",
        "tool_call_id": "call_1",
        "tool_name": "bash",
        "arguments": {"command": "rm -rf build", "timeout": 5, "ratio": 0.1},
        "tool_call_hash": "0" * 64,
        "risk_reasons": ("deletes files",),
        "checkpoint_id": "ckpt_1",
        "created_at": datetime(2030, 1, 1, tzinfo=UTC),
        "expires_at": datetime(2030, 1, 2, tzinfo=UTC),
        "preview": ApprovalPreview(
            call=CallPreview(
                tool_call_id="call_1",
                tool_name="bash",
                kind="bash",
                summary="bash: 1 line(s)",
                body="rm -rf build",
            )
        ),
        "checkpoint_signature": "c" * 64,
    }
    values.update(changes)
    return ApprovalRecord(**values)


def _write(path: Path, data: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return path


def _read(path: Path, key: bytes = KEY_A) -> ApprovalRecord:
    return read_signed_document(
        path,
        ApprovalRecord,
        APPROVAL_SCHEMA_VERSION,
        ApprovalSigner(key),
        what="approval file",
        consequence="nothing was executed",
    )


def _signed_data(key: bytes = KEY_A) -> dict[str, Any]:
    signed = ApprovalSigner(key).sign(_record())
    data: dict[str, Any] = json.loads(signed.model_dump_json())
    return data


def test_a_signed_record_round_trips(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.json", _signed_data())
    assert _read(path) == ApprovalSigner(KEY_A).sign(_record())


def test_a_record_signed_with_key_a_is_refused_under_key_b(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.json", _signed_data(KEY_A))
    with pytest.raises(ApprovalError, match="invalid signature"):
        _read(path, KEY_B)


def _set(data: dict[str, Any], dotted: str, value: Any) -> None:
    *parents, last = dotted.split(".")
    target: Any = data
    for part in parents:
        target = target[int(part)] if isinstance(target, list) else target[part]
    target[last] = value


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("status", "pending"),
        ("status", "consumed"),
        ("expires_at", "2099-01-01T00:00:00Z"),
        ("session_key", "other"),
        ("approval_id", "appr_2"),
        ("checkpoint_id", "ckpt_2"),
        ("tool_call_hash", "1" * 64),
        ("arguments.command", "rm -rf /"),
        ("arguments.timeout", 6),
        ("risk_reasons", []),
        ("decided_by", "cli"),
        ("preview.call.body", "ls"),
        ("checkpoint_signature", "d" * 64),
    ],
    ids=lambda v: str(v)[:20],
)
def test_any_change_of_a_signed_field_is_refused(tmp_path: Path, field: str, value: object) -> None:
    data = _signed_data()
    if field == "status" and value == "pending":
        data["status"] = "consumed"  # sign a consumed one, then revive it
        data["signature"] = ApprovalSigner(KEY_A).signature(_record(status="consumed"))
    _set(data, field, value)
    with pytest.raises(ApprovalError, match="invalid signature"):
        _read(_write(tmp_path / "r.json", data))


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda d: d.update(extra_field=1), "Extra inputs are not permitted"),
        (
            lambda d: d.update(schema_version=float(APPROVAL_SCHEMA_VERSION)),
            "not in the form harness writes",
        ),
        (lambda d: d["arguments"].update(timeout=5.0), "invalid signature"),
        (lambda d: d.update(expires_at="2030-01-02T00:00:00+00:00"), "not in the form"),
        (lambda d: d["preview"]["call"].update(hidden="x"), "Extra inputs"),
        (lambda d: d.pop("decided_by"), "not in the form"),
        (lambda d: d.update(schema_version=1), "older harness without a signature"),
        (
            lambda d: d.update(schema_version=APPROVAL_SCHEMA_VERSION + 1),
            f"this harness reads version {APPROVAL_SCHEMA_VERSION}",
        ),
        (lambda d: d.pop("signature"), "invalid signature"),
    ],
    ids=[
        "extra-field",
        "coerced-version",
        "int-as-float-argument",
        "other-timestamp-spelling",
        "extra-nested-field",
        "dropped-default",
        "old-unsigned-version",
        "future-version",
        "no-signature",
    ],
)
def test_what_validation_would_hide_is_refused(tmp_path: Path, spoil: Any, message: str) -> None:
    data = _signed_data()
    spoil(data)
    with pytest.raises(ApprovalError, match=message):
        _read(_write(tmp_path / "r.json", data))


def test_a_duplicate_key_is_refused(tmp_path: Path) -> None:
    text = json.dumps(_signed_data())
    # The first "status" is what a reader keeping the first would see; refuse both.
    text = text.replace('"status": "pending"', '"status": "consumed", "status": "pending"')
    with pytest.raises(ApprovalError, match="duplicate key 'status'"):
        _read(_write(tmp_path / "r.json", text))


def test_unicode_normalisation_is_a_change(tmp_path: Path) -> None:
    signed = ApprovalSigner(KEY_A).sign(_record(arguments={"command": "echo caf\u00e9"}))
    data = json.loads(signed.model_dump_json())
    data["arguments"]["command"] = "echo cafe\u0301"  # NFD: looks the same
    with pytest.raises(ApprovalError, match="invalid signature"):
        _read(_write(tmp_path / "r.json", data))


def test_the_file_is_the_same_whatever_escapes_json_uses(tmp_path: Path) -> None:
    """\\u escapes and key order are JSON spelling, not content: the record stays valid."""
    data = _signed_data()
    text = json.dumps(dict(reversed(list(data.items()))), ensure_ascii=True)
    assert _read(_write(tmp_path / "r.json", text)).arguments == data["arguments"]


@pytest.mark.deep
@settings(max_examples=60, deadline=None)
@given(
    arguments=st.dictionaries(
        st.text(max_size=8),
        st.one_of(
            st.text(max_size=20),
            st.integers(),
            st.floats(allow_nan=False, allow_infinity=False),
            st.booleans(),
            st.none(),
        ),
        max_size=4,
    )
)
def test_signatures_survive_the_file_round_trip(arguments: dict[str, Any]) -> None:
    """What harness writes, harness reads back as valid, for any JSON arguments."""
    signed = ApprovalSigner(KEY_A).sign(_record(arguments=arguments))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.json"
        path.write_text(signed.model_dump_json(indent=2), "utf-8")
        assert _read(path).arguments == arguments


# -- the key --------------------------------------------------------------


def test_the_key_file_is_created_0600_in_a_0700_folder(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg")}
    key = load_approval_key(None, workdir=tmp_path / "work", state_dir=None, environ=env)
    path = tmp_path / "xdg" / "harness" / "approval.key"
    assert path == default_key_path(env)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert len(key) == 32
    assert load_approval_key(None, workdir=None, state_dir=None, environ=env) == key
    assert list(path.parent.iterdir()) == [path]  # no temp file left behind


def test_the_default_is_under_home_local_state(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    assert default_key_path({"XDG_STATE_HOME": "relative/ignored"}) == Path(
        "/home/someone/.local/state/harness/approval.key"
    )


@pytest.mark.deep
def test_processes_racing_to_create_the_key_agree(tmp_path: Path) -> None:
    code = (
        "import sys; from harness.approval.keyfile import load_approval_key; "
        "print(load_approval_key(None, workdir=None, state_dir=None).hex())"
    )
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "xdg")}
    procs = [
        subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    keys = {proc.communicate(timeout=60)[0].strip() for proc in procs}
    assert len(keys) == 1 and len(next(iter(keys))) == 64


@pytest.mark.parametrize("inside", ["workdir", "state_dir"])
def test_a_key_inside_the_workdir_or_state_dir_is_refused(tmp_path: Path, inside: str) -> None:
    work, state = tmp_path / "work", tmp_path / "work" / ".harness"
    env = {"XDG_STATE_HOME": str((work if inside == "workdir" else state) / "xdg")}
    with pytest.raises(ConfigurationError, match="would be inside the"):
        load_approval_key(
            None, workdir=work if inside == "workdir" else None, state_dir=state, environ=env
        )
    assert not (work / "xdg").exists() and not (state / "xdg").exists()


def test_a_key_file_others_can_read_is_refused(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path)}
    load_approval_key(None, workdir=None, state_dir=None, environ=env)
    path = default_key_path(env)
    path.chmod(0o644)
    with pytest.raises(ConfigurationError, match="chmod 600"):
        load_approval_key(None, workdir=None, state_dir=None, environ=env)


def test_a_symlinked_key_file_is_refused(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg")}
    (tmp_path / "xdg" / "harness").mkdir(parents=True)
    planted = tmp_path / "planted.key"
    planted.write_text("ab" * 32)
    planted.chmod(0o600)
    default_key_path(env).symlink_to(planted)
    with pytest.raises(ConfigurationError, match="not a symlink"):
        load_approval_key(None, workdir=None, state_dir=None, environ=env)


def test_an_empty_key_file_is_refused(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg")}
    path = default_key_path(env)
    path.parent.mkdir(parents=True)
    path.write_text("")
    path.chmod(0o600)
    with pytest.raises(ConfigurationError, match="does not hold a key"):
        load_approval_key(None, workdir=None, state_dir=None, environ=env)


def test_the_environment_key_wins_and_must_be_long_enough(tmp_path: Path) -> None:
    env = {"XDG_STATE_HOME": str(tmp_path / "xdg")}
    assert load_approval_key("s" * 20, workdir=None, state_dir=None, environ=env) == b"s" * 20
    assert not (tmp_path / "xdg").exists()
    with pytest.raises(ConfigurationError, match="HARNESS_APPROVAL_KEY is too short"):
        load_approval_key("short", workdir=None, state_dir=None, environ=env)


def test_the_key_setting_is_a_secret() -> None:
    secret = "k" * 40
    settings = Settings.from_env({"HARNESS_APPROVAL_KEY": secret})
    assert settings.approval_key is not None
    assert settings.approval_key.get_secret_value() == secret
    assert secret not in repr(settings) and secret not in settings.model_dump_json()


def test_the_package_exports_its_surface() -> None:
    import harness.approval as approval

    assert approval.__all__ == sorted(approval.__all__, key=lambda n: (n[0].islower(), n))
    for name in approval.__all__:
        assert getattr(approval, name).__module__.startswith("harness.approval.")
