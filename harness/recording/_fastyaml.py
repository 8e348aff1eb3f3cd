"""A strict reader for the YAML subset harness itself writes into a cassette item.

Replaying an interaction needs its ``response:`` part, and PyYAML spends about
180 us on one (the C scanner is fast; node construction runs in Python), a tenth
of an SDK call. The dumper (``_format.dump_document``) only ever writes block
mappings, indentless block sequences of scalars, plain, single-quoted and
one-line double-quoted scalars and ``|`` literal blocks, so this reader
understands exactly that, in one pass over the lines, and gives up (``None``) on
anything else: flow collections, anchors, tags, comments, folded or multi-line
scalars, indentation indicators, escapes libyaml does not write. The caller then
parses the text with PyYAML, so a hand-edited item still reads correctly, only
slower.

Double quotes matter for streams framed with ``\r\n`` (Gemini's SSE): a block
scalar cannot hold a carriage return, so the dumper writes such a body on one
double-quoted line, and PyYAML took 0.35 ms to read one stream of 40 events.

Plain scalars are typed with PyYAML's own resolver, so ``200`` is an int and
``yes`` a bool exactly as PyYAML would read them; types it resolves that this
reader does not construct (floats, timestamps, ...) give up too.
tests/recording/test_fastyaml.py checks the result equals PyYAML's on
generated documents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

import yaml

__all__ = ["read_block_document"]

# Line breaks YAML recognises besides "\n", and a BOM; splitting on "\n" alone
# would read them differently, so their presence means "let PyYAML do it".
_FOREIGN_BREAKS: Final = ("\r", "\x85", "\u2028", "\u2029", "\ufeff")
_NON_PRINTABLE: Final = yaml.reader.Reader.NON_PRINTABLE  # what PyYAML refuses to read
_KEY: Final = re.compile(r"([A-Za-z0-9_][A-Za-z0-9_./-]*):(?: (.+))?\Z")
_SINGLE_QUOTED: Final = re.compile(r"'((?:[^']|'')*)'\Z")
# An escape other than those a double-quoted scalar shares with JSON (and ``\\``,
# taken out first) or ``\U`` (libyaml's for a character beyond U+FFFF, an emoji):
# libyaml writes the others (``\e``, ``\x85``...) only for control and special
# characters, which go to PyYAML. Surrogate escapes too: PyYAML and libyaml
# read those differently.
_NOT_JSON_ESCAPE: Final = re.compile(r'\\(?:[^"nrtbfuU]|u[dD][89a-fA-F])')
# Escaped backslashes first, so that ``\\U`` stays a backslash and a letter.
_WIDE_ESCAPE: Final = re.compile(r"\\\\|\\U([0-9A-Fa-f]{8})")
_DECIMAL: Final = re.compile(r"(?:0|[1-9][0-9]*)\Z")  # "-" never gets here: an indicator
_BLOCK_HEADER: Final = re.compile(r"\|([-+]?)\Z")
# YAML indicators: a plain scalar starting with one is read otherwise, or not at all.
_INDICATORS: Final = frozenset("?:,[]{}#&*!|>'\"%@`-")
# PyYAML's resolver is untyped; this is its signature as used here.
_resolve: Callable[[type[yaml.Node], str, tuple[bool, bool]], str] = (
    yaml.resolver.Resolver().resolve
)
_STR: Final = "tag:yaml.org,2002:str"
_BOOLS: Final = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}


class _Unsupported(Exception):
    """The text uses YAML this reader does not handle."""


def read_block_document(text: str) -> Any | None:
    """The data of ``text`` if it is in the subset harness writes, else None."""
    if any(mark in text for mark in _FOREIGN_BREAKS):
        return None
    # Python's printable characters are a subset of YAML's, and the test is cheap.
    if not text.replace("\n", "").replace("\t", "").isprintable() and _NON_PRINTABLE.search(text):
        return None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the final line break ends the last line; it is not a line
    if lines and lines[-1] == "...":
        lines.pop()  # the document end marker, written after a ``|+`` block at the end
    if not lines:
        return None
    try:
        reader = _Reader(lines)
        value, following = reader.mapping(reader.peek())
        if following != -1 or reader.position != len(lines):
            return None
    except _Unsupported:
        return None
    return value


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


class _Reader:
    """Recursive descent over lines; each part returns its value and the
    indentation of the line after it (-1 at the end), so a line is measured once."""

    __slots__ = ("lines", "position")

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.position = 0

    def peek(self) -> int:
        """Indentation of the line at ``position``, -1 at the end."""
        if self.position >= len(self.lines):
            return -1
        line = self.lines[self.position]
        indent = len(line) - len(line.lstrip(" "))
        if indent == len(line):
            raise _Unsupported  # a blank line outside a literal block
        return indent

    def mapping(self, indent: int) -> tuple[dict[str, Any], int]:
        result: dict[str, Any] = {}
        following = self.peek()
        while following == indent:
            found = _KEY.match(self.lines[self.position], indent)
            if found is None:
                raise _Unsupported
            key = found.group(1)
            if key not in _STR_KEYS:
                if _resolve(yaml.ScalarNode, key, (True, False)) != _STR:
                    raise _Unsupported
                _remember(_STR_KEYS, key, True)
            self.position += 1
            result[key], following = self._value(indent, found.group(2))
        if following > indent:
            raise _Unsupported
        return result, following

    def _value(self, indent: int, rest: str | None) -> tuple[Any, int]:
        if rest is None:  # the value is a block collection on the next lines
            following = self.peek()
            if following >= indent and self.lines[self.position].startswith("- ", following):
                return self.sequence(following)
            if following > indent:
                return self.mapping(following)
            raise _Unsupported  # an empty value (null): not something the dumper writes
        if rest[0] == "|":
            block = _BLOCK_HEADER.match(rest)
            if block is None:
                raise _Unsupported
            return self.literal(indent, block.group(1))
        value = scalar(rest)
        following = self.peek()
        if following > indent:  # a continuation line of a plain scalar
            raise _Unsupported
        return value, following

    def sequence(self, indent: int) -> tuple[list[Any], int]:
        result: list[Any] = []
        following = indent
        while following == indent:
            line = self.lines[self.position]
            if not line.startswith("- ", indent):
                break
            self.position += 1
            result.append(scalar(line[indent + 2 :]))
            following = self.peek()
        if following > indent:
            raise _Unsupported
        return result, following

    def literal(self, parent: int, chomping: str) -> tuple[str, int]:
        lines, start = self.lines, self.position
        if start >= len(lines) or not lines[start].strip(" "):
            raise _Unsupported  # leading blank lines make the indentation implicit
        indent = _indent(lines[start])
        if indent <= parent:
            raise _Unsupported
        prefix = " " * indent
        end = start  # one past the last content line
        position = start
        following = -1
        for line in lines[start:]:
            if line.startswith(prefix):
                if line.isspace():
                    raise _Unsupported  # spaces only: YAML's rules here are subtle
                end = position + 1
            elif line:
                following = _indent(line)
                if following > parent:
                    raise _Unsupported  # under-indented text inside the block
                break
            position += 1
        self.position = position
        text = "\n".join([line[indent:] for line in lines[start:end]])
        if chomping == "-":
            return text, following
        if chomping == "+":
            return text + "\n" * (1 + position - end), following
        return text + "\n", following


def scalar(text: str) -> Any:
    """A single-line scalar: single-quoted, an empty flow collection, or plain."""
    known = _SCALARS.get(text, _MISSING)
    if known is not _MISSING:
        return known
    if not text:
        raise _Unsupported
    quoted = _SINGLE_QUOTED.match(text)
    if quoted is not None:
        return quoted.group(1).replace("''", "'")
    if text[0] == '"':
        return _double_quoted(text)
    if text == "{}":
        return {}
    if text == "[]":
        return []
    if (
        text[0] in _INDICATORS
        or text[0] == " "
        or text[-1] in " \t:"
        or ": " in text
        or " #" in text
        or "\t" in text
    ):
        raise _Unsupported
    tag = _resolve(yaml.ScalarNode, text, (True, False))
    value: Any
    if tag == _STR:
        value = text
    elif tag == "tag:yaml.org,2002:int" and _DECIMAL.match(text):
        value = int(text)
    elif tag == "tag:yaml.org,2002:bool":
        value = _BOOLS[text.lower()]
    else:
        raise _Unsupported
    if len(text) <= _CACHED_LENGTH:
        _remember(_SCALARS, text, value)
    return value


def _double_quoted(text: str) -> str:
    """A double-quoted scalar on one line whose escapes are all JSON's, read as JSON.

    Such a scalar is a JSON string: JSON's C decoder reads a 12 KB stream in
    tens of microseconds, and refuses what YAML would read otherwise (a literal
    tab, a quote left unescaped, a scalar continued on the next line).
    """
    if len(text) < 2 or text[-1] != '"':
        raise _Unsupported  # continued on the next line, or text after the quote
    content = text[1:-1]
    # Escaped backslashes pair up from the left, so what stays is one backslash
    # per other escape, each followed by its code.
    if "\\" in content:
        singles = content.replace("\\\\", "")
        if _NOT_JSON_ESCAPE.search(singles):
            raise _Unsupported
        if "\\U" in singles:
            text = '"' + _WIDE_ESCAPE.sub(_wide_character, content) + '"'
    try:
        value = json.loads(text)
    except ValueError:
        raise _Unsupported from None
    if not isinstance(value, str):
        raise _Unsupported
    return value


def _wide_character(escape: re.Match[str]) -> str:
    code = escape.group(1)
    if code is None:
        return escape.group(0)  # an escaped backslash, left for JSON
    point = int(code, 16)
    if not 0x10000 <= point <= 0x10FFFF:
        raise _Unsupported  # not what libyaml writes, and maybe a quote or a backslash
    return chr(point)


# Header names and values repeat across interactions: resolve each once. Only
# immutable values are kept, and the caches stop growing at a fixed size.
_MISSING: Final = object()
_CACHED_LENGTH: Final = 120
_CACHE_LIMIT: Final = 4096
_STR_KEYS: dict[str, bool] = {}
_SCALARS: dict[str, Any] = {}


def _remember(cache: dict[str, Any], key: str, value: Any) -> None:
    if len(cache) < _CACHE_LIMIT:
        cache[key] = value
