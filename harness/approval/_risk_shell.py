"""Shell rules: which ``bash`` commands a human must approve.

``harness.shell.resolve_commands`` says what a command line really runs (quoting,
wrappers, ``bash -c`` strings and here-documents fed to a shell resolved); the
rules here judge each program it finds. Each reason starts with the rule's name:

* ``dangerous shell command``: deletes, rewrites history, elevates, kills,
  formats, publishes, schedules for later, rebinds a command name ...
* ``runs code the policy cannot read``: inline Python/Perl/awk/sed/git code,
  or a shell whose script comes from a substitution or a variable.
* ``changes how later commands run``: ``BASH_ENV=``, ``LD_PRELOAD=``,
  ``PROMPT_COMMAND=``, ``BASH_ALIASES[..]=``, a relative ``PATH`` entry ...
* ``shell command writes to sensitive file`` / ``... to a file chosen at run
  time``: redirections, ``tee``, ``cp``/``mv`` targets, ``sed -i`` ... resolved
  against the directory ``cd`` moved to.
* ``shell command touches the harness state dir``: only when bash runs without
  the sandbox (see ``risk_state``).
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from pathlib import Path

from harness.approval._risk_env import CODE_VARIABLES, assignment_reasons, stored_code
from harness.approval._risk_git import git_rule
from harness.approval._risk_inline import SHELLS, inline_code_rule, is_interpreter
from harness.approval._risk_programs import DOWNLOADERS, PROGRAM_RULES, blind_write_rule
from harness.approval._risk_state import StateDirGuard
from harness.approval._risk_writes import CwdTracker, TreeTooBig, copied_tree_targets, written_files
from harness.shell import ResolvedCommand, ShellParseError, resolve_commands

__all__ = ["CODE_VARIABLES", "shell_command_reasons"]

_DOWNLOAD_OUTPUT_FLAGS = frozenset({"-o", "--output", "-O", "--output-document"})
_PLAIN_WORD = re.compile(r"[^\s'\"\\;&|<>()`]+")
_BLOCK_DEVICE = re.compile(r"/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|mapper/)")


def shell_command_reasons(
    command: object,
    workdir: Path | None = None,
    *,
    state_dir: Path | None = None,
    sandboxed: bool = True,
) -> list[str]:
    """Reasons a ``bash`` command needs approval; empty when it looks safe.

    Args:
        command: the ``command`` argument of the call.
        workdir: where the command runs, to resolve the paths it writes.
        state_dir: harness's state dir; guarded only when ``sandboxed`` is False.
        sandboxed: whether bash runs in the sandbox that hides the state dir.
    """
    if not isinstance(command, str):
        return ["shell command is missing or not text (cannot be judged)"]
    try:
        commands = resolve_commands(command)
    except ShellParseError as exc:
        return [f"shell command could not be parsed ({exc}); it cannot be judged"]
    guard = None if sandboxed or state_dir is None else StateDirGuard(state_dir, workdir)
    reasons: list[str] = [] if guard is None else guard.text_reasons(command)
    downloaded = _downloaded_files(commands)
    cwd = CwdTracker(workdir)
    written: set[str] = set()
    for resolved in commands:
        reasons.extend(_command_reasons(resolved, downloaded, cwd))
        if written and _runs_file(resolved, written):
            reasons.append(
                f"runs code the policy cannot read: {_show(resolved)} "
                "(runs a script written earlier in the same command)"
            )
        written.update(_basename(t.path) for t in written_files(resolved) if t.strict)
        if guard is not None:
            reasons.extend(guard.command_reasons(resolved, cwd))
        cwd.observe(resolved)
    return reasons


def _command_reasons(
    command: ResolvedCommand, downloaded: frozenset[str], cwd: CwdTracker
) -> Iterable[str]:
    yield from assignment_reasons(command)
    if not command.argv:
        if (why := stored_code(command)) is not None:
            yield f"runs code the policy cannot read: {' '.join(command.assignments)} ({why})"
        yield from _write_reasons(command, cwd)
        return
    if command.dynamic_name:
        yield (
            f"shell command runs a program chosen at run time: {_show(command)} (cannot be judged)"
        )
        return
    for rule in PROGRAM_RULES:
        if (why := rule(command)) is not None:
            yield f"dangerous shell command: {_show(command)} ({why})"
    if (why := git_rule(command, cwd.exists)) is not None:
        yield f"dangerous shell command: {_show(command)} ({why})"
    if (why := blind_write_rule(command)) is not None:
        yield f"shell command writes files the policy cannot see: {_show(command)} ({why})"
    if _runs_file(command, downloaded):
        yield f"dangerous shell command: {_show(command)} (runs a downloaded script)"
    for why in (inline_code_rule(command), _unreadable_script(command), stored_code(command)):
        if why is not None:
            yield f"runs code the policy cannot read: {_show(command)} ({why})"
    yield from _write_reasons(command, cwd)


def _tree_reasons(command: ResolvedCommand, cwd: CwdTracker) -> Iterable[str]:
    try:
        targets = copied_tree_targets(command, cwd)
    except TreeTooBig as exc:
        yield (
            f"shell command writes files the policy cannot see: {_show(command)} "
            f"(copies {exc.args[0]}, too many files to judge one by one)"
        )
        return
    for target in targets:
        for shown, why in cwd.sensitive(target):
            yield (
                f"shell command writes to sensitive file: {shown} ({why}, copied by {command.name})"
            )


def _write_reasons(command: ResolvedCommand, cwd: CwdTracker) -> Iterable[str]:
    yield from _tree_reasons(command, cwd)
    for target in written_files(command):
        if target.dynamic:
            if target.strict:
                yield (
                    f"shell command writes to a file chosen at run time: {target.path} "
                    "(variable, glob or substitution; cannot be judged)"
                )
            continue
        if target.strict and cwd.unknown and not target.path.startswith("/"):
            yield (
                f"shell command writes to a file chosen at run time: {target.path} "
                "(relative to a directory only known at run time)"
            )
        if _BLOCK_DEVICE.match(target.path):
            yield f"shell command writes to sensitive file: {target.path} (a block device)"
            continue
        for shown, why in cwd.sensitive(target.path):
            yield f"shell command writes to sensitive file: {shown} ({why})"


def _downloaded_files(commands: Iterable[ResolvedCommand]) -> frozenset[str]:
    """Basenames of files a downloader in the same command line writes."""
    names: set[str] = set()
    for command in commands:
        if command.name not in DOWNLOADERS:
            continue
        argv = command.argv
        names.update(command.write_targets)
        names.update(v for o, v in itertools.pairwise(argv) if o in _DOWNLOAD_OUTPUT_FLAGS)
        if command.name == "wget" and not _DOWNLOAD_OUTPUT_FLAGS.intersection(argv):
            names.update(a for a in argv[1:] if "://" in a)  # wget saves under the URL's name
    return frozenset(n.rstrip("/").rsplit("/", 1)[-1] for n in names if n not in ("-", ""))


def _runs_file(command: ResolvedCommand, downloaded: AbstractSet[str]) -> bool:
    if not downloaded or not command.argv:
        return False
    if "/" in command.argv[0] and command.argv[0].rsplit("/", 1)[-1] in downloaded:
        return True  # ./install.sh
    runs_code = command.name in ("source", ".") or is_interpreter(command.name)
    operands = [a for a in command.argv[1:] if not a.startswith("-")]
    return runs_code and bool(operands) and operands[0].rsplit("/", 1)[-1] in downloaded


def _basename(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def _show(command: ResolvedCommand) -> str:
    # Quote only what would read ambiguously: ``git reset --hard HEAD~1`` stays as typed.
    text = " ".join(a if _PLAIN_WORD.fullmatch(a) else shlex.quote(a) for a in command.argv)
    if len(text) <= 120:
        return text
    # The reason names the command; the approval preview shows it whole.
    return f"{text[:117]}... ({len(text) - 117} more characters)"


def _unreadable_script(command: ResolvedCommand) -> str | None:
    """A shell or interpreter whose program is a substitution, variable or device."""
    name = command.name
    if not (name in ("source", ".") or is_interpreter(name)):
        return None
    for kind, word in ((s.kind, s.word) for s in command.stdin):
        if word is None:
            return "a here-document with no body"
        unreadable = word.dynamic or word.value.startswith(("/dev/", "/proc/"))
        if kind == "file" and unreadable and (name in SHELLS or name in ("source", ".")):
            return f"reads its program from {word.value}"
    for index in range(1, len(command.argv)):
        arg = command.argv[index]
        if arg in ("-c", "-m", "-e", "-E", "-r", "--"):
            return None  # inline code is judged by its own rule
        if arg.startswith("-") and len(arg) > 1:
            continue
        if command.is_dynamic(index):
            return f"its program {arg} is only known at run time"
        if arg.startswith(("/dev/", "/proc/")):
            return f"reads its program from {arg}"
        return None
    return None
