"""The parser: tokens into pipelines of simple commands.

The lexer calls it for every nested piece of shell code (``$( )``, backticks,
``<( )``, here-document bodies) as soon as it has read one, so the parser never
sees text, only tokens.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.shell._syntax import Pipeline, ShellParseError, ShellWord, SimpleCommand, StdinSource
from harness.shell._tokens import Operator, Redirect, Token, WordToken

__all__ = ["parse_tokens"]

_WRITE_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", "<>", ">&"})


@dataclass(slots=True)
class _CommandBuilder:
    words: list[ShellWord] = field(default_factory=list)
    targets: list[ShellWord] = field(default_factory=list)
    substitutions: list[Pipeline] = field(default_factory=list)
    stdin: list[StdinSource] = field(default_factory=list)

    def build(self) -> SimpleCommand | None:
        if not (self.words or self.targets or self.substitutions or self.stdin):
            return None
        return SimpleCommand(
            tuple(self.words), tuple(self.targets), tuple(self.substitutions), tuple(self.stdin)
        )

    def redirect(self, token: Redirect) -> None:
        if token.op in _WRITE_REDIRECTS and token.target is not None:
            self.targets.append(token.target)
        elif token.op in ("<", "<>") and token.target is not None:
            self.stdin.append(StdinSource("file", token.target))
        elif token.op == "<<<" and token.target is not None:
            self.stdin.append(StdinSource("herestring", token.target))
        elif token.slot is not None:
            self.stdin.append(StdinSource("heredoc", token.slot.body))
        self.substitutions.extend(token.substitutions)


def parse_tokens(tokens: Sequence[Token]) -> tuple[Pipeline, ...]:
    pipelines: list[Pipeline] = []
    stages: list[SimpleCommand] = []
    current = _CommandBuilder()
    depth = 0
    index = 0
    while index < len(tokens):
        token = tokens[index]
        index += 1
        if isinstance(token, WordToken):
            current.words.append(token.word)
            current.substitutions.extend(token.substitutions)
            continue
        if isinstance(token, Redirect):
            current.redirect(token)
            continue
        if (
            token.op == "("
            and len(current.words) == 1
            and index < len(tokens)
            and tokens[index] == Operator(")")
        ):
            current = _CommandBuilder()  # ``name ()`` opens a function definition
            index += 1
            continue
        if token.op in (";;", ";&", ";;&"):
            raise ShellParseError("case statements are not supported")
        depth += {"(": 1, ")": -1}.get(token.op, 0)
        if depth < 0:
            raise ShellParseError("unbalanced ')'")
        if (command := current.build()) is not None:
            stages.append(command)
        current = _CommandBuilder()
        if token.op not in ("|", "|&", "(", ")") and stages:
            pipelines.append(Pipeline(tuple(stages)))
            stages = []
    if depth:
        raise ShellParseError("unbalanced '('")
    if (command := current.build()) is not None:
        stages.append(command)
    if stages:
        pipelines.append(Pipeline(tuple(stages)))
    return tuple(pipelines)
