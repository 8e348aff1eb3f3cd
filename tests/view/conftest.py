"""A headless Chromium for the browser tests: one per module, skipped with the
reason where none can start (``HARNESS_CHROMIUM``, else ``chromium`` on PATH)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def chromium_path() -> str | None:
    """The Chromium to drive: ``HARNESS_CHROMIUM``, or ``chromium`` / ``chromium-browser``."""
    configured = os.environ.get("HARNESS_CHROMIUM")
    if configured:
        return configured
    return shutil.which("chromium") or shutil.which("chromium-browser")


def launch_chromium(playwright: Any, executable: str, home: Path) -> Any:
    """Launch headless, with ``home`` as its HOME; root (CI containers) cannot use
    Chromium's sandbox.

    Playwright gives the profile a temporary folder, but Chromium still writes its
    crash reports, caches, fontconfig and NSS databases under ``~/.config`` and
    ``~/.cache`` (and ``~/.pki``): a HOME of its own keeps them out of the user's.
    """
    args = ["--no-sandbox"] if hasattr(os, "geteuid") and os.geteuid() == 0 else []
    env = {
        k: v for k, v in os.environ.items() if not (k.startswith("XDG_") and k.endswith("_HOME"))
    }
    env["HOME"] = str(home)
    return playwright.chromium.launch(executable_path=executable, headless=True, args=args, env=env)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A launched Chromium (Playwright), shared by the tests of a module."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    executable = chromium_path()
    if executable is None:
        pytest.skip("no Chromium: install the Debian package chromium or set HARNESS_CHROMIUM")
    manager = sync_api.sync_playwright()
    playwright = manager.start()
    try:
        try:
            launched = launch_chromium(
                playwright, executable, tmp_path_factory.mktemp("chromium-home")
            )
        except Exception as exc:  # any launch failure means: no browser here
            pytest.skip(f"Chromium at {executable} cannot start: {str(exc).splitlines()[0]}")
        try:
            yield launched
        finally:
            launched.close()
    finally:
        playwright.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that fails the test on any script error."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on("dialog", lambda dialog: errors.append(f"dialog: {dialog.message}"))
    yield opened
    context.close()
    assert errors == [], errors


@pytest.fixture
def shots(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Where a browser test saves its screenshots: ``HARNESS_VIEW_SCREENSHOTS/<test>``
    when set (CI keeps that folder as an artifact), else the test's tmp dir."""
    root = os.environ.get("HARNESS_VIEW_SCREENSHOTS")
    if not root:
        return tmp_path
    name = "".join(c if c.isalnum() or c in "-_." else "_" for c in request.node.name)
    folder = Path(root) / f"{Path(str(request.node.path)).stem}-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    return folder
