"""Fail closed where bash's effects cannot be seen: only provable reads run unasked.

Over an overlay, what a bash call did is shown to the approver as a changeset,
so the command text need not be trusted. Without one (the sandbox off, the
network on, an overlay the kernel refuses) the command text is all there is,
and a list of dangerous names can always be evaded by a name it lacks. So on
that path the rule is turned around: a call runs without asking only when every
program it runs is *shown* to be read-only:

* the text parses, and every program (wrapped, nested, in a substitution, fed to
  a shell) is on the allow-list of readers (``risk_readers``) with flags that
  keep it a reader;
* no expansion or command substitution in its words, here-documents or
  variables (their values are only known at run time); globs only for programs
  none of whose options write or run anything;
* output goes only to the terminal or ``/dev/null``; no variable is set except
  locale and display ones; no program is run by a relative path.

Everything else asks, with a reason that names the first thing not proven.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.approval._risk_readers import ANY_ARGUMENTS, reader_rule
from harness.shell import ResolvedCommand, ShellParseError, resolve_commands

__all__ = ["NOT_READ_ONLY", "not_read_only_reasons"]

NOT_READ_ONLY = "shell command is not provably read-only"
_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})
_SAFE_VARIABLE = re.compile(r"LC_[A-Z]+|LANG|LANGUAGE|TZ|NO_COLOR|TERM|COLUMNS|LINES")
_EXPANSION = re.compile(r"[$`]|[<>]\(")
_PLAIN_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\}|[0-9@*#?])")
# A loop variable the environment would not hold (``for PATH in .`` changes later lookups).
_LOOP_VARIABLE = re.compile(r"[a-z_][a-z0-9_]*")
_SYSTEM_PROGRAM = re.compile(r"/(usr/(local/)?)?s?bin/[^/]+")
_NETWORK_DEVICE = re.compile(r"/dev/(tcp|udp)/")
# Wrappers that only run the program after them (peeled by the resolver, which
# judges that program on its own); the words each may take for itself.
_WRAPPERS = frozenset({"timeout", "nice", "time", "command", "env", "xargs"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_ENV_FLAGS = frozenset({"-i", "-", "-0", "--ignore-environment", "--null"})


def not_read_only_reasons(command: object) -> list[str]:
    """Why the bash ``command`` is not provably read-only; empty when it is."""
    if not isinstance(command, str):
        return [f"{NOT_READ_ONLY}: the command is missing or not text"]
    try:
        commands = resolve_commands(command)
    except ShellParseError as exc:
        return [f"{NOT_READ_ONLY}: it could not be parsed ({exc})"]
    reasons: list[str] = []
    for index, resolved in enumerate(commands):
        why = _why_not(resolved, commands[index + 1 :])
        if why is not None:
            shown = " ".join(resolved.argv) or "(redirection or assignment)"
            if len(shown) > 80:
                shown = shown[:77] + "..."
            reasons.append(f"{NOT_READ_ONLY}: {shown} ({why})")
    return list(dict.fromkeys(reasons))


def _why_not(command: ResolvedCommand, later: Sequence[ResolvedCommand]) -> str | None:
    why = _plumbing(command)
    if why is not None or not command.argv:
        return why
    program = command.argv[0]
    if command.dynamic_name:
        return "the program is only known at run time"
    if "/" in program and not _SYSTEM_PROGRAM.fullmatch(program):
        return "runs a program by a path the policy cannot vouch for"
    name = program.rsplit("/", 1)[-1]
    if name == "for":
        return _for_rule(command)
    for index, word in enumerate(command.argv):
        if not (command.is_dynamic(index) and _EXPANSION.search(word)):
            continue
        # A plain ``$name`` only becomes arguments, harmless to a program whose
        # every argument is; ``${x:=v}``, ``$((x=1))`` and ``$(...)`` do more.
        if name not in ANY_ARGUMENTS or _EXPANSION.search(_PLAIN_PARAMETER.sub("", word)):
            return f"{word} is an expansion or substitution, only known at run time"
    if name in _WRAPPERS and _wraps_next(command, later):
        return _wrapper_rule(name, command, later[0])
    if name == "env" and _env_words(command.argv[1:]):
        return None  # prints the environment
    fed = "xargs" in command.wrapped_by
    if fed and name not in ANY_ARGUMENTS:
        return "xargs gives it arguments known only at run time"
    dynamic = fed or any(command.dynamic_args[1:])
    return reader_rule(name, command.argv[1:], dynamic)


def _plumbing(command: ResolvedCommand) -> str | None:
    """Redirections and assignments: output only to the terminal, no variable set."""
    for target in command.write_targets:
        if target in command.dynamic_write_targets or target not in _SINKS:
            return f"redirects output to {target}"
    for source in command.stdin:
        if source.word is None:
            return "a here-document with no body"
        if source.word.dynamic:
            return "its input holds an expansion or substitution, only known at run time"
        if source.kind == "file" and _NETWORK_DEVICE.match(source.word.value):
            return f"opens a network connection ({source.word.value})"
    for assignment in command.assignments:
        name, _, value = assignment.partition("=")
        if not _SAFE_VARIABLE.fullmatch(name) or _EXPANSION.search(value):
            return f"sets {name}, which may change what later programs do"
    return None


def _wraps_next(command: ResolvedCommand, later: Sequence[ResolvedCommand]) -> bool:
    """Whether the resolver peeled ``command`` as a wrapper of the next program."""
    if not later or not later[0].wrapped_by or not later[0].argv:
        return False
    inner = later[0]
    tail = command.argv[len(command.argv) - len(inner.argv) :]
    return inner.wrapped_by[-1] == command.name and tail == inner.argv


def _wrapper_rule(name: str, command: ResolvedCommand, inner: ResolvedCommand) -> str | None:
    own = command.argv[1 : len(command.argv) - len(inner.argv)]
    if name == "time" and any(w != "-p" for w in own):
        return "time with options may write its report to a file"
    if name == "env" and not _env_words(own):
        return "env with options other than -i and -u may run code"
    if name == "command" and any(w != "-p" for w in own):
        return "command with options other than -p"
    return None


def _env_words(words: Sequence[str]) -> bool:
    """Whether ``env``'s own words only clear or set variables (``-S`` would run code)."""
    expect_name = False
    for word in words:
        if expect_name:
            expect_name = False
        elif word in ("-u", "--unset"):
            expect_name = True
        elif not (word in _ENV_FLAGS or word.startswith("--unset=") or _ASSIGNMENT.match(word)):
            return False
    return True


def _for_rule(command: ResolvedCommand) -> str | None:
    """``for f in words``: sets only a lower-case loop variable (its body is judged apart)."""
    variable = command.argv[1] if len(command.argv) > 1 else ""
    if not _LOOP_VARIABLE.fullmatch(variable) or variable.endswith("proxy"):
        return f"the loop sets {variable or 'a variable'}, which may change what later programs do"
    for word in command.argv[3:]:
        if _EXPANSION.search(_PLAIN_PARAMETER.sub("", word)):
            return f"{word} is an expansion or substitution, only known at run time"
    return None
