"""Each test's own folder (workspace and state), made without ``tmp_path``.

pytest runs on generated projects (pytester); the folders are real ones under
each run's base temp folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

RECORDS = """
    import json, os, pathlib

    import pytest


    def _note(name, workspace, harness_settings):
        root = pathlib.Path(os.environ["FOLDERS_OUT"])
        (root / f"{name}.json").write_text(json.dumps({
            "workspace": str(workspace.root),
            "state": str(harness_settings["state_dir"]),
        }))
"""


def _seen(out: Path) -> dict[str, dict[str, Path]]:
    return {
        path.stem: {kind: Path(where) for kind, where in json.loads(path.read_text()).items()}
        for path in out.glob("*.json")
    }


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "seen"
    folder.mkdir()
    monkeypatch.setenv("FOLDERS_OUT", str(folder))
    return folder


def test_each_test_gets_a_private_folder_named_after_it(
    pytester: pytest.Pytester, out: Path
) -> None:
    pytester.makepyfile(
        RECORDS
        + """

    @pytest.mark.parametrize("n", [1, 2])
    def test_rows(n, workspace, harness_settings):
        workspace.write("mine.txt", str(n))
        _note(f"row{n}", workspace, harness_settings)
    """
    )
    pytester.runpytest("--basetemp", str(pytester.path / "bt")).assert_outcomes(passed=2)
    seen = _seen(out)
    one, two = seen["row1"], seen["row2"]
    assert one["workspace"].parent != two["workspace"].parent
    for row in (one, two):
        folder = row["workspace"].parent
        assert row["state"] == folder / "state" and row["state"].is_dir()
        assert folder.parent == pytester.path / "bt" / "harness-tests"
        assert folder.name.startswith("test_rows_")
        assert folder.stat().st_mode & 0o777 == 0o700
    assert (one["workspace"] / "mine.txt").read_text() == "1"
    assert (two["workspace"] / "mine.txt").read_text() == "2"


@pytest.mark.parametrize("policy", ["all", "failed"])
def test_the_retention_policy_is_honoured(
    pytester: pytest.Pytester, out: Path, policy: str
) -> None:
    pytester.makeini(f"[pytest]\ntmp_path_retention_policy = {policy}\n")
    pytester.makepyfile(
        RECORDS
        + """

    def test_passes(workspace, harness_settings):
        _note("passes", workspace, harness_settings)


    def test_fails(workspace, harness_settings):
        _note("fails", workspace, harness_settings)
        assert False, "on purpose"
    """
    )
    pytester.runpytest("--basetemp", str(pytester.path / "bt")).assert_outcomes(passed=1, failed=1)
    seen = _seen(out)
    # Under "failed", as tmp_path: a passed test's folder goes, a failed one's stays.
    assert seen["passes"]["workspace"].parent.exists() is (policy == "all")
    assert seen["fails"]["workspace"].parent.exists()
    assert seen["fails"]["state"].is_dir()


def test_state_never_goes_into_an_overridden_workspace(
    pytester: pytest.Pytester, out: Path
) -> None:
    pytester.makeini("[pytest]\ntmp_path_retention_policy = failed\n")
    pytester.makepyfile(
        RECORDS
        + """

    @pytest.fixture
    def workspace(tmp_path):
        from harness.testing.rows.workspace import Workspace

        return Workspace(tmp_path / "checkout")


    def test_own_workspace(workspace, harness_settings):
        _note("own", workspace, harness_settings)
    """
    )
    pytester.runpytest("--basetemp", str(pytester.path / "bt")).assert_outcomes(passed=1)
    seen = _seen(out)["own"]
    assert seen["workspace"].parent not in seen["state"].parents
    assert seen["state"].parent.parent == pytester.path / "bt" / "harness-tests"
    # harness_settings released the folder it made (the workspace fixture is the test's).
    assert not seen["state"].exists()
