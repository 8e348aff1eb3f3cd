"""Shell code inside words: ``bash -c``, ``eval``, ``trap``, ``ssh host cmd``, ``su -c`` ...

``embedded_scripts`` returns the strings a command will run as shell code (or
feed a shell on stdin), so that the resolver analyses them too.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.shell._syntax import ShellWord, StdinSource, program_name
from harness.shell._wrappers import WRAPPERS, after_options, wrapper

__all__ = ["embedded_scripts"]

# Programs that run a shell command string given as an option's value.
_SCRIPT_OPTIONS: dict[str, tuple[str, ...]] = {
    "env": ("-S", "--split-string"),
    "su": ("-c", "--command", "--session-command"),
    "runuser": ("-c", "--command"),
    "sg": ("-c",),
    "flock": ("-c", "--command"),
    "script": ("-c", "--command"),
    "mapfile": ("-C",),
    "npx": ("-c", "--call"),
    "rsync": ("-e", "--rsh"),
    "nix-shell": ("--run", "--command"),
    "readarray": ("-C",),
}
_SSH = wrapper("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B", positionals=0)
_WATCH = wrapper("-n --interval -q --equexit -d --differences")
# Shells whose ``-c`` string is read with bash's grammar (close enough to judge
# which programs it runs; what does not parse fails closed).
_SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "yash", "posh", "oksh",
     "loksh", "csh", "tcsh", "fish"}
)  # fmt: skip


def embedded_scripts(words: tuple[ShellWord, ...], stdin: Sequence[StdinSource]) -> list[str]:
    """Strings in ``words`` (or fed to them) that will run as shell code."""
    name = program_name(words[0].value)
    values = [w.value for w in words[1:]]
    if name in _SHELLS:
        script = _shell_c_script(values)
        if script is not None:
            return [script]
        if _shell_reads_stdin(values):
            return [s.word.value for s in stdin if s.kind != "file" and s.word is not None]
        return []
    if name == "eval":
        values = values[1:] if values[:1] == ["--"] else values
        return [" ".join(values)] if values else []
    if name == "trap":
        values = values[1:] if values[:1] == ["--"] else values
        return [values[0]] if values and values[0] not in ("-l", "-p", "-") else []
    if name == "parallel":
        # parallel runs its command through a shell: ``parallel 'rm {}' ::: x``.
        rest = [w.value for w in after_options(words[1:], WRAPPERS["parallel"])]
        command = rest[: rest.index(":::")] if ":::" in rest else rest
        return [" ".join(command)] if command else []
    if name == "alias":
        return [v.split("=", 1)[1] for v in values if "=" in v]
    if name == "ssh":
        remote = after_options(words[1:], _SSH)
        # The first word is the host; the rest runs there, through its shell.
        return [" ".join(w.value for w in remote[1:])] if len(remote) > 1 else []
    if name == "watch":
        rest = [w.value for w in after_options(words[1:], _WATCH)]
        return [" ".join(rest)] if rest else []
    return _option_scripts(name, values)


def _option_scripts(name: str, values: Sequence[str]) -> list[str]:
    """Values of the options through which ``name`` runs a shell command string."""
    flags = _SCRIPT_OPTIONS.get(name)
    if flags is None:
        return []
    scripts: list[str] = []
    for index, value in enumerate(values):
        for flag in flags:
            if value == flag and index + 1 < len(values):
                scripts.append(values[index + 1])
            elif flag.startswith("--") and value.startswith(flag + "="):
                scripts.append(value[len(flag) + 1 :])
            elif not flag.startswith("--") and value.startswith(flag) and len(value) > len(flag):
                scripts.append(value[len(flag) :])
            elif _bundle_ends_with(value, flag) and index + 1 < len(values):
                scripts.append(values[index + 1])  # ``script -qc CMD``, ``su -lc CMD``
    return scripts


def _bundle_ends_with(word: str, flag: str) -> bool:
    return (
        len(flag) == 2
        and not word.startswith("--")
        and len(word) > 2
        and word.endswith(flag[1])
        and word[1:-1].isalpha()
    )


def _shell_reads_stdin(args: Sequence[str]) -> bool:
    """A shell with no script operand (or with ``-s``) reads its commands from stdin."""
    for index, value in enumerate(args):
        if value == "--":
            return index + 1 >= len(args)
        if value == "-":
            return True  # ``bash -``: end of options, commands from stdin
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            continue
        if not value.startswith(("-", "+")) or len(value) == 1:
            previous = args[index - 1] if index else ""
            if previous in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
                continue
            return False
        if value[0] == "-" and value[1] != "-" and "s" in value:
            return True
    return True


def _shell_c_script(args: Sequence[str]) -> str | None:
    has_c = False
    index = 0
    while index < len(args):
        value = args[index]
        if value == "--":
            index += 1
            break
        if value in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            index += 2
            continue
        if not value.startswith(("-", "+")) or len(value) == 1:
            break
        has_c = has_c or (value[0] == "-" and value[1] != "-" and "c" in value)
        index += 1
    if has_c and index < len(args):
        return args[index]
    return None
