"""The leak check CI runs the suite under catches what a test would leave behind."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from leakcheck import changes, main, snapshot


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("x = 1\n")
    (root / ".venv").mkdir()
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    return root


def run(checkout: Path, code: str) -> int:
    return main(["--checkout", str(checkout), "--", sys.executable, "-c", code])


@pytest.mark.parametrize(
    ("code", "leak"),
    [
        ("Path.home().joinpath('.config', 'chromium').mkdir(parents=True)", "HOME: new: .config/"),
        ("Path.home().joinpath('.cache').mkdir()", "HOME: new: .cache/"),
        ("Path('{root}/eval-1.json').write_text('{{}}')", "checkout: new: eval-1.json"),
        (
            "Path('{root}/pkg/mod.py').write_text('x = 2  # edited')",
            "checkout: changed: pkg/mod.py",
        ),
        ("Path('{root}/pkg/mod.py').unlink()", "checkout: removed: pkg/mod.py"),
    ],
    ids=["home-config", "home-cache", "checkout-new", "checkout-changed", "checkout-removed"],
)
def test_a_planted_write_is_reported_and_fails_the_run(
    checkout: Path, code: str, leak: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(checkout, "from pathlib import Path; " + code.format(root=checkout)) == 1
    assert f"leakcheck: {leak}" in capsys.readouterr().err


def test_bytecode_and_virtualenvs_are_not_leaks(
    checkout: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = (
        "from pathlib import Path; "
        f"Path('{checkout}/pkg/__pycache__').mkdir(); "
        f"Path('{checkout}/pkg/__pycache__/mod.cpython-311.pyc').write_bytes(b'x'); "
        f"Path('{checkout}/.venv/installed.txt').write_text('pip')"
    )
    assert run(checkout, code) == 0
    assert "nothing written" in capsys.readouterr().err


def test_the_command_gets_an_empty_home_of_its_own_and_its_exit_status_is_kept(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "real-cache"))
    seen = tmp_path / "seen.txt"
    code = (
        "import os, sys, pathlib; "
        f"pathlib.Path({str(seen)!r}).write_text(os.environ['HOME'] + '|' "
        "+ str(os.listdir(os.environ['HOME'])) + '|' + str('XDG_CACHE_HOME' in os.environ)); "
        "sys.exit(5)"
    )
    assert run(checkout, code) == 5
    home, listing, xdg = seen.read_text().split("|")
    assert home != str(Path.home()) and listing == "[]" and xdg == "False"
    assert not Path(home).exists()  # removed afterwards


def test_changes_lists_every_difference_sorted() -> None:
    before = {"a": (1, 1), "b": (1, 1), "d/": None}
    after = {"a": (1, 2), "c": (3, 3), "d/": None, "e/": None}
    assert changes(before, after) == ["changed: a", "removed: b", "new: c", "new: e/"]


def test_snapshot_sees_nested_files_and_folders(checkout: Path) -> None:
    (checkout / "pkg" / "deep").mkdir()
    (checkout / "pkg" / "deep" / "f.txt").write_text("1")
    found = snapshot(checkout)
    assert {"pkg/", "pkg/mod.py", "pkg/deep/", "pkg/deep/f.txt"} <= set(found)
    assert not any(path.startswith(".venv") for path in found)
