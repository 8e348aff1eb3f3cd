"""Shell syntax: what a line of bash an agent writes will really run.

A substring search for ``rm`` both misses evasions (``/bin/rm``, ``\\rm``, ``r''m``,
``bash -c "rm x"``) and trips on harmless text (``echo rm``, ``git commit -m "rm"``).
So the command is lexed and parsed as the bash subset an agent realistically
writes, in two layers:

* ``parse_shell(source)`` gives structure: pipelines of simple commands, their
  words with quotes removed, the files their redirections write, and the command
  substitutions (``$( )``, backticks, ``<( )``, here-documents) nested inside.
* ``resolve_commands(source)`` gives every program that will run, flat: keywords
  and ``NAME=value`` prefixes are dropped, wrappers are peeled (``env``, ``nice``,
  ``timeout 5``, ``xargs``, ``sudo``, ``uv run`` ...; the wrapper stays a command
  of its own), and strings that run as shell code (``bash -c``, ``eval``,
  ``trap``, ``env -S``, ``find -exec``) are analysed recursively.

Input that cannot be read with confidence (unbalanced quotes or parentheses,
``case`` statements, very deep nesting) raises ``ShellParseError`` so the caller
can fail closed. The approval risk rules (``harness.approval``) are the main
reader; this room knows nothing of them.
"""

from harness.shell._lexer import parse_shell
from harness.shell._resolve import resolve_commands
from harness.shell._syntax import (
    ASSIGNMENT,
    MAX_DEPTH,
    Pipeline,
    ResolvedCommand,
    ShellParseError,
    ShellWord,
    SimpleCommand,
    StdinSource,
    program_name,
)

__all__ = [
    "ASSIGNMENT",
    "MAX_DEPTH",
    "Pipeline",
    "ResolvedCommand",
    "ShellParseError",
    "ShellWord",
    "SimpleCommand",
    "StdinSource",
    "parse_shell",
    "program_name",
    "resolve_commands",
]
