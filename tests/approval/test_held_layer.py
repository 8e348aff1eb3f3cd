"""The held layer is a typed field of the approval record; version 2 records still resume.

A real bash call pauses over a real overlay; the record is then rewritten the
way a version 2 harness wrote it (two strings, signed with the same key) and
resumed. A version 2 record lacking what the apply needs, or changed after it
was signed, is refused and nothing reaches the workdir.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from harness import Settings, build_application
from harness.app import Application
from harness.approval._records_v2 import ApprovalRecordV2
from harness.approval.held_layer import HeldLayer
from harness.approval.records import APPROVAL_SCHEMA_VERSION
from harness.core import ApprovalError
from harness.providers import ScriptedProvider, tool_call
from harness.tools.sandbox import choose_sandbox

pytestmark = pytest.mark.skipif(
    not choose_sandbox("auto").overlay, reason="bwrap cannot mount an overlay here"
)

DATA = "".join(f"row {i}\n" for i in range(40))
TRIMMED = "".join(f"row {i}\n" for i in range(30, 40))
COMMAND = "sed -i '1,30d' data.txt; echo new > created.txt"


def _paused(tmp_path: Path) -> tuple[Application, str, Path]:
    work = tmp_path / "work"
    work.mkdir()
    (work / "data.txt").write_text(DATA)
    settings = Settings(workdir=work, state_dir=tmp_path / "state", enabled_tools=("read", "bash"))
    provider = ScriptedProvider([tool_call("bash", command=COMMAND), "done"])
    app = build_application(settings, provider=provider)
    result = app.run("trim the data", session="demo")
    assert result.stop_reason == "approval_required", result.text
    assert result.approval_id is not None
    return app, result.approval_id, app.approvals.path_for("demo", result.approval_id)


def _as_v2(app: Application, path: Path, **change: Any) -> dict[str, Any]:
    """Rewrite the record at ``path`` as version 2 wrote it, signed with the same key."""
    data = json.loads(path.read_text())
    held = data.pop("held")
    data.update(
        schema_version=2, held_layer=held["root"], changeset_digest=held["changeset_digest"]
    )
    data.update(change)
    data.pop("signature")
    signed = app.approvals.signer.sign(ApprovalRecordV2.model_validate(data))
    path.write_text(signed.model_dump_json(indent=2))
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def _untouched(tmp_path: Path) -> bool:
    work = tmp_path / "work"
    return (work / "data.txt").read_text() == DATA and not (work / "created.txt").exists()


def test_the_record_names_its_layer_as_a_typed_field(tmp_path: Path) -> None:
    app, approval_id, path = _paused(tmp_path)
    record = app.approvals.load(approval_id)
    assert record.schema_version == APPROVAL_SCHEMA_VERSION == 3
    assert isinstance(record.held, HeldLayer)
    assert Path(record.held.root).is_dir() and Path(record.held.root).name == record.held.layer_id
    assert set(record.held.paths) == {"data.txt", "created.txt"}
    assert "held_layer" not in json.loads(path.read_text())


def test_a_version_2_record_resumes_and_is_written_back_as_version_3(tmp_path: Path) -> None:
    app, approval_id, path = _paused(tmp_path)
    _as_v2(app, path)
    upgraded = app.approvals.load(approval_id)
    assert upgraded.held is not None and upgraded.held.paths == ()

    result = app.resume_approval(approval_id, decision="approve", session="demo")

    assert result.stop_reason == "final", result.text
    assert (tmp_path / "work" / "data.txt").read_text() == TRIMMED
    assert (tmp_path / "work" / "created.txt").read_text() == "new\n"
    stored = json.loads(path.read_text())
    assert (stored["schema_version"], stored["status"]) == (3, "consumed")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"changeset_digest": None}, "names a held layer but no changeset digest"),
        ({"held_layer": "/tmp/not-a-layer"}, "names an unusable held layer"),
    ],
    ids=["no-digest", "malformed-layer"],
)
def test_a_version_2_record_without_what_the_apply_needs_fails_closed(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    app, approval_id, path = _paused(tmp_path)
    _as_v2(app, path, **change)
    with pytest.raises(ApprovalError, match=message):
        app.resume_approval(approval_id, decision="approve", session="demo")
    assert _untouched(tmp_path)


def test_a_planted_version_2_digest_is_refused(tmp_path: Path) -> None:
    app, approval_id, path = _paused(tmp_path)
    data = _as_v2(app, path)
    data["changeset_digest"] = "0" * 64  # changed after signing: no key to sign it again
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(ApprovalError, match="invalid signature"):
        app.resume_approval(approval_id, decision="approve", session="demo")
    assert _untouched(tmp_path)


def test_a_planted_layer_on_a_version_3_record_is_refused(tmp_path: Path) -> None:
    app, approval_id, path = _paused(tmp_path)
    data = json.loads(path.read_text())
    data["held"]["changeset_digest"] = "0" * 64
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(ApprovalError, match="invalid signature"):
        app.resume_approval(approval_id, decision="approve", session="demo")
    assert _untouched(tmp_path)


def test_a_layer_whose_changes_differ_from_the_digest_is_refused(tmp_path: Path) -> None:
    app, approval_id, _ = _paused(tmp_path)
    record = app.approvals.load(approval_id)
    assert record.held is not None
    other = record.held.model_copy(update={"changeset_digest": "f" * 64})
    app.approvals.save(record.model_copy(update={"held": other}))  # signed, but wrong digest
    with pytest.raises(ApprovalError, match="digest mismatch"):
        app.resume_approval(approval_id, decision="approve", session="demo")
    assert _untouched(tmp_path)


@pytest.mark.parametrize(
    "fields",
    [
        {"layer_id": "lyr_0123456789abcdef", "root": "/s/layers/lyr_fedcba9876543210"},
        {"layer_id": "../../etc", "root": "/s/layers/../../etc"},
        {"layer_id": "lyr_0123456789abcdef", "root": "/s/layers/lyr_0123456789abcdef", "x": 1},
    ],
    ids=["root-not-the-layer", "bad-id", "extra-field"],
)
def test_a_malformed_held_layer_is_refused(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        HeldLayer.model_validate({"changeset_digest": "a" * 64, **fields})
