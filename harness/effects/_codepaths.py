"""Files whose content runs later: a project-configurable list of glob patterns.

What is written to a CI workflow, ``.envrc``, a Makefile or ``conftest.py``
runs later, on the host or in CI, without anyone reading it: a write there
needs a human. The defaults (``DEFAULT_PATTERNS``) cover the usual tools; a
project adds or removes patterns with ``HARNESS_SENSITIVE_PATHS``, a
comma-separated list of entries:

* ``+PATTERN`` or ``PATTERN`` adds a pattern;
* ``-PATTERN`` removes a default pattern (written exactly as listed here).

A project file, ``.harness/sensitive-paths``, adds patterns too but never
removes one (``sensitive_file``).

Patterns are matched against the path relative to the workdir, ignoring
case, as ``.gitignore`` does: a pattern without ``/`` matches a file or
folder name at any depth (``Makefile``, ``*.mk``); one with ``/`` matches from
the workdir (``.vscode/tasks.json``, ``/build.sh``), ``**`` standing for any number of
folders (``**/.github/workflows``). A pattern that names a folder covers
everything in it. ``package.json`` is judged by its ``scripts`` only.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass

from harness.core.errors import ConfigurationError

__all__ = ["DEFAULT_CODE_PATHS", "DEFAULT_PATTERNS", "CodePaths", "CodePattern"]

_CI = "CI configuration"
DEFAULT_PATTERNS: tuple[tuple[str, str], ...] = (
    ("**/.github/workflows", "CI workflow"),
    (".gitlab-ci*", _CI),
    (".circleci", _CI),
    (".travis.yml", _CI),
    ("azure-pipelines.yml", _CI),
    ("bitbucket-pipelines.yml", _CI),
    (".buildkite", _CI),
    ("Jenkinsfile", _CI),
    (".envrc", "direnv file (runs when a shell enters the folder)"),
    ("pyproject.toml", "project configuration"),
    ("package.json", "package.json scripts (npm runs them)"),
    ("setup.py", "setup.py (packaging runs it)"),
    ("Makefile", "Makefile (make runs it)"),
    ("GNUmakefile", "Makefile (make runs it)"),
    ("*.mk", "Makefile include (make runs it)"),
    ("conftest.py", "pytest conftest.py (pytest runs it)"),
    ("noxfile.py", "noxfile.py (nox runs it)"),
    ("tox.ini", "tox.ini (tox runs its commands)"),
    ("justfile", "justfile (just runs it)"),
    ("Taskfile.yml", "Taskfile (task runs it)"),
    ("sitecustomize.py", "Python start-up file"),
    ("usercustomize.py", "Python start-up file"),
    ("*.pth", "Python .pth file (runs at every Python start)"),
    (".pre-commit-config.yaml", "git hook configuration (runs code on a later commit)"),
    ("lefthook.yml", "git hook configuration (runs code on a later commit)"),
    (".lefthook.yml", "git hook configuration (runs code on a later commit)"),
    (".husky", "git hook configuration (runs code on a later commit)"),
    (".vscode/tasks.json", "editor tasks (the editor runs them)"),
    (".vscode/settings.json", "editor settings (may name programs the editor runs)"),
    (".vscode/launch.json", "editor launch configuration (the editor runs it)"),
    (".devcontainer", "dev container configuration (runs commands on start)"),
)

_SCRIPTS = "package.json"


@dataclass(frozen=True, slots=True)
class CodePattern:
    """One pattern and why a write matching it needs a human."""

    pattern: str
    reason: str

    @property
    def scripts_only(self) -> bool:
        """Judged by the file's ``scripts`` (``package.json``), not by any write."""
        return self.pattern == _SCRIPTS

    def matches(self, rel: str) -> bool:
        """Whether workdir-relative ``rel`` (or a folder above it) matches."""
        parts = [p for p in rel.lower().split("/") if p not in ("", ".")]
        wanted = [p for p in self.pattern.lower().split("/") if p not in ("", ".")]
        if not wanted:
            return False
        if len(wanted) == 1 and not self.pattern.startswith("/"):
            return any(fnmatch.fnmatchcase(part, wanted[0]) for part in parts)
        return any(_match(wanted, parts[:end]) for end in range(1, len(parts) + 1))


def _match(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_match(pattern[1:], parts[i:]) for i in range(len(parts) + 1))
    return (
        bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _match(pattern[1:], parts[1:])
    )


@dataclass(frozen=True, slots=True)
class CodePaths:
    """The project's list of files that run code later."""

    patterns: tuple[CodePattern, ...]

    @classmethod
    def from_entries(cls, entries: Iterable[str]) -> CodePaths:
        """The defaults changed by ``HARNESS_SENSITIVE_PATHS`` entries (``+p``, ``p``, ``-p``).

        Raises:
            ConfigurationError: an entry is empty or removes no default pattern.
        """
        patterns = {p: CodePattern(p, why) for p, why in DEFAULT_PATTERNS}
        for raw in entries:
            entry = raw.strip()
            sign, pattern = (entry[0], entry[1:].strip()) if entry[:1] in "+-" else ("+", entry)
            if not pattern or "\0" in pattern:
                raise ConfigurationError(
                    f"HARNESS_SENSITIVE_PATHS: {raw!r} names no pattern; write +PATTERN to "
                    "add a glob pattern or -PATTERN to remove a default one"
                )
            if sign == "+":
                patterns.setdefault(
                    pattern, CodePattern(pattern, f"listed in HARNESS_SENSITIVE_PATHS ({pattern})")
                )
            elif patterns.pop(pattern, None) is None:
                raise ConfigurationError(
                    f"HARNESS_SENSITIVE_PATHS: -{pattern} removes nothing; the patterns are "
                    + ", ".join(patterns)
                )
        return cls(tuple(patterns.values()))

    def adding(self, patterns: Iterable[str], source: str) -> CodePaths:
        """These patterns plus ``patterns`` (never fewer), each giving ``source`` as its reason."""
        known = {p.pattern for p in self.patterns}
        added = tuple(
            CodePattern(p, f"listed in {source} ({p})")
            for p in dict.fromkeys(patterns)
            if p not in known
        )
        return CodePaths((*self.patterns, *added))

    def match(self, rel: str) -> CodePattern | None:
        """The first pattern ``rel`` matches, or None."""
        return next((p for p in self.patterns if p.matches(rel)), None)

    def reason(self, rel: str) -> str | None:
        """Why writing ``rel`` needs a human by its path alone (``package.json``, judged
        by its scripts, never is), or None."""
        found = next((p for p in self.patterns if not p.scripts_only and p.matches(rel)), None)
        return None if found is None else found.reason

    def scripts_file(self, rel: str) -> bool:
        """Whether ``rel`` is a ``package.json`` the list judges by its scripts."""
        return any(p.scripts_only and p.matches(rel) for p in self.patterns)


DEFAULT_CODE_PATHS = CodePaths.from_entries(())
