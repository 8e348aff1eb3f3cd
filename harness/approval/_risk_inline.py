"""The rule "runs code the policy cannot read": programs given code inline.

``bash -c "..."`` strings are parsed and judged like any command, but the policy
does not read Python, Perl, awk or git's config language. So an interpreter
given inline code (``python -c``, ``perl -e``, ``node -e``, ``awk`` calling
``system(``, ``sed``'s ``e`` command, ``tar --to-command``, ``git -c
alias.x=!...``, a shell or interpreter run by ``find -exec``/``xargs``) needs a
human to read it. An interpreter given a script *file* is not covered (as
``python3 script.py``): the policy reads no files.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from harness.approval._risk_git import git_arguments, long_option, short_flag
from harness.approval._risk_sed import sed_runs_code
from harness.shell import ResolvedCommand

__all__ = ["INTERPRETERS", "SHELLS", "inline_code_rule", "is_interpreter"]

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish"})
INTERPRETERS = SHELLS | {
    "perl", "ruby", "node", "nodejs", "php", "lua", "luajit", "deno", "bun", "rscript", "r",
    "julia", "osascript", "pwsh", "powershell", "expect", "tclsh", "wish", "irb", "jshell",
    "nu", "xonsh", "elvish",
}  # fmt: skip
_PYTHON = re.compile(r"(python|pypy)[0-9.]*")
# For each interpreter: the short options that take inline code, and the long ones.
_CODE_OPTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "perl": ("eE", ()),
    "ruby": ("e", ()),
    "node": ("ep", ("--eval", "--print")),
    "nodejs": ("ep", ("--eval", "--print")),
    "bun": ("ep", ("--eval", "--print")),
    "php": ("rBRE", ("--run", "--process-begin", "--process-code", "--process-end")),
    "lua": ("e", ()),
    "luajit": ("e", ()),
    "rscript": ("e", ()),
    "r": ("e", ()),
    "julia": ("eE", ("--eval", "--print")),
    "osascript": ("e", ()),
    "expect": ("c", ()),
    "pwsh": ("ce", ("-command", "-encodedcommand")),
    "nu": ("c", ("--commands",)),
    "xonsh": ("c", ()),
    "elvish": ("c", ()),
    "powershell": ("ce", ("-command", "-encodedcommand")),
}
# Short options whose value is glued to them or follows: the bundle ends there.
_VALUE_LETTERS = {"perl": "IMmixdDCl0", "ruby": "rICEFxKTW0"}
_AWKS = frozenset({"awk", "gawk", "mawk", "nawk"})
_AWK_DANGER = re.compile(r"system\s*\(|getline|\|&|\|\s*\"|\bprint[f]?\b[^;}]*[>|]|@load")
_TAR_CODE = ("--checkpoint-action", "--to-command", "--use-compress-program", "--info-script",
             "--new-volume-script", "--rsh-command", "--rmt-command")  # fmt: skip
_TAR_SAFE = frozenset({"--checkpoint", "--to-stdout"})
_GIT_CODE_KEYS = frozenset(
    {"core.pager", "core.sshcommand", "core.hookspath", "core.editor", "core.fsmonitor",
     "core.askpass", "core.gitproxy", "core.alternaterefscommand", "diff.external",
     "sequence.editor", "gpg.program", "credential.helper", "uploadpack.packobjectshook",
     "web.browser", "include.path", "help.autocorrect"}
)  # fmt: skip
_GIT_CODE_PATTERNS = re.compile(
    r"(alias|pager|includeif|protocol)\..+|(diff|merge|filter|gpg|man|difftool|mergetool"
    r"|credential|remote|submodule)\..+\.(textconv|command|driver|clean|smudge|process|program"
    r"|cmd|helper|uploadpack|receivepack|allow|update)"
)
_RUNS_FOUND_NAMES = frozenset({"find", "xargs", "parallel"})
# Run by xargs/find/parallel, these run whatever program the input names.
_PASS_THROUGH = frozenset(
    {"env", "nice", "nohup", "timeout", "time", "command", "exec", "stdbuf", "setsid", "sudo",
     "doas", "busybox", "toybox", "flock", "taskset", "chrt", "ionice", "unbuffer", "strace",
     "ltrace", "numactl", "nocache", "catchsegv", "xargs", "parallel", "watch", "eval"}
)  # fmt: skip
_GIT_CODE_OPTIONS = ("--exec", "--upload-pack", "--receive-pack", "--extcmd")
_MULTIPLEXERS = frozenset({"tmux", "screen", "byobu", "zellij"})
_EDITORS = frozenset({"ed", "red", "ex", "vi", "vim", "nvim", "view"})
_CONTAINER_TOOLS = frozenset({"docker", "podman", "nerdctl", "kubectl", "oc", "lxc"})
_CONTAINER_RUNS = frozenset(
    {"run", "exec", "create", "start", "compose", "build", "debug", "attach", "container"}
)
_MULTIPLEXER_READS = frozenset({"ls", "list-sessions", "list-windows", "-ls", "-list"})


def is_interpreter(name: str) -> bool:
    return name in INTERPRETERS or _PYTHON.fullmatch(name) is not None


def inline_code_rule(command: ResolvedCommand) -> str | None:
    """What inline code ``command`` runs that the policy cannot read, or None."""
    name = command.name
    args = command.argv[1:]
    runner = next((w for w in command.wrapped_by if w in _RUNS_FOUND_NAMES), None)
    if runner is not None:
        if is_interpreter(name):
            return f"{runner} runs {name} on input known only at run time"
        if name in _PASS_THROUGH or "{}" in command.argv[0]:
            return f"{runner} runs a program named by its input"
    if name == "parallel":
        operands = [a for a in args if not a.startswith("-")]
        if not operands or operands[0].startswith(":::"):
            return "parallel runs commands given as its arguments or input"
    if name in _MULTIPLEXERS and args and not _MULTIPLEXER_READS.intersection(args[:1]):
        return f"{name} runs commands in a terminal session"
    if name in ("rename", "prename", "file-rename") and args:
        operands = [a for a in args if not a.startswith("-")]
        if operands and re.match(r"(s|y|tr)\W|.*[;(]", operands[0]):
            return "rename evaluates a Perl expression"
    if _PYTHON.fullmatch(name):
        return _python(args, command)
    if name in _CODE_OPTIONS:
        return _interpreter(name, args, command)
    if name in _AWKS:
        return _awk(args, command)
    if name in ("sed", "gsed"):
        return _sed(args, command)
    if name in _EDITORS and any(s.kind != "file" for s in command.stdin):
        return f"{name} reads editor commands (which can run shell commands) from stdin"
    if name == "sqlite3" and any(
        s.word is None or re.search(r"^\s*\.(shell|system)", s.word.value, re.M)
        for s in command.stdin
        if s.kind != "file"
    ):
        return "sqlite3 runs a shell command"
    if name in _CONTAINER_TOOLS and _CONTAINER_RUNS.intersection(args[:2]):
        return f"{name} runs commands in a container"
    if name in ("tar", "gtar", "bsdtar"):
        return _tar(args)
    if name == "git":
        return _git(command.argv)
    if name == "deno" and args[:1] == ("eval",):
        return "deno eval runs inline code"
    return _other(name, args)


def _stdin_code(command: ResolvedCommand) -> str | None:
    if any(s.kind != "file" for s in command.stdin):
        return f"{command.name} reads its program from a here-document or here-string"
    return None


def _python(args: Sequence[str], command: ResolvedCommand) -> str | None:
    index = 0
    while index < len(args):
        word = args[index]
        if word == "-":
            return "python reads its program from stdin"
        if word in ("-W", "-X", "--check-hash-based-pycs"):
            index += 2
            continue
        if word.startswith("--"):
            index += 1
            continue
        if not word.startswith("-") or len(word) == 1:
            return None  # a script file
        letters = word[1:]
        for letter in letters:
            if letter == "c":
                return "python -c runs inline code"
            if letter == "m":
                return None  # a module, as ``python3 -m pytest``
        index += 1
    return _stdin_code(command)


def _interpreter(name: str, args: Sequence[str], command: ResolvedCommand) -> str | None:
    letters, longs = _CODE_OPTIONS[name]
    value_letters = _VALUE_LETTERS.get(name, "")
    for word in args:
        if word == "--" or not word.startswith("-") or len(word) == 1:
            break
        lowered = word.lower()
        if word.startswith("--") or (name in ("pwsh", "powershell") and len(word) > 2):
            if any(n.startswith(lowered.split("=", 1)[0]) for n in longs):
                return f"{name} {word.split('=', 1)[0]} runs inline code"
            continue
        for letter in word[1:]:
            if letter in letters:
                return f"{name} -{letter} runs inline code"
            if letter in value_letters:
                break
    operands = [a for a in args if not a.startswith("-")]
    return None if operands else _stdin_code(command)


def _unreadable_program(command: ResolvedCommand, program: str) -> bool:
    """The program text (or file) is a substitution, a variable or a device."""
    index = command.argv.index(program) if program in command.argv else -1
    dynamic = index >= 0 and command.is_dynamic(index)
    return dynamic or program.startswith(("/dev/", "/proc/"))


def _awk(args: Sequence[str], command: ResolvedCommand) -> str | None:
    programs: list[str] = []
    has_file = False
    index = 0
    while index < len(args):
        word = args[index]
        if word in ("-l", "--load") or word.startswith("--load="):
            return "awk loads a compiled extension"
        if word in ("-f", "--file", "-E", "--exec", "-i", "--include"):
            has_file = True
            if index + 1 < len(args) and _unreadable_program(command, args[index + 1]):
                return f"awk program {args[index + 1]} is only known at run time"
            index += 2
            continue
        if word in ("-e", "--source") and index + 1 < len(args):
            programs.append(args[index + 1])
            index += 2
            continue
        if word in ("-F", "-v", "--assign", "--field-separator"):
            index += 2
            continue
        if word == "--":
            index += 1
            break
        if not word.startswith("-") or len(word) == 1:
            break
        index += 1
    if not programs and not has_file and index < len(args):
        programs.append(args[index])
    for program in programs:
        if _unreadable_program(command, program):
            return "awk program is only known at run time"
        if _AWK_DANGER.search(program):
            return "awk program runs commands or writes files (system, getline, print >)"
    return None


def _sed(args: Sequence[str], command: ResolvedCommand) -> str | None:
    scripts: list[str] = []
    index = 0
    operands: list[str] = []
    while index < len(args):
        word = args[index]
        if word in ("-e", "--expression") and index + 1 < len(args):
            scripts.append(args[index + 1])
            index += 2
            continue
        if word.startswith("--expression="):
            scripts.append(word.split("=", 1)[1])
        elif word in ("-f", "--file", "-l", "--line-length"):
            script_file = args[index + 1] if index + 1 < len(args) else ""
            if word in ("-f", "--file") and _unreadable_program(command, script_file):
                return f"sed script {script_file} is only known at run time"
            index += 2
            continue
        elif not word.startswith("-") or len(word) == 1:
            operands.append(word)
        index += 1
    if not scripts and operands:
        scripts.append(operands[0])
    for script in scripts:
        if _unreadable_program(command, script):
            return "sed script is only known at run time"
        if sed_runs_code(script):
            return "sed script runs commands or writes files (e, w, s///e, s///w)"
    return None


def _tar(args: Sequence[str]) -> str | None:
    for word in args:
        if word.split("=", 1)[0] in _TAR_SAFE:
            continue
        if long_option(word, *_TAR_CODE):
            return f"tar {word.split('=', 1)[0]} runs a program"
        if short_flag(word, "I") or short_flag(word, "F"):
            return "tar -I/-F runs a program"
    return None


def git_code_key(key: str) -> bool:
    lowered = key.lower()
    return lowered in _GIT_CODE_KEYS or _GIT_CODE_PATTERNS.fullmatch(lowered) is not None


def _git(argv: Sequence[str]) -> str | None:
    options, args = git_arguments(argv)
    for name, value in options:
        if name == "--exec-path" and value:
            return "git --exec-path runs git commands from another directory"
        if name in ("-c", "--config-env"):
            key = value.split("=", 1)[0]
            if git_code_key(key):
                return f"git -c {key} makes git run a command"
    for word in args:
        if long_option(word, *_GIT_CODE_OPTIONS):
            return f"git {word.split('=', 1)[0]} runs a command"
    if args[:1] == ["rebase"] and any(short_flag(a, "x") for a in args[1:]):
        return "git rebase -x runs a command"
    if args[:2] in (["submodule", "foreach"], ["bisect", "run"]):
        return f"git {' '.join(args[:2])} runs a command"
    if args[:1] in (["difftool"], ["mergetool"]) and "-x" in args:
        return f"git {args[0]} -x runs a command"
    if args[:1] == ["config"]:
        keys = [a for a in args[1:] if not a.startswith("-") and a not in ("set", "get")]
        if keys and git_code_key(keys[0]) and (len(keys) > 1 or "--add" in args):
            return f"git config {keys[0]} makes later git commands run a command"
    return None


def _other(name: str, args: Sequence[str]) -> str | None:
    if name in ("vim", "vi", "nvim", "ex", "view", "vimdiff") and any(
        a.startswith("+") or a in ("-c", "--cmd", "-S") for a in args
    ):
        return f"{name} runs editor commands given on the command line"
    if name in ("emacs", "emacsclient") and any(
        long_option(a, "--eval") or a == "-eval" for a in args
    ):
        return "emacs --eval runs inline code"
    if name == "gdb" and any(a in ("-ex", "--eval-command", "-x") for a in args):
        return "gdb runs commands given on the command line"
    if name == "zip" and any(a == "-TT" or long_option(a, "--unzip-command") for a in args):
        return "zip runs a test command"
    if name == "ssh" and any(re.search(r"(?i)(proxy|local)command", a) for a in args):
        return "ssh runs a local command (ProxyCommand/LocalCommand)"
    if name in ("sqlite3",) and any(a.lstrip().startswith((".shell", ".system")) for a in args):
        return "sqlite3 runs a shell command"
    if name == "man" and any(a == "-P" or long_option(a, "--pager") for a in args):
        return "man runs a pager command"
    return None
