"""The tokens the lexer hands the parser, and the builder of one word."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.shell._syntax import Pipeline, ShellWord

__all__ = ["HeredocSlot", "Operator", "Redirect", "Token", "WordBuilder", "WordToken"]


@dataclass(frozen=True, slots=True)
class Operator:
    op: str


@dataclass(frozen=True, slots=True)
class WordToken:
    word: ShellWord
    substitutions: tuple[Pipeline, ...] = ()
    quoted: bool = False


@dataclass(slots=True)
class HeredocSlot:
    """Filled with the body once the lexer reaches the line after ``<<EOF``."""

    body: ShellWord | None = None


@dataclass(frozen=True, slots=True)
class Redirect:
    op: str
    target: ShellWord | None
    substitutions: tuple[Pipeline, ...] = ()
    slot: HeredocSlot | None = None


Token = Operator | WordToken | Redirect


@dataclass(slots=True)
class WordBuilder:
    value: list[str] = field(default_factory=list)
    unquoted: list[str] = field(default_factory=list)
    substitutions: list[Pipeline] = field(default_factory=list)
    dynamic: bool = False
    quoted: bool = False

    def literal(self, text: str, *, quoted: bool) -> None:
        self.value.append(text)
        if quoted:
            self.quoted = True
        else:
            self.unquoted.append(text)

    def expansion(self, raw: str, substitutions: Sequence[Pipeline] = ()) -> None:
        self.value.append(raw)
        self.unquoted.append("0")  # stands for the expanded value, an operand in arithmetic
        self.substitutions.extend(substitutions)
        self.dynamic = True

    def is_fd_number(self) -> bool:
        text = "".join(self.value)
        return not self.quoted and not self.dynamic and text.isdigit()

    def token(self) -> WordToken:
        plain = "".join(self.unquoted)
        globbing = any(c in plain for c in "*?") or re.search(r"\[.*\]", plain) is not None
        braces = re.search(r"\{[^}]*(,|\.\.)[^}]*\}", plain) is not None
        word = ShellWord("".join(self.value), self.dynamic or globbing or braces)
        return WordToken(word, tuple(self.substitutions), self.quoted)
