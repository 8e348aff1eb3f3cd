"""The allow-list of read-only programs, and the flags that keep each one read-only.

Used by ``risk_readonly`` when bash runs where its effects cannot be seen: there a
program runs without asking only if this module can show, from its arguments,
that it reads and prints and does nothing else. Each check takes the words after
the program name and whether any of them is only known at run time (a glob, or
input fed through ``xargs``), and returns why the call is not read-only, or None.

``ANY_ARGUMENTS`` programs have no option that writes a file or runs a program,
so any arguments (globs included) keep them read-only. The others have such an
option (``sort -o``, ``find -exec``, ``rg --pre``, ``git diff --output`` ...):
their arguments must all be known before the run, and none may be that option.
Long options are matched by prefix, as git and GNU getopt accept abbreviations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from harness.approval._risk_git import long_option, short_flag
from harness.approval._risk_git_reads import git_read_rule
from harness.approval._risk_sed import sed_runs_code

__all__ = ["ANY_ARGUMENTS", "READERS", "reader_rule"]

Check = Callable[[Sequence[str]], str | None]

ANY_ARGUMENTS = frozenset(
    {"cat", "ls", "wc", "head", "tail", "grep", "egrep", "fgrep", "echo", "pwd", "true",
     "false", ":", "basename", "dirname", "realpath", "readlink", "stat", "du", "df", "nl",
     "cut", "tr", "comm", "diff", "cmp", "md5sum", "sha1sum", "sha224sum", "sha256sum",
     "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "which", "type", "whoami", "id",
     "groups", "uname", "nproc", "printenv", "column", "fold", "fmt", "expand", "unexpand",
     "rev", "tac", "od", "hexdump", "strings", "base64", "base32", "jq", "seq", "sleep",
     "test", "[", "[[", "paste", "join", "ps", "free", "uptime", "tty", "locale", "arch"}
)  # fmt: skip
_NOT_PROVEN = "an option of it may write files or run programs"


def reader_rule(name: str, args: Sequence[str], dynamic: bool) -> str | None:
    """Why ``name args`` is not provably read-only, or None when it is."""
    if name in ANY_ARGUMENTS:
        return None
    check = READERS.get(name)
    if check is None:
        return "not a program known to be read-only"
    if dynamic:
        return "its arguments are only known at run time and could name an option that writes"
    return check(args)


def _operands(args: Sequence[str], takes_value: frozenset[str] = frozenset()) -> list[str]:
    found: list[str] = []
    skip = False
    for word in args:
        if skip:
            skip = False
        elif word in takes_value:
            skip = True
        elif word == "-" or not word.startswith("-"):
            found.append(word)
    return found


def _printf(args: Sequence[str]) -> str | None:
    return "printf -v sets a shell variable" if args[:1] and args[0].startswith("-v") else None


def _sort(args: Sequence[str]) -> str | None:
    for word in args:
        if long_option(word, "--output", "--compress-program"):
            return "sort --output writes a file; --compress-program runs one"
        if short_flag(word, "o"):
            return "sort -o writes a file"
    return None


def _at_most_one_operand(program: str, takes_value: frozenset[str] = frozenset()) -> Check:
    def check(args: Sequence[str]) -> str | None:
        if len(_operands(args, takes_value)) > 1:
            return f"{program} writes its second operand"
        return None

    return check


_FIND_ACTIONS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"}
)


def _find(args: Sequence[str]) -> str | None:
    action = next((a for a in args if a in _FIND_ACTIONS), None)
    return None if action is None else f"find {action} runs a program or writes files"


def _rg(args: Sequence[str]) -> str | None:
    if any(long_option(a, "--pre") for a in args):
        return "rg --pre runs a program on every file"
    return None


def _fd(args: Sequence[str]) -> str | None:
    if any(
        long_option(a, "--exec", "--exec-batch") or short_flag(a, "x") or short_flag(a, "X")
        for a in args
    ):
        return "fd --exec runs a program on every match"
    return None


def _file(args: Sequence[str]) -> str | None:
    if any(long_option(a, "--compile") or short_flag(a, "C") for a in args):
        return "file -C writes a compiled magic file"
    return None


def _tree(args: Sequence[str]) -> str | None:
    # ``-R`` with ``-H`` writes 00Tree.html into every folder it visits.
    if any(short_flag(a, "o") or short_flag(a, "R") or long_option(a, "--output") for a in args):
        return "tree -o and -R write files"
    return None


def _date(args: Sequence[str]) -> str | None:
    if any(long_option(a, "--set") or short_flag(a, "s") for a in args):
        return "date -s sets the clock"
    value_flags = frozenset({"-d", "--date", "-r", "--reference", "-f", "--file"})
    if any(not o.startswith("+") for o in _operands(args, value_flags)):
        return "date with an operand sets the clock"
    return None


def _hostname(args: Sequence[str]) -> str | None:
    allowed = {"-f", "-s", "-i", "-I", "-d", "-A", "--fqdn", "--long", "--short", "--domain"}
    return None if set(args) <= allowed else "hostname with arguments may set the host name"


def _set(args: Sequence[str]) -> str | None:
    # Only the error-handling options: ``set -a`` exports every later assignment.
    for word in args:
        if not (re.fullmatch(r"[-+][euxo]+", word) or word in _SET_NAMES):
            return f"set {word} changes the shell beyond error handling"
    return None


_SET_NAMES = frozenset({"pipefail", "errexit", "nounset", "xtrace"})


def _command(args: Sequence[str]) -> str | None:
    # ``command ls`` is a wrapper (peeled, its program judged); alone it only looks up.
    if list(args[:1]) in (["-v"], ["-V"]):
        return None
    return "command runs the program it names"


def _sed(args: Sequence[str]) -> str | None:
    scripts: list[str] = []
    operands: list[str] = []
    words = list(args)
    while words:
        word = words.pop(0)
        if word == "--":
            operands.extend(words)
            break
        if word.startswith("--"):
            if long_option(word, "--in-place", "--file"):
                return "sed -i writes files; sed -f runs a script the policy cannot see"
            if long_option(word, "--expression"):
                value = word.split("=", 1)[1] if "=" in word else (words.pop(0) if words else "")
                scripts.append(value)
            elif not long_option(word, *_SED_LONG):
                return f"sed {word} is not an option known to be read-only"
        elif word.startswith("-") and len(word) > 1:
            why = _sed_short(word, words, scripts)
            if why is not None:
                return why
        else:
            operands.append(word)
    if not scripts:
        if not operands:
            return "sed without a script"
        scripts.append(operands[0])
    if any(sed_runs_code(script) for script in scripts):
        return "the sed script runs commands or writes files"
    return None


_SED_LONG = ("--quiet", "--silent", "--regexp-extended", "--separate", "--null-data",
             "--posix", "--sandbox", "--debug", "--unbuffered", "--line-length")  # fmt: skip


def _sed_short(word: str, rest: list[str], scripts: list[str]) -> str | None:
    for index, letter in enumerate(word[1:], start=1):
        if letter in "nsuzEr":
            continue
        if letter in "el":
            value = word[index + 1 :] or (rest.pop(0) if rest else "")
            if letter == "e":
                scripts.append(value)
            return None
        return f"sed -{letter} is not an option known to be read-only"
    return None


_AWK_DANGER = re.compile(
    r"system|getline|@|(?<!\|)\|(?!\|)|\bprintf?\b[^;}]*>|ENVIRON\s*\[[^]]*\]\s*="
)


def _awk(args: Sequence[str]) -> str | None:
    words = list(args)
    while words and words[0].startswith("-") and words[0] != "-":
        word = words.pop(0)
        if word == "--":
            break
        if word in ("-F", "-v", "--field-separator", "--assign") and words:
            words.pop(0)
        elif not word.startswith(("-F", "-v", "--field-separator=", "--assign=")):
            return f"awk {word} is not an option known to be read-only"
    if not words:
        return "awk without a program"
    if _AWK_DANGER.search(words[0]):
        return "the awk program may run commands or write files"
    return None


# Programs that run code (a compiler, an interpreter, a build tool), except for
# printing their version, which they do before loading anything of the project
# (pip and npm are left out: they start Python's site or read the project's
# .npmrc first). ``bash -v`` would read a program from stdin: only --version.
_VERSION_PROBES = frozenset(
    {"python", "python3", "node", "cargo", "rustc", "gcc", "cc", "clang", "make", "cmake",
     "ruby", "java", "javac", "bash", "perl"}
)  # fmt: skip
_SHORT_VERSION = {"python": "-V", "python3": "-V", "node": "-v", "perl": "-v"}


def _version_probe(name: str) -> Check:
    forms = [["--version"], [_SHORT_VERSION[name]]] if name in _SHORT_VERSION else [["--version"]]

    def check(args: Sequence[str]) -> str | None:
        if list(args) in forms:
            return None
        return f"{name} runs code; only {' or '.join(f[0] for f in forms)} is known to be read-only"

    return check


READERS: dict[str, Check] = {
    "printf": _printf,
    "sort": _sort,
    "uniq": _at_most_one_operand("uniq", frozenset({"-f", "-s", "-w"})),
    "xxd": _at_most_one_operand(
        "xxd", frozenset({"-c", "-g", "-l", "-s", "-o", "-n", "-cols", "-len", "-seek"})
    ),
    "find": _find,
    "rg": _rg,
    "fd": _fd,
    "fdfind": _fd,
    "file": _file,
    "tree": _tree,
    "date": _date,
    "hostname": _hostname,
    "set": _set,
    "command": _command,
    "cd": lambda args: None,
    "sed": _sed,
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "git": git_read_rule,
    "go": lambda args: None if list(args) == ["version"] else "go runs builds and tools",
    **{name: _version_probe(name) for name in _VERSION_PROBES},
}
