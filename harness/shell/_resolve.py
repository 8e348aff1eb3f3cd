"""Shell command resolution: what will a command line really run?

A substring search for ``rm`` both misses evasions (``/bin/rm``, ``\\rm``, ``r''m``,
``bash -c "rm x"``) and trips on harmless text (``echo rm``, ``git commit -m "rm"``).
``parse_shell`` parses the command; this module resolves it:
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

from harness.shell._embedded import embedded_scripts
from harness.shell._lexer import parse_shell
from harness.shell._syntax import (
    MAX_DEPTH,
    Pipeline,
    ResolvedCommand,
    ShellParseError,
    program_name,
)
from harness.shell._wrappers import peel

__all__ = ["resolve_commands"]


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
            layers, assignments = peel(tuple(command.words))
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
                for script in embedded_scripts(layer, command.stdin):
                    resolved.extend(_resolve_script(script, depth + 1))
            upstream.extend(program_name(layer[0].value) for layer in layers)
    return resolved
