"""Workspace: a temporary working directory with helpers for sentinel scenarios."""

from __future__ import annotations

import secrets
import shutil
from pathlib import Path

from harness.core.errors import ConfigurationError

__all__ = ["Workspace"]


class Workspace:
    """A folder the agent works in, with small helpers for tests.

    Args:
        root: the workdir (created if missing).
        fixtures_dir: where ``copy_fixture`` looks (``<rootdir>/fixtures``).
    """

    def __init__(self, root: Path, fixtures_dir: Path | None = None) -> None:
        self.root = root
        self.fixtures_dir = fixtures_dir
        root.mkdir(parents=True, exist_ok=True)
        self._sentinels: dict[str, str] = {}

    def path(self, relative: str) -> Path:
        return self.root / relative

    def write(self, relative: str, text: str) -> Path:
        """Write ``text`` to ``relative`` (parents created); returns the path."""
        target = self.path(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    def read(self, relative: str) -> str:
        return self.path(relative).read_text(encoding="utf-8")

    def exists(self, relative: str) -> bool:
        return self.path(relative).exists()

    def files(self) -> list[str]:
        """Every file under the workspace, relative, sorted."""
        return sorted(
            p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file()
        )

    def copy_fixture(self, name: str) -> Path:
        """Copy the contents of ``fixtures/<name>`` (a folder or a file) into the workspace."""
        if self.fixtures_dir is None:
            raise ConfigurationError("this workspace has no fixtures folder configured")
        source = self.fixtures_dir / name
        if source.is_dir():
            shutil.copytree(source, self.root, dirs_exist_ok=True)
        elif source.is_file():
            shutil.copy2(source, self.root / source.name)
        else:
            raise ConfigurationError(
                f"fixture {name!r} not found in {self.fixtures_dir}; add it there or fix the name"
            )
        return self.root

    def sentinel(self, label: str) -> str:
        """A unique marker like ``SENTINEL-README-3F9A1C`` (stable per label in a test)."""
        if label not in self._sentinels:
            tag = "".join(ch for ch in label.upper() if ch.isalnum()) or "X"
            self._sentinels[label] = f"SENTINEL-{tag}-{secrets.token_hex(3).upper()}"
        return self._sentinels[label]

    def write_sentinel(self, relative: str, label: str, text: str = "") -> str:
        """Write a file holding a fresh sentinel (after ``text``); returns the sentinel."""
        marker = self.sentinel(label)
        self.write(relative, f"{text}{marker}\n")
        return marker

    @property
    def sentinels(self) -> dict[str, str]:
        return dict(self._sentinels)
