"""Shell command resolution: what will a command line really run?

A substring search for ``rm`` both misses evasions (``/bin/rm``, ``\\rm``, ``r''m``,
``bash -c "rm x"``) and trips on harmless text (``echo rm``, ``git commit -m "rm"``).
``_syntax`` parses the command; this module resolves it:
``resolve_commands(source)`` gives every program that will run, flat: keywords
and ``NAME=value`` prefixes are dropped, wrappers are peeled (``env``, ``nice``,
``timeout 5``, ``xargs``, ``sudo``, ``uv run`` ...; the wrapper stays a command
of its own), and strings that run as shell code (``bash -c``, ``eval``,
``trap``, ``env -S``, ``find -exec``) are analysed recursively.

Input that cannot be read with confidence raises ``ShellParseError`` so the
caller can fail closed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from harness.shell._syntax import (
    ASSIGNMENT,
    MAX_DEPTH,
    Pipeline,
    ResolvedCommand,
    ShellParseError,
    ShellWord,
    SimpleCommand,
    StdinSource,
    parse_shell,
    program_name,
)

__all__ = [
    "Pipeline",
    "ResolvedCommand",
    "ShellParseError",
    "ShellWord",
    "SimpleCommand",
    "StdinSource",
    "parse_shell",
    "resolve_commands",
]

# ---------------------------------------------------------------- resolution


@dataclass(frozen=True, slots=True)
class _Wrapper:
    """How a wrapper's own options look, so the wrapped command can be found."""

    with_value: frozenset[str] = frozenset()
    positionals: int = 0
    assignments: bool = False
    lookup: frozenset[str] = frozenset()


def _wrapper(with_value: str = "", *, positionals: int = 0, assignments: bool = False) -> _Wrapper:
    """``with_value``: the wrapper's options that take a value, space separated."""
    return _Wrapper(frozenset(with_value.split()), positionals, assignments)


_WRAPPERS: dict[str, _Wrapper] = {
    "env": _wrapper("-u --unset -C --chdir -S --split-string", assignments=True),
    "nice": _wrapper("-n --adjustment"),
    "nohup": _wrapper(),
    "setsid": _wrapper(),
    "builtin": _wrapper(),
    "unbuffer": _wrapper(),
    "busybox": _wrapper(),
    "toybox": _wrapper(),
    "catchsegv": _wrapper(),
    "nocache": _wrapper(),
    "time": _wrapper("-f --format -o --output"),
    "command": _Wrapper(lookup=frozenset({"-v", "-V"})),
    "exec": _wrapper("-a"),
    "timeout": _wrapper("-s --signal -k --kill-after", positionals=1),
    "xargs": _wrapper(
        "-I -n -P -d -L -s -a -E --arg-file --delimiter --max-args --max-procs --max-lines"
    ),
    "parallel": _wrapper("-j --jobs -S --sshlogin -a --arg-file -d --delimiter -I -n -N -P"),
    "stdbuf": _wrapper("-i -o -e --input --output --error"),
    "ionice": _wrapper("-c -n -p -P -u --class --classdata"),
    "flock": _wrapper("-w --wait --timeout -E --conflict-exit-code -c --command", positionals=1),
    "taskset": _wrapper(positionals=1),
    "chrt": _wrapper("-T -P -D --sched-runtime --sched-period --sched-deadline", positionals=1),
    "numactl": _wrapper("-C -N -m -p -i -P"),
    "prlimit": _wrapper("-p --pid"),
    "strace": _wrapper("-o -e -p -s -u -E -P -a -b -I -O -S -X --output --env --user"),
    "ltrace": _wrapper("-o -e -p -s -u -n -a -A -D -F -l -L --output"),
    "nsenter": _wrapper("-t --target -S --setuid -G --setgid -r --root -w --wd"),
    "unshare": _wrapper("-R --root -w --wd -S --setuid -G --setgid --propagation"),
    "setpriv": _wrapper("--reuid --regid --groups --ruid --rgid --euid --egid --inh-caps"),
    "chroot": _wrapper("--userspec --groups", positionals=1),
    "cgexec": _wrapper("-g"),
    "systemd-run": _wrapper(
        "-u --unit -p --property -E --setenv -M --machine --uid --gid --nice -d "
        "--working-directory --slice -H --host"
    ),
    "runuser": _wrapper("-u -g -G -s --user --group --supp-group --shell -c --command"),
    "script": _wrapper("-c --command -E --echo -I -O -B -T --log-in --log-out --log-io"),
    "sudo": _wrapper(
        "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --chdir --role --type "
        "--other-user --close-from --command-timeout",
        assignments=True,
    ),
    "doas": _wrapper("-u -C"),
    "uvx": _wrapper("--from --with -p --python --index --python-preference"),
    "direnv": _wrapper(positionals=2),  # ``direnv exec DIR cmd``
    "npx": _wrapper("-p --package -c --call"),
    "bunx": _wrapper("-p --package"),
}
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
_SSH = _wrapper("-b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B", positionals=0)
_WATCH = _wrapper("-n --interval -q --equexit -d --differences")
# ``uv run X``-style runners: the tool, the subcommand, options with a value.
_RUNNER_OPTIONS = _wrapper(
    "--with --python -p --project --directory --package --extra --group --env-file --index -e --env"
)
_RUNNERS = {"uv": "run", "poetry": "run", "pdm": "run", "hatch": "run", "rye": "run",
            "pipx": "run", "pnpm": "exec", "conda": "run"}  # fmt: skip
