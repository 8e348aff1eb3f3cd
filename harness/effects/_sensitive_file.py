"""The project's own sensitive paths: ``.harness/sensitive-paths`` in the workdir.

One glob pattern a line (the ``CodePaths`` syntax: a pattern without ``/``
matches a name at any depth, ``/x`` anchors it at the workdir, ``**`` spans
folders); blank lines and lines starting with ``#`` are skipped; a leading
``+`` is allowed and changes nothing. The file only adds: a line starting
with ``-`` or ``!`` (that would remove a built-in pattern) is an error, not
ignored, so nobody believes a default was dropped when it was not. Removing
a default stays the job of ``HARNESS_SENSITIVE_PATHS`` (``-PATTERN``), a
setting of whoever runs harness rather than a file in the tree it edits.

The file is itself sensitive (under ``.harness``), so an agent cannot change
it without a human, and bash's sandbox hides the default state dir it lives in.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from harness.core.errors import ConfigurationError
from harness.effects._codepaths import CodePaths

__all__ = ["SENSITIVE_PATHS_FILE", "load_code_paths", "parse_sensitive_lines"]

SENSITIVE_PATHS_FILE = ".harness/sensitive-paths"


def parse_sensitive_lines(text: str, source: str = SENSITIVE_PATHS_FILE) -> tuple[str, ...]:
    """The patterns ``text`` adds, in order, without repeats.

    Raises:
        ConfigurationError: ``source:line: what was wrong; how to fix it``.
    """
    patterns: list[str] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        where = f"{source}:{number}"
        pattern = line[1:].strip() if line.startswith("+") else line
        if pattern[:1] in ("-", "!"):
            raise ConfigurationError(
                f"{where}: {line!r} would remove a built-in sensitive path, and this file "
                "can only add paths; delete the line (HARNESS_SENSITIVE_PATHS=-PATTERN "
                "removes a default)"
            )
        if not pattern:
            raise ConfigurationError(
                f"{where}: {line!r} names no pattern; write one glob pattern a line "
                "(deploy/**, *.sh, /build.sh)"
            )
        if not pattern.isprintable():
            raise ConfigurationError(
                f"{where}: {pattern!r} holds a control character; write the pattern in "
                "printable characters"
            )
        patterns.append(pattern)
    return tuple(dict.fromkeys(patterns))


def load_code_paths(workdir: Path, entries: Iterable[str] = ()) -> CodePaths:
    """The built-in patterns, changed by ``entries`` (``HARNESS_SENSITIVE_PATHS``),
    plus what ``workdir``'s ``.harness/sensitive-paths`` adds (when it exists).

    Raises:
        ConfigurationError: a bad entry or line, or a file that cannot be read.
    """
    code = CodePaths.from_entries(entries)
    path = workdir / SENSITIVE_PATHS_FILE
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return code
    except UnicodeDecodeError as exc:
        raise ConfigurationError(
            f"{path}: byte {exc.start} is not UTF-8; save the file as UTF-8 text"
        ) from None
    except OSError as exc:
        raise ConfigurationError(
            f"{path} cannot be read ({exc.strerror or exc}); make it a readable file or remove it"
        ) from None
    return code.adding(parse_sensitive_lines(text, str(path)), SENSITIVE_PATHS_FILE)
