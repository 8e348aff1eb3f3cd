"""Shell rules: which ``bash`` commands a human must approve.

``shell_parse.resolve_commands`` says what a command line really runs (quoting,
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
from collections.abc import Callable, Iterable
from pathlib import Path

from harness.approval.risk_git import git_rule, long_option
from harness.approval.risk_inline import SHELLS, inline_code_rule, is_interpreter
from harness.approval.risk_state import StateDirGuard
from harness.approval.risk_writes import CwdTracker, written_files
from harness.approval.shell_parse import ResolvedCommand, ShellParseError, resolve_commands

__all__ = ["CODE_VARIABLES", "shell_command_reasons"]

_PROGRAMS: dict[str, str] = {
    **dict.fromkeys(
        ("rm", "unlink", "rimraf", "srm", "wipe", "trash", "trash-put", "trash-rm"), "deletes files"
    ),
    "rmdir": "deletes directories",
    "shred": "destroys file contents",
    "truncate": "truncates files",
    **dict.fromkeys(
        ("sudo", "su", "doas", "pkexec", "run0", "runuser"), "runs with elevated privileges"
    ),
    **dict.fromkeys(("chmod", "chattr", "setfacl"), "changes file permissions"),
    **dict.fromkeys(("reboot", "shutdown", "poweroff", "halt"), "shuts down the machine"),
    **dict.fromkeys(("mount", "umount"), "changes mounted filesystems"),
    **dict.fromkeys(("chown", "chgrp"), "changes file ownership"),
    **dict.fromkeys(("kill", "pkill", "killall", "killall5"), "kills processes"),
    "dd": "writes raw data to files or devices",
    **dict.fromkeys(("fdisk", "sfdisk", "parted", "wipefs", "mkswap"), "changes disk partitions"),
    **dict.fromkeys(("goreleaser", "semantic-release"), "publishes a release"),
    **dict.fromkeys(("at", "batch", "crontab"), "schedules commands to run after this call"),
}
_DOWNLOADERS = frozenset({"curl", "wget", "fetch", "http", "https", "aria2c"})
_DOWNLOAD_OUTPUT_FLAGS = frozenset({"-o", "--output", "-O", "--output-document"})
_INLINE_PROGRAM_FLAGS = frozenset({"-c", "-m", "-e", "-E", "-r"})
_RELEASE_WORD = re.compile(r"(?<![a-z])(deploy|publish|release|unpublish)")
_NOT_RELEASE = frozenset({"lsb_release"})
_RELEASE_TOOLS = frozenset(
    {"make", "npm", "pnpm", "yarn", "bun", "cargo", "poetry", "uv", "hatch", "flit", "pdm",
     "rye", "fly", "flyctl", "firebase", "vercel", "netlify", "serverless", "sls", "heroku",
     "mvn", "gradle", "gradlew", "just", "task", "invoke", "rake", "dotnet", "helm", "lerna",
     "changeset", "cdk", "sam", "gcloud", "az", "eb", "nox", "tox"}
)  # fmt: skip
_RELEASE_SUBCOMMANDS = {
    "twine": {"upload"}, "docker": {"push"}, "podman": {"push"}, "gem": {"push"},
    "terraform": {"apply", "destroy"}, "pulumi": {"up", "destroy"}, "kubectl": {"apply", "delete"},
}  # fmt: skip
_PLAIN_WORD = re.compile(r"[^\s'\"\\;&|<>()`]+")
_BLOCK_DEVICE = re.compile(r"/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk|mapper/)")
_UNIDENTIFIABLE = re.compile(r"/(proc/[^/]+/(exe|fd/.*|cwd/.*|root/.*)|dev/fd/.*)")
_BIN_DIR = re.compile(r"(^|/)s?bin/[^/]+$")
# Variables through which a value makes later commands run other code.
CODE_VARIABLES = frozenset(
    {"BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4", "LD_PRELOAD",
     "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ALIASES", "BASH_CMDS", "SHELLOPTS", "BASHOPTS",
     "BASH_LOADABLES_PATH", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS", "GIT_SSH",
     "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR", "GIT_SEQUENCE_EDITOR",
     "GIT_ASKPASS", "GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_CONFIG_GLOBAL",
     "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_TEMPLATE_DIR",
     "PAGER", "MANPAGER", "EDITOR", "VISUAL", "SSH_ASKPASS", "SUDO_ASKPASS", "LESSOPEN",
     "LESSCLOSE", "BROWSER", "CDPATH"}
)  # fmt: skip
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


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
        if _runs_file(resolved, frozenset(written)):
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
    yield from _assignment_reasons(command)
    if not command.argv:
        if (why := _stored_code(command)) is not None:
            yield f"runs code the policy cannot read: {' '.join(command.assignments)} ({why})"
        yield from _write_reasons(command, cwd)
        return
    if command.dynamic_name:
        yield (
            f"shell command runs a program chosen at run time: {_show(command)} (cannot be judged)"
        )
        return
    for rule in _SHELL_RULES:
        if (why := rule(command)) is not None:
            yield f"dangerous shell command: {_show(command)} ({why})"
    if (why := git_rule(command, cwd.exists)) is not None:
        yield f"dangerous shell command: {_show(command)} ({why})"
    if (why := _blind_write_rule(command)) is not None:
        yield f"shell command writes files the policy cannot see: {_show(command)} ({why})"
    if _runs_file(command, downloaded):
        yield f"dangerous shell command: {_show(command)} (runs a downloaded script)"
    for why in (inline_code_rule(command), _unreadable_script(command), _stored_code(command)):
        if why is not None:
            yield f"runs code the policy cannot read: {_show(command)} ({why})"
    yield from _write_reasons(command, cwd)


def _write_reasons(command: ResolvedCommand, cwd: CwdTracker) -> Iterable[str]:
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
        if command.name not in _DOWNLOADERS:
            continue
        argv = command.argv
        names.update(command.write_targets)
        names.update(v for o, v in itertools.pairwise(argv) if o in _DOWNLOAD_OUTPUT_FLAGS)
        if command.name == "wget" and not _DOWNLOAD_OUTPUT_FLAGS.intersection(argv):
            names.update(a for a in argv[1:] if "://" in a)  # wget saves under the URL's name
    return frozenset(n.rstrip("/").rsplit("/", 1)[-1] for n in names if n not in ("-", ""))


def _runs_file(command: ResolvedCommand, downloaded: frozenset[str]) -> bool:
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
    return text if len(text) <= 120 else text[:117] + "..."


def _program_rule(command: ResolvedCommand) -> str | None:
    name = command.name
    if name.startswith("mkfs"):
        return "formats a filesystem"
    if _UNIDENTIFIABLE.search(command.argv[0]):
        return "runs a program the policy cannot identify"
    return _PROGRAMS.get(name)


def _builtin_rule(command: ResolvedCommand) -> str | None:
    args = command.argv[1:]
    if command.name == "hash" and any(a.startswith("-") and "p" in a for a in args):
        return "rebinds a command name to another program (hash -p)"
    if command.name == "enable" and any(a.startswith("-") and "f" in a for a in args):
        return "loads a builtin from a shared library (enable -f)"
    return None


def _destroys_rule(command: ResolvedCommand) -> str | None:
    name, args = command.name, command.argv[1:]
    operands = [a for a in args if not a.startswith("-")]
    if name in ("cp", "install") and "/dev/null" in operands[:-1]:
        return "empties the target file"
    if name == "mv" and operands[-1:] == ["/dev/null"]:
        return "destroys the moved file"
    if name == "rsync" and any(
        long_option(a, "--delete", "--delete-before", "--delete-during", "--delete-delay",
                    "--delete-after", "--delete-excluded", "--del", "--remove-source-files")
        for a in args
    ):  # fmt: skip
        return "deletes files (rsync --delete / --remove-source-files)"
    if name in ("cp", "ln", "install") and any(_BIN_DIR.search(o) for o in operands[:-1]):
        return "copies or links a program, which could then run under another name"
    if name == "find" and any(a in ("-delete", "-fdelete") for a in args):
        return "deletes files"
    if name == "tar" and any(long_option(a, "--remove-files") for a in args):
        return "deletes the files it archives"
    if name == "zip" and any(a == "--move" or _short_flag(a, "m") for a in args):
        return "deletes the files it archives"
    if name == "ln" and "/dev/null" in operands[:-1]:
        return "replaces the target with a link to /dev/null"
    if name == "install" and any(a.startswith(("-m", "--mode")) for a in args):
        return "sets file permissions (install -m)"
    if (
        name == "git"
        and "update-index" in operands[:1]
        and any(a.startswith("--chmod") for a in args)
    ):
        return "changes file permissions (git update-index --chmod)"
    if name == "gio" and operands[:1] in (["remove"], ["trash"]):
        return "deletes files"
    if name in ("systemctl", "service") and _SERVICE_CHANGES.intersection(operands[:2]):
        return "stops or changes system services"
    return None


_SERVICE_CHANGES = frozenset(
    {"stop", "disable", "mask", "kill", "reboot", "poweroff", "halt", "restart", "isolate"}
)
# Programs that write files whose names only the input knows (an archive, a patch).
_BLIND_WRITERS: dict[str, Callable[[tuple[str, ...]], bool]] = {
    "tar": lambda argv: (
        any(
            long_option(a, "--extract", "--get")
            or (not a.startswith("--") and "x" in a.lstrip("-"))
            for a in argv[1:2]
        )
        or any(long_option(a, "--extract") or _short_flag(a, "x") for a in argv[2:])
    ),
    "unzip": lambda argv: not any(a in ("-l", "-t", "-v", "-Z") for a in argv[1:]),
    "cpio": lambda argv: any(_short_flag(a, "i") or long_option(a, "--extract") for a in argv),
    "patch": lambda argv: not any(long_option(a, "--dry-run") for a in argv),
    "git": lambda argv: (
        argv[1:2] in (("apply",), ("am",))
        and not any(long_option(a, "--check", "--stat", "--numstat", "--summary") for a in argv)
    ),
}


def _blind_write_rule(command: ResolvedCommand) -> str | None:
    check = _BLIND_WRITERS.get(command.name)
    if check is not None and check(command.argv):
        return "extracts or patches files whose names the policy cannot see"
    return None


def _pipe_rule(command: ResolvedCommand) -> str | None:
    name = command.name
    runs_code = name in ("source", ".", "eval") or is_interpreter(name)
    if runs_code and _DOWNLOADERS.intersection(command.fed_by):
        return "runs a downloaded script"
    if not (is_interpreter(name) and command.upstream):
        return None
    if not _reads_program_from_stdin(command.argv):
        return None
    if _DOWNLOADERS.intersection(command.upstream):
        return "runs a downloaded script piped into it"
    return "runs piped input as a program"


def _reads_program_from_stdin(argv: tuple[str, ...]) -> bool:
    for arg in argv[1:]:
        if arg in ("-", "-s"):
            return True
        if arg in _INLINE_PROGRAM_FLAGS or (_short_flag(arg, "c") and len(arg) <= 4):
            return False
        if not arg.startswith(("-", "+")):
            return False
    return True


def _short_flag(flag: str, letter: str) -> bool:
    return flag.startswith("-") and not flag.startswith("--") and letter in flag[1:]


def _release_rule(command: ResolvedCommand) -> str | None:
    name = command.name
    if name not in _NOT_RELEASE and _RELEASE_WORD.search(name.split(".", 1)[0]):
        return "deploys or publishes"
    operands = [a.lower() for a in command.argv[1:] if not a.startswith("-")]
    if is_interpreter(name) and operands and _reads_script(command.argv):
        script = operands[0].rsplit("/", 1)[-1]
        if _RELEASE_WORD.search(script):
            return "runs a deploy or release script"
    if name in _RELEASE_TOOLS and any(_RELEASE_WORD.match(a) for a in operands[:3]):
        return "deploys or publishes"
    if name == "gh" and operands[:1] == ["release"] and operands[1:2] != ["list"]:
        return "publishes a release"
    if operands and operands[0] in _RELEASE_SUBCOMMANDS.get(name, ()):
        return "deploys or publishes"
    return None


def _reads_script(argv: tuple[str, ...]) -> bool:
    return not any(a in _INLINE_PROGRAM_FLAGS or _short_flag(a, "c") for a in argv[1:])


_SHELL_RULES: tuple[Callable[[ResolvedCommand], str | None], ...] = (
    _program_rule,
    _builtin_rule,
    _destroys_rule,
    _pipe_rule,
    _release_rule,
)


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


# A quoted ``a[$(cmd)]`` is inert where it is written, but bash runs the substitution
# when it evaluates the text as arithmetic later (``$((x))``, ``let``, ``[[ x -eq 1 ]]``).
_SUBSCRIPT_CODE = re.compile(r"\[[^\]]*(\$\(|`)")
_PROMPT_EXPANSION = re.compile(r"\$\{[^}]*@P\}")


def _stored_code(command: ResolvedCommand) -> str | None:
    words = [a for i, a in enumerate(command.argv) if not command.is_dynamic(i)]
    if any(_SUBSCRIPT_CODE.search(w) for w in [*words, *command.assignments]):
        return "a subscript holding a command substitution runs when bash evaluates it"
    if any(_PROMPT_EXPANSION.search(a) for a in command.argv):
        return "${var@P} runs the command substitutions stored in var"
    return None


def _assignment_reasons(command: ResolvedCommand) -> Iterable[str]:
    words = list(command.assignments)
    if command.name in _DECLARERS:
        words.extend(a for a in command.argv[1:] if not a.startswith(("-", "+")))
    if command.name in ("read", "mapfile", "readarray"):
        words.extend(a + "=" for a in command.argv[1:] if _VARIABLE_NAME.fullmatch(a))
    if command.name == "printf":
        words.extend(v + "=" for o, v in itertools.pairwise(command.argv) if o == "-v")
    for word in words:
        name, _, value = word.partition("=")
        name = name.split("[", 1)[0].rstrip("+")
        targets = (name, value) if command.name in _DECLARERS else (name,)
        if any(t in CODE_VARIABLES or t.startswith("BASH_FUNC_") for t in targets):
            yield f"changes how later commands run: {word} (sets {name})"
        elif name == "PATH" and _relative_path_entry(value):
            yield f"changes how later commands run: {word} (PATH entry that is not absolute)"


def _relative_path_entry(value: str) -> bool:
    entries = value.split(":")
    return any(not e or not (e.startswith(("/", "$", "~"))) for e in entries)