# Shells whose ``-c`` string is read with bash's grammar (close enough to judge
# which programs it runs; what does not parse fails closed).
_SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "yash", "posh", "oksh",
     "loksh", "csh", "tcsh", "fish"}
)  # fmt: skip
_KEYWORDS = frozenset({"!", "{", "}", "if", "then", "elif", "else", "fi", "while", "until",
                       "do", "done", "esac"})  # fmt: skip
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def resolve_commands(source: str) -> tuple[ResolvedCommand, ...]:
    """Every program ``source`` runs, nested and wrapped ones included.

    Raises:
        ShellParseError: the text (or shell code embedded in it) cannot be parsed.
    """
    return tuple(_resolve_script(source, 0))


def _resolve_script(source: str, depth: int) -> list[ResolvedCommand]:
    if depth > MAX_DEPTH:
        raise ShellParseError("shell code is nested too deeply to judge")
    return _resolve_pipelines(parse_shell(source, depth), depth)


def _resolve_pipelines(pipelines: Sequence[Pipeline], depth: int) -> list[ResolvedCommand]:
    resolved: list[ResolvedCommand] = []
    for pipeline in pipelines:
        upstream: list[str] = []
        for command in pipeline.commands:
            nested = _resolve_pipelines(command.substitutions, depth)
            resolved.extend(nested)
            fed_by = tuple(c.name for c in nested)
            targets = tuple(w.value for w in command.write_targets)
            dynamic_targets = tuple(w.value for w in command.write_targets if w.dynamic)
            layers, assignments = _peel(tuple(command.words))
            if not layers and (targets or assignments or command.stdin):
                resolved.append(
                    ResolvedCommand(
                        (),
                        upstream=tuple(upstream),
                        write_targets=targets,
                        dynamic_write_targets=dynamic_targets,
                        stdin=command.stdin,
                        assignments=assignments,
                    )
                )
            for position, layer in enumerate(layers):
                resolved.append(
                    ResolvedCommand(
                        argv=tuple(w.value for w in layer),
                        dynamic_name=layer[0].dynamic,
                        upstream=tuple(upstream),
                        fed_by=fed_by,
                        write_targets=targets if position == 0 else (),
                        dynamic_write_targets=dynamic_targets if position == 0 else (),
                        stdin=command.stdin,
                        assignments=assignments,
                        wrapped_by=tuple(
                            program_name(outer[0].value) for outer in layers[:position]
                        ),
                        dynamic_args=tuple(w.dynamic for w in layer),
                    )
                )
                for script in _embedded_scripts(layer, command.stdin):
                    resolved.extend(_resolve_script(script, depth + 1))
            upstream.extend(program_name(layer[0].value) for layer in layers)
    return resolved


