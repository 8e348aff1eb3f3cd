"""What a parsed shell command is made of: words, commands, pipelines, programs.

The lexer (``_lexer``) and the parser (``_parser``) build these from text; the
resolver (``_resolve``) turns pipelines into the flat list of programs that will
run (``ResolvedCommand``), which is what the approval risk rules judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.core.errors import HarnessError

__all__ = [
    "ASSIGNMENT",
    "MAX_DEPTH",
    "Pipeline",
    "ResolvedCommand",
    "ShellParseError",
    "ShellWord",
    "SimpleCommand",
    "StdinSource",
    "program_name",
]

# Nesting of substitutions and ``bash -c`` strings together; beyond it, fail closed
# rather than exhaust the Python stack.
MAX_DEPTH = 32
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")


class ShellParseError(HarnessError):
    """The command text could not be analysed with confidence; judge it unknown."""


@dataclass(frozen=True, slots=True)
class ShellWord:
    """One word after quote removal.

    Attributes:
        value: the text bash passes on, with expansions (``$HOME``, ``$(...)``)
            left as written.
        dynamic: the word holds an expansion, glob or brace list, so its real
            value is only known when the command runs.
    """

    value: str
    dynamic: bool = False


@dataclass(frozen=True, slots=True)
class StdinSource:
    """What an input redirection feeds a command.

    Attributes:
        kind: ``file`` (``< path``), ``heredoc`` (``<<EOF``) or ``herestring`` (``<<<``).
        word: the path, the here-document body or the here-string; ``None`` for a
            here-document whose body never came (the command cannot be judged).
    """

    kind: str
    word: ShellWord | None


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """Words of one command plus what its redirections write, feed it and nest."""

    words: tuple[ShellWord, ...]
    write_targets: tuple[ShellWord, ...] = ()
    substitutions: tuple[Pipeline, ...] = ()
    stdin: tuple[StdinSource, ...] = ()


@dataclass(frozen=True, slots=True)
class Pipeline:
    """Commands joined by ``|``; parentheses are transparent to the grouping."""

    commands: tuple[SimpleCommand, ...]


@dataclass(frozen=True, slots=True)
class ResolvedCommand:
    """A program that will run, with wrappers, keywords and assignments peeled off.

    Attributes:
        argv: the words, ``argv[0]`` as written (``/bin/rm`` stays a path).
        dynamic_name: the program name is computed at run time (``$CMD``, globs).
        upstream: names of commands earlier in the same pipeline (they feed stdin).
        fed_by: names of commands whose output lands in this command's words or
            redirections (``bash <(curl ...)``, ``sh -c "$(wget ...)"``).
        write_targets: files the command's redirections open for writing.
        dynamic_write_targets: redirection targets only known at run time
            (``> $F``, ``> *.toml``, ``> $(cmd)``).
        stdin: what input redirections feed the command (here-documents,
            here-strings, ``< file``).
        assignments: ``NAME=value`` words that set the command's environment
            (prefixes, ``env NAME=value``) or the shell's (a bare assignment).
        wrapped_by: names of the wrappers around this command, outermost first
            (``xargs sh -c ...`` gives ``sh`` wrapped by ``xargs``).
        dynamic_args: per ``argv`` word, whether its value is only known at run time.
    """

    argv: tuple[str, ...]
    dynamic_name: bool = False
    upstream: tuple[str, ...] = ()
    fed_by: tuple[str, ...] = ()
    write_targets: tuple[str, ...] = ()
    dynamic_write_targets: tuple[str, ...] = ()
    stdin: tuple[StdinSource, ...] = ()
    assignments: tuple[str, ...] = ()
    wrapped_by: tuple[str, ...] = ()
    dynamic_args: tuple[bool, ...] = ()

    def is_dynamic(self, index: int) -> bool:
        """Whether ``argv[index]`` is only known at run time."""
        return index < len(self.dynamic_args) and self.dynamic_args[index]

    @property
    def name(self) -> str:
        """Lower-case basename of the program (``/usr/bin/RM`` -> ``rm``)."""
        return program_name(self.argv[0]) if self.argv else ""


def program_name(word: str) -> str:
    return word.rsplit("/", 1)[-1].lower()
