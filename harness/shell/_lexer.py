"""The lexer: shell text into tokens, parsing nested command text as it goes.

``parse_shell`` lives here, not in ``_parser``: the lexer already hands every
nested substitution to the parser as it meets it, so the whole parse of a text
is the lexer's job with the parser as its helper (and no import circle forms).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from harness.shell._parser import parse_tokens
from harness.shell._syntax import ASSIGNMENT, MAX_DEPTH, Pipeline, ShellParseError, ShellWord
from harness.shell._tokens import HeredocSlot, Operator, Redirect, Token, WordBuilder, WordToken

__all__ = ["parse_shell"]

# Work allowed per input character; ``$((`` may be rescanned as a command, and a
# budget keeps nested rescans from growing exponentially.
_WORK_PER_CHAR = 64
_METACHARS = frozenset(" \t\n;&|()<>")
_CONTROL_OPERATORS = ("&&", "||", ";;&", ";;", ";&", "|&", ";", "|", "&", "\n", "(", ")")
_REDIRECT_OPERATORS = ("&>>", "&>", "<<<", "<<-", "<<", "<>", "<&", ">&", ">>", ">|", "<", ">")
_HEREDOC_BODY = "<<body"
_HEREDOC_ESCAPE = re.compile(r"\\([$`\\])")
_PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_ANSI_C_ESCAPE = re.compile(
    r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.S
)
_ANSI_C_BODY = re.compile(r"(?:[^'\\]|\\.)*'", re.S)
_BACKTICK_BODY = re.compile(r"(?:[^`\\]|\\.)*`", re.S)
_FD_DUPLICATE = re.compile(r"[0-9]*-?(?=[\s;&|()<>]|$)")
_ANSI_C_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f",
                  "v": "\v", "e": "\x1b", "E": "\x1b"}  # fmt: skip
# Arithmetic never puts two operands side by side; ``$((rm -rf x))`` is bash's
# fallback to a command substitution, so it must not be mistaken for maths.
_ARITHMETIC_CHARS = re.compile(r"[\w\s$+\-*/%<>=!&|^~?:,()\[\]#.{}@]*")
_ADJACENT_OPERANDS = re.compile(r"[\w\])}]\s+[\w$]")


class _Lexer:
    """Turns shell text into tokens, parsing nested command text as it goes."""

    def __init__(self, source: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise ShellParseError("commands are nested too deeply to judge")
        self._src = source
        self._pos = 0
        self._depth = depth
        self._budget = _WORK_PER_CHAR * (len(source) + 16)
        self._heredocs: list[tuple[str, bool, bool, HeredocSlot]] = []

    @contextmanager
    def _deeper(self) -> Iterator[None]:
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise ShellParseError("expansions are nested too deeply to judge")
        try:
            yield
        finally:
            self._depth -= 1

    def _spend(self) -> None:
        self._budget -= 1
        if self._budget < 0:
            raise ShellParseError("the command is too convoluted to judge")

    def lex(self, *, closing: bool = False) -> list[Token]:
        """Tokens to the end, or to the ``)`` that closes a ``$(`` when ``closing``."""
        if not closing:
            return self._lex(closing=False)
        with self._deeper():
            return self._lex(closing=True)

    def _lex(self, *, closing: bool) -> list[Token]:
        tokens: list[Token] = []
        open_parens = 0
        while True:
            self._spend()
            self._skip_blanks()
            if self._pos >= len(self._src):
                if closing:
                    raise ShellParseError("unterminated $( command substitution")
                return tokens
            char = self._src[self._pos]
            if char == "#":
                self._skip_comment()
            elif char == ")" and closing and open_parens == 0:
                self._pos += 1
                return tokens
            elif self._src.startswith(("<(", ">("), self._pos):
                tokens.append(self._process_substitution())
            elif (arithmetic := self._arithmetic_command(tokens)) is not None:
                tokens.append(arithmetic)
            elif (redirect := self._match(_REDIRECT_OPERATORS)) is not None:
                tokens.append(self._redirect(redirect))
            elif (op := self._match(_CONTROL_OPERATORS)) is not None:
                self._pos += len(op)
                open_parens += {"(": 1, ")": -1}.get(op, 0)
                if op == "\n" and self._heredocs:
                    tokens.append(Redirect(_HEREDOC_BODY, None, self._heredoc_bodies()))
                tokens.append(Operator(op))
            else:
                tokens.append(self._word())

    def _match(self, candidates: Sequence[str]) -> str | None:
        return next((c for c in candidates if self._src.startswith(c, self._pos)), None)

    def _skip_blanks(self) -> None:
        while self._pos < len(self._src):
            if self._src[self._pos] in " \t":
                self._pos += 1
            elif self._src.startswith("\\\n", self._pos):
                self._pos += 2
            else:
                return

    def _skip_comment(self) -> None:
        end = self._src.find("\n", self._pos)
        self._pos = len(self._src) if end == -1 else end

    def _nested(self, source: str) -> tuple[Pipeline, ...]:
        return parse_tokens(_Lexer(source, self._depth + 1).lex())

    def _word(self) -> Token:
        builder = WordBuilder()
        while self._pos < len(self._src):
            char = self._src[self._pos]
            if char == "(" and ASSIGNMENT.fullmatch("".join(builder.unquoted)):
                self._array_literal(builder)
            elif char in _METACHARS:
                if char in "<>" and builder.is_fd_number():
                    redirect = self._match(_REDIRECT_OPERATORS)
                    assert redirect is not None  # every operator starting with < or > is listed
                    return self._redirect(redirect)
                break
            else:
                self._word_part(builder, char)
        return builder.token()

    def _word_part(self, builder: WordBuilder, char: str) -> None:
        self._spend()
        if char == "\\":
            self._backslash(builder)
        elif char == "'":
            end = self._src.find("'", self._pos + 1)
            if end == -1:
                raise ShellParseError("unterminated single quote")
            builder.literal(self._src[self._pos + 1 : end], quoted=True)
            self._pos = end + 1
        elif char == '"':
            self._pos += 1
            self._double_quoted(builder, terminator='"')
        elif char == "$" and self._src.startswith("$'", self._pos):
            self._ansi_c_quoted(builder)
        elif char == "$" and self._src.startswith('$"', self._pos):
            self._pos += 2
            self._double_quoted(builder, terminator='"')
        elif char == "$":
            self._dollar(builder)
        elif char == "`":
            self._backtick(builder)
        else:
            builder.literal(char, quoted=False)
            self._pos += 1

    def _backslash(self, builder: WordBuilder) -> None:
        following = self._src[self._pos + 1 : self._pos + 2]
        self._pos += 2
        if following == "\n":
            return  # line continuation
        builder.literal(following or "\\", quoted=True)

    def _double_quoted(self, builder: WordBuilder, terminator: str | None) -> None:
        """Read up to ``terminator`` (None: the end, as in a here-document body)."""
        builder.quoted = True
        while self._pos < len(self._src):
            self._spend()
            char = self._src[self._pos]
            if char == terminator:
                self._pos += 1
                return
            if char == "\\" and self._src[self._pos + 1 : self._pos + 2] in ('"', "\\", "$", "`"):
                builder.literal(self._src[self._pos + 1], quoted=True)
                self._pos += 2
            elif self._src.startswith("\\\n", self._pos):
                self._pos += 2
            elif char == "$":
                self._dollar(builder)
            elif char == "`":
                self._backtick(builder)
            else:
                builder.literal(char, quoted=True)
                self._pos += 1
        if terminator is not None:
            raise ShellParseError("unterminated double quote")

    def _ansi_c_quoted(self, builder: WordBuilder) -> None:
        start = self._pos + 2
        match = _ANSI_C_BODY.match(self._src, start)
        if match is None:
            raise ShellParseError("unterminated $'...' quote")
        builder.literal(_decode_ansi_c(self._src[start : match.end() - 1]), quoted=True)
        self._pos = match.end()

    def _dollar(self, builder: WordBuilder) -> None:
        start = self._pos
        if self._src.startswith("$((", start):
            self._pos += 3
            with self._deeper():
                arithmetic = self._try_arithmetic()
            if arithmetic is not None:
                builder.expansion(self._src[start : self._pos], arithmetic)
                return
            self._pos = start
        if self._src.startswith("$(", start):
            self._pos += 2
            inner = parse_tokens(self.lex(closing=True))
            builder.expansion(self._src[start : self._pos], inner)
        elif self._src.startswith("${", start):
            self._pos += 2
            with self._deeper():
                builder.expansion(*self._parameter_expansion(start))
        elif (name := _PARAMETER.match(self._src, start + 1)) is not None:
            self._pos = name.end()
            builder.expansion(self._src[start : self._pos])
        else:
            builder.literal("$", quoted=False)
            self._pos += 1

    def _parameter_expansion(self, start: int) -> tuple[str, list[Pipeline]]:
        inner = WordBuilder()
        depth = 1
        while self._pos < len(self._src):
            char = self._src[self._pos]
            if char == "}" and depth == 1:
                self._pos += 1
                return self._src[start : self._pos], inner.substitutions
            depth += {"{": 1, "}": -1}.get(char, 0)
            if char == "}":
                self._pos += 1
            else:
                self._word_part(inner, char)
        raise ShellParseError("unterminated ${ parameter expansion")

    def _try_arithmetic(self) -> list[Pipeline] | None:
        """Read ``...))`` after ``$((``/``((``; None when it is really a command."""
        inner = WordBuilder()
        depth = 0
        while self._pos < len(self._src):
            char = self._src[self._pos]
            if char == ")" and depth == 0:
                if not self._src.startswith("))", self._pos):
                    return None
                self._pos += 2
                # Judge the text with nested expansions collapsed, so a substitution
                # inside does not make every enclosing level rescan as a command.
                text = "".join(inner.unquoted)
                plain = _ARITHMETIC_CHARS.fullmatch(text) and not _ADJACENT_OPERANDS.search(text)
                return inner.substitutions if plain else None
            depth += {"(": 1, ")": -1}.get(char, 0)
            if char in "()":
                inner.literal(char, quoted=False)
                self._pos += 1
            else:
                self._word_part(inner, char)
        return None

    def _arithmetic_command(self, tokens: Sequence[Token]) -> Token | None:
        """``(( i++ ))`` where a command may start; None when it is not one."""
        if not self._src.startswith("((", self._pos) or not _at_command_start(tokens):
            return None
        start = self._pos
        self._pos += 2
        with self._deeper():
            substitutions = self._try_arithmetic()
        if substitutions is None:
            self._pos = start
            return None
        return WordToken(ShellWord(self._src[start : self._pos]), tuple(substitutions))

    def _backtick(self, builder: WordBuilder) -> None:
        start = self._pos
        match = _BACKTICK_BODY.match(self._src, start + 1)
        if match is None:
            raise ShellParseError("unterminated backtick command substitution")
        inner = re.sub(r"\\([`\\$])", r"\1", self._src[start + 1 : match.end() - 1])
        self._pos = match.end()
        builder.expansion(self._src[start : self._pos], self._nested(inner))

    def _process_substitution(self) -> Token:
        start = self._pos
        self._pos += 2
        inner = parse_tokens(self.lex(closing=True))
        return WordToken(ShellWord(self._src[start : self._pos], dynamic=True), inner)

    def _array_literal(self, builder: WordBuilder) -> None:
        start = self._pos
        self._pos += 1
        tokens = self.lex(closing=True)
        nested = [p for t in tokens if isinstance(t, WordToken) for p in t.substitutions]
        builder.expansion(self._src[start : self._pos], nested)

    def _redirect(self, op: str) -> Redirect:
        self._pos += len(op)
        self._skip_blanks()
        if op in (">&", "<&"):
            fd = _FD_DUPLICATE.match(self._src, self._pos)
            if fd is not None and fd.end() > self._pos:
                self._pos = fd.end()
                return Redirect(op, None)
        if self._pos >= len(self._src) or self._src[self._pos] in _METACHARS:
            raise ShellParseError(f"redirection {op!r} has no target")
        token = self._word()
        if not isinstance(token, WordToken):
            raise ShellParseError(f"redirection {op!r} has no target")
        if op in ("<<", "<<-"):
            slot = HeredocSlot()
            self._heredocs.append((token.word.value, op == "<<-", not token.quoted, slot))
            return Redirect(op, token.word, token.substitutions, slot)
        return Redirect(op, token.word, token.substitutions)

    def _heredoc_bodies(self) -> tuple[Pipeline, ...]:
        found: list[Pipeline] = []
        for delimiter, strip_tabs, expands, slot in self._heredocs:
            lines: list[str] = []
            while self._pos < len(self._src):
                end = self._src.find("\n", self._pos)
                end = len(self._src) if end == -1 else end
                line = self._src[self._pos : end]
                self._pos = min(end + 1, len(self._src))
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    break
                lines.append(line)
            text = "\n".join(lines)
            # What the command reads: an unquoted delimiter lets ``\$`` become ``$``.
            read = _HEREDOC_ESCAPE.sub(r"\1", text.replace("\\\n", "")) if expands else text
            slot.body = ShellWord(read, dynamic=expands and any(c in text for c in "$`"))
            if expands:
                body = WordBuilder()
                _Lexer(text, self._depth + 1)._double_quoted(body, terminator=None)
                found.extend(body.substitutions)
        self._heredocs.clear()
        return tuple(found)


def _at_command_start(tokens: Sequence[Token]) -> bool:
    return not tokens or (isinstance(tokens[-1], Operator) and tokens[-1].op != ")")


def _decode_ansi_c(text: str) -> str:
    def decode(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] in "xuU" and len(code) > 1:
            return chr(min(int(code[1:], 16), 0x10FFFF))
        if code[0] in "01234567":
            return chr(int(code, 8))
        if code[0] == "c" and len(code) == 2:
            return chr(ord(code[1]) & 0x1F)
        return _ANSI_C_SIMPLE.get(code, code)

    return _ANSI_C_ESCAPE.sub(decode, text)


def parse_shell(source: str, depth: int = 0) -> tuple[Pipeline, ...]:
    """Parse ``source`` into pipelines of simple commands.

    ``depth`` is how deeply this text is already nested in other shell code.

    Raises:
        ShellParseError: the text is not something bash would run as written,
            or uses syntax this analyser does not follow.
    """
    return parse_tokens(_Lexer(source, depth).lex())