def _peel(
    words: tuple[ShellWord, ...],
) -> tuple[list[tuple[ShellWord, ...]], tuple[str, ...]]:
    """The command and every command it wraps, outermost first, plus its assignments."""
    layers: list[tuple[ShellWord, ...]] = []
    assignments: list[str] = []
    pending = [words]
    while pending:
        current = _strip_prefix(pending.pop(), assignments)
        if not current:
            continue
        layers.append(current)
        if not current[0].dynamic:
            pending.extend(_wrapped(current, assignments))
    return layers, tuple(assignments)


def _strip_prefix(words: tuple[ShellWord, ...], assignments: list[str]) -> tuple[ShellWord, ...]:
    index = 0
    while index < len(words):
        value = words[index].value
        if ASSIGNMENT.match(value):
            assignments.append(value)
        elif value == "coproc" and index + 2 < len(words) and words[index + 2].value == "{":
            index += 1  # ``coproc NAME { ...; }``: NAME names the coprocess, it is not run
        elif value == "function" and index + 1 < len(words):
            index += 1  # ``function NAME { ...; }``: the body is judged where it appears
        elif value not in _KEYWORDS and value != "coproc":
            break
        index += 1
    return words[index:]


def _wrapped(words: tuple[ShellWord, ...], assignments: list[str]) -> list[tuple[ShellWord, ...]]:
    name = program_name(words[0].value)
    if name in ("env", "sudo"):
        inner = _after_options(words[1:], _WRAPPERS[name])
        before = words[1 : len(words) - len(inner)]
        assignments.extend(w.value for w in before if "=" in w.value and w.value[0] != "-")
    if name == "find":
        return _find_exec_commands(words)
    if name in _RUNNERS:
        if len(words) > 1 and words[1].value == _RUNNERS[name]:
            inner = _after_options(words[2:], _RUNNER_OPTIONS)
            return [inner] if inner else []
        return []
    spec = _WRAPPERS.get(name)
    inner = _after_options(words[1:], spec) if spec is not None else ()
    return [inner] if inner else []


def _after_options(args: tuple[ShellWord, ...], spec: _Wrapper) -> tuple[ShellWord, ...]:
    index = 0
    positionals = spec.positionals
    while index < len(args):
        value = args[index].value
        if value == "--":
            return args[index + 1 :]
        if value in spec.lookup:
            return ()
        if value.startswith("-") and len(value) > 1:
            index += 2 if value in spec.with_value else 1
        elif spec.assignments and "=" in value.lstrip("="):
            index += 1  # env takes any NAME=VALUE, even ``BASH_FUNC_ls%%=() {...}``
        elif positionals:
            positionals -= 1
            index += 1
        else:
            break
    return args[index:]


def _find_exec_commands(words: tuple[ShellWord, ...]) -> list[tuple[ShellWord, ...]]:
    commands: list[tuple[ShellWord, ...]] = []
    index = 1
    while index < len(words):
        if words[index].value in _FIND_EXEC:
            end = index + 1
            while end < len(words) and words[end].value not in (";", "+"):
                end += 1
            if end > index + 1:
                commands.append(words[index + 1 : end])
            index = end
        index += 1
    return commands


def _embedded_scripts(words: tuple[ShellWord, ...], stdin: Sequence[StdinSource]) -> list[str]:
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
        rest = [w.value for w in _after_options(words[1:], _WRAPPERS["parallel"])]
        command = rest[: rest.index(":::")] if ":::" in rest else rest
        return [" ".join(command)] if command else []
    if name == "alias":
        return [v.split("=", 1)[1] for v in values if "=" in v]
    if name == "ssh":
        remote = _after_options(words[1:], _SSH)
        # The first word is the host; the rest runs there, through its shell.
        return [" ".join(w.value for w in remote[1:])] if len(remote) > 1 else []
    if name == "watch":
        rest = [w.value for w in _after_options(words[1:], _WATCH)]
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
