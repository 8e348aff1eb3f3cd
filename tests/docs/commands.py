"""Check a documented command line with the real parsers, without running it.

``harness ...`` goes through the click command tree typer builds from
``harness.cli.app`` (every sub-command and option must exist and parse; values
that are placeholders, such as ``ID`` or ``N``, are not converted); the
arguments ``harness eval`` hands to pytest, and ``pytest ...`` lines, go through
the option parser of a pytest configured with every installed plugin.
"""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable, Iterator, Sequence

import typer.main
from typer._click.core import Command, Context
from typer._click.exceptions import ClickException

from harness.cli import app

_SEPARATORS = {"&&", "||", ";", "|", "&"}
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# What pytest is handed: a list of arguments, refused in one line when unknown.
PytestCheck = Callable[[Sequence[str]], None]


def command_lines(text: str, *, console: bool = False) -> Iterator[list[str]]:
    """Each command of a shell block as words: continuations joined, comments dropped.

    ``console``: only lines that start with ``$ `` are commands (the rest is output).
    """
    joined = re.sub(r"\\\n\s*", " ", text)
    for raw in joined.splitlines():
        line = raw.strip()
        if console:
            if not line.startswith("$ "):
                continue
            line = line[2:]
        words = shlex.split(line, comments=True)
        command: list[str] = []
        for word in [*words, ";"]:
            if word in _SEPARATORS:
                while command and _ASSIGNMENT.match(command[0]):
                    command.pop(0)  # OPENAI_API_KEY=... harness eval
                if command:
                    yield command
                command = []
            else:
                command.append(word)


def pytest_arguments(words: Sequence[str]) -> list[str] | None:
    """The arguments of a ``pytest`` / ``python -m pytest`` command, or None for another."""
    if words and words[0] == "pytest":
        return list(words[1:])
    if len(words) >= 3 and words[0] in ("python", "python3") and words[1:3] == ["-m", "pytest"]:
        return list(words[3:])
    return None


@functools.cache
def _root() -> Command:
    return typer.main.get_command(app)


def check_harness(words: Sequence[str], check_pytest: PytestCheck) -> None:
    """Parse ``harness ARGS`` as the CLI would; raise ``ValueError`` naming what is wrong.

    Each level's own option parser reads its part (unknown options, options
    without their value and extra arguments are errors), but no value is converted
    and no callback runs: ``ID``, ``N`` and ``PATH`` stand for values.
    """
    path = ["harness"]
    args = list(words[1:])
    command: Command = _root()
    parent: Context | None = None
    while True:
        commands: dict[str, Command] = getattr(command, "commands", {})  # a group's
        if args and args[0] in commands:  # as harness eval's group reads a sub-command
            context = command.make_context(
                " ".join(path), [], parent=parent, resilient_parsing=True
            )
            parent, command = context, commands[args[0]]
            path.append(args.pop(0))
            continue
        context = command.make_context(" ".join(path), [], parent=parent, resilient_parsing=True)
        context.resilient_parsing = False  # the parser checks, the values stay unread
        try:
            _, rest, _ = command.make_parser(context).parse_args(args=list(args))
        except ClickException as exc:
            raise ValueError(f"`{' '.join(path)}`: {exc.format_message()}") from None
        if rest and rest[0] in commands:
            parent, command = context, commands[rest[0]]
            path.append(rest[0])
            args = rest[1:]
            continue
        if path == ["harness", "eval"]:
            check_pytest(rest)  # harness eval hands what it does not know to pytest
        elif commands and rest:
            raise ValueError(f"`{' '.join(path)}` has no command {rest[0]!r}")
        elif rest:
            raise ValueError(f"`{' '.join(path)}` takes no further argument {rest[0]!r}")
        return
