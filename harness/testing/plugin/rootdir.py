"""Refuse a run whose rootdir a harness option's value moved.

pytest finds the rootdir (and the ini file) before it loads plugins, so it does
not yet know that ``--harness-cassette-dir`` takes a value: in the two-word form
(``--harness-cassette-dir /abs``) it takes ``/abs`` for a test path. When that
path lies outside the project, the rootdir moves, the ini file may go unread,
and every cassette path (``<provider>/<model>/<test file relative to the
rootdir>/...``) differs from a run without the option: a recording made one way
misses on replay the other way. The ``=`` form (``--harness-cassette-dir=/abs``)
never moves it. When the rootdir moved, this stops the run with the fix.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest

__all__ = ["VALUE_OPTIONS", "check_rootdir"]

# The harness options that take a value (any of them, written as two words,
# gives pytest's early parse a stray word that may name an existing path).
VALUE_OPTIONS = (
    "--harness-base-url",
    "--harness-cases",
    "--harness-cassette-dir",
    "--harness-epochs",
    "--harness-ignore-query-params",
    "--harness-judge-model",
    "--harness-max-cost",
    "--harness-model",
    "--harness-provider",
    "--harness-report",
    "--harness-stream",
)


def _two_word_options(args: list[str]) -> list[tuple[str, str]]:
    pairs = []
    for index, arg in enumerate(args[:-1]):
        if arg == "--":
            break
        if arg in VALUE_OPTIONS:
            pairs.append((arg, args[index + 1]))
    return pairs


def _rootdir_without_stray_values(config: pytest.Config) -> Path | None:
    """The rootdir pytest finds from the test paths alone (None if it cannot be told)."""
    try:
        # pytest's own search, at the pytest boundary: its public API has no entry
        # for it, and reimplementing it would drift from what pytest does.
        from _pytest.config.findpaths import determine_setup

        given = config.args_source is pytest.Config.ArgsSource.ARGS
        rootpath, *_ = determine_setup(
            inifile=config.option.inifilename,
            override_ini=config.option.override_ini,
            args=list(config.args) if given else [],
            rootdir_cmd_arg=config.option.rootdir or None,
            invocation_dir=config.invocation_params.dir,
        )
    except Exception:  # another pytest: skip the check rather than guess
        return None
    return Path(rootpath)


def check_rootdir(config: pytest.Config) -> None:
    """Raise ``pytest.UsageError`` if a two-word harness option moved the rootdir.

    Nothing is checked on an xdist worker (the controller already did) or when
    ``--rootdir`` or ``-c`` fixes the rootdir explicitly.
    """
    if hasattr(config, "workerinput") or config.option.rootdir or config.option.inifilename:
        return
    args = [*shlex.split(os.environ.get("PYTEST_ADDOPTS", "")), *config.invocation_params.args]
    # pytest's search looks only at words that name existing paths.
    here = config.invocation_params.dir
    pairs = [(o, v) for o, v in _two_word_options(args) if (here / v).exists()]
    if not pairs:
        return
    expected = _rootdir_without_stray_values(config)
    actual = Path(str(config.rootpath))
    if expected is None or expected == actual:
        return
    option, value = pairs[0]
    raise pytest.UsageError(
        f"write {option}={value} (with '='): given as two words, pytest took {value} for a "
        f"test path while finding the rootdir, so the rootdir became {actual} instead of "
        f"{expected} and cassette paths would differ from a run without the option"
    )
