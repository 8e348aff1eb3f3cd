"""Wrappers: programs that run another program (``env``, ``sudo``, ``timeout 5``, ``uv run``).

``peel`` finds, under keywords and ``NAME=value`` prefixes, the command and every
command it wraps; each wrapper's own options are described here, so that the
wrapped command is found after them.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.shell._syntax import ASSIGNMENT, ShellWord, program_name

__all__ = ["WRAPPERS", "Wrapper", "after_options", "peel", "wrapper"]


@dataclass(frozen=True, slots=True)
class Wrapper:
    """How a wrapper's own options look, so the wrapped command can be found."""

    with_value: frozenset[str] = frozenset()
    positionals: int = 0
    assignments: bool = False
    lookup: frozenset[str] = frozenset()


def wrapper(with_value: str = "", *, positionals: int = 0, assignments: bool = False) -> Wrapper:
    """``with_value``: the wrapper's options that take a value, space separated."""
    return Wrapper(frozenset(with_value.split()), positionals, assignments)


WRAPPERS: dict[str, Wrapper] = {
    "env": wrapper("-u --unset -C --chdir -S --split-string", assignments=True),
    "nice": wrapper("-n --adjustment"),
    "nohup": wrapper(),
    "setsid": wrapper(),
    "builtin": wrapper(),
    "unbuffer": wrapper(),
    "busybox": wrapper(),
    "toybox": wrapper(),
    "catchsegv": wrapper(),
    "nocache": wrapper(),
    "time": wrapper("-f --format -o --output"),
    "command": Wrapper(lookup=frozenset({"-v", "-V"})),
    "exec": wrapper("-a"),
    "timeout": wrapper("-s --signal -k --kill-after", positionals=1),
    "xargs": wrapper(
        "-I -n -P -d -L -s -a -E --arg-file --delimiter --max-args --max-procs --max-lines"
    ),
    "parallel": wrapper("-j --jobs -S --sshlogin -a --arg-file -d --delimiter -I -n -N -P"),
    "stdbuf": wrapper("-i -o -e --input --output --error"),
    "ionice": wrapper("-c -n -p -P -u --class --classdata"),
    "flock": wrapper("-w --wait --timeout -E --conflict-exit-code -c --command", positionals=1),
    "taskset": wrapper(positionals=1),
    "chrt": wrapper("-T -P -D --sched-runtime --sched-period --sched-deadline", positionals=1),
    "numactl": wrapper("-C -N -m -p -i -P"),
    "prlimit": wrapper("-p --pid"),
    "strace": wrapper("-o -e -p -s -u -E -P -a -b -I -O -S -X --output --env --user"),
    "ltrace": wrapper("-o -e -p -s -u -n -a -A -D -F -l -L --output"),
    "nsenter": wrapper("-t --target -S --setuid -G --setgid -r --root -w --wd"),
    "unshare": wrapper("-R --root -w --wd -S --setuid -G --setgid --propagation"),
    "setpriv": wrapper("--reuid --regid --groups --ruid --rgid --euid --egid --inh-caps"),
    "chroot": wrapper("--userspec --groups", positionals=1),
    "cgexec": wrapper("-g"),
    "systemd-run": wrapper(
        "-u --unit -p --property -E --setenv -M --machine --uid --gid --nice -d "
        "--working-directory --slice -H --host"
    ),
    "runuser": wrapper("-u -g -G -s --user --group --supp-group --shell -c --command"),
    "script": wrapper("-c --command -E --echo -I -O -B -T --log-in --log-out --log-io"),
    "sudo": wrapper(
        "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --chdir --role --type "
        "--other-user --close-from --command-timeout",
        assignments=True,
    ),
    "doas": wrapper("-u -C"),
    "uvx": wrapper("--from --with -p --python --index --python-preference"),
    "direnv": wrapper(positionals=2),  # ``direnv exec DIR cmd``
    "npx": wrapper("-p --package -c --call"),
    "bunx": wrapper("-p --package"),
}
# ``uv run X``-style runners: the tool, the subcommand, options with a value.
_RUNNER_OPTIONS = wrapper(
    "--with --python -p --project --directory --package --extra --group --env-file --index -e --env"
)
_RUNNERS = {"uv": "run", "poetry": "run", "pdm": "run", "hatch": "run", "rye": "run",
            "pipx": "run", "pnpm": "exec", "conda": "run"}  # fmt: skip
_KEYWORDS = frozenset({"!", "{", "}", "if", "then", "elif", "else", "fi", "while", "until",
                       "do", "done", "esac"})  # fmt: skip
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def peel(
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
        inner = after_options(words[1:], WRAPPERS[name])
        before = words[1 : len(words) - len(inner)]
        assignments.extend(w.value for w in before if "=" in w.value and w.value[0] != "-")
    if name == "find":
        return _find_exec_commands(words)
    if name in _RUNNERS:
        if len(words) > 1 and words[1].value == _RUNNERS[name]:
            inner = after_options(words[2:], _RUNNER_OPTIONS)
            return [inner] if inner else []
        return []
    spec = WRAPPERS.get(name)
    inner = after_options(words[1:], spec) if spec is not None else ()
    return [inner] if inner else []


def after_options(args: tuple[ShellWord, ...], spec: Wrapper) -> tuple[ShellWord, ...]:
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
