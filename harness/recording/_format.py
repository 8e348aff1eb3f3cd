"""The cassette file format: vcrpy's layout, parsed and dumped with safe (C) YAML.

A cassette stays a plain vcrpy cassette (``version: 1`` and ``interactions``), so
vanilla ``vcr.use_cassette`` replays it. harness writes multi-line strings (JSON
bodies, SSE streams) as YAML block scalars, a ``harness:`` metadata block, and a
``harness_match`` line first in each interaction; vcrpy ignores both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import yaml
from pydantic import ValidationError

from harness.core.errors import CassetteError
from harness.recording._bounds import check_bounds
from harness.recording._layout import check_request, check_response
from harness.recording._metadata import METADATA_KEY, CassetteMetadata
from harness.yamlload import describe_yaml_error

__all__ = [
    "FORMAT_VERSION",
    "MATCH_KEY",
    "Interaction",
    "check_header",
    "check_interaction",
    "dump_document",
    "foreign_format",
    "is_json",
    "parse_document",
]

FORMAT_VERSION = 1
MATCH_KEY = "harness_match"

_Dumper: type[yaml.SafeDumper] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _CassetteDumper(_Dumper):  # type: ignore[misc,valid-type]
    """Safe YAML with multi-line strings as ``|`` block scalars."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    # libyaml falls back to a quoted scalar by itself when a block cannot hold
    # the text exactly (trailing spaces, control characters).
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_CassetteDumper.add_representer(str, _represent_str)


class Interaction(NamedTuple):
    """One stored exchange in vcrpy's dict shape, with its ``harness_match`` line."""

    request: dict[str, Any]
    response: dict[str, Any]
    match: str | None = None


def is_json(path: Path) -> bool:
    """Whether ``path`` holds a JSON cassette (else YAML)."""
    return path.suffix.lower() == ".json"


def parse_document(path: Path, text: str) -> Any:
    """Parse cassette text (YAML, or JSON for ``*.json``) into plain data.

    Raises:
        CassetteError: the text is not valid YAML/JSON.
    """
    check_bounds(path, text, aliases=not is_json(path))
    try:
        if is_json(path):
            return json.loads(text)
        return yaml.load(text, Loader=_Loader)  # a safe (C) loader
    except (ValueError, yaml.YAMLError) as exc:
        # PyYAML's text names the document "<unicode string>": the line and column
        # go after the cassette's own path instead.
        if isinstance(exc, yaml.YAMLError):
            problem = describe_yaml_error(exc)
        else:
            problem = str(exc).strip().replace("\n", " ")
        raise CassetteError(
            f"cassette {path} is corrupt and cannot be parsed ({problem}). "
            "Restore it from version control, or delete it and record it again."
        ) from exc


def dump_document(path: Path, data: dict[str, Any]) -> str:
    """Serialize cassette data for ``path`` (YAML, or JSON for ``*.json``)."""
    if is_json(path):
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    return yaml.dump(
        data, Dumper=_CassetteDumper, sort_keys=False, allow_unicode=True, width=1 << 16
    )


def foreign_format(path: Path, why: str) -> CassetteError:
    """The error for a file that is not a cassette harness can replay."""
    return CassetteError(
        f"{path} is not a vcrpy cassette that harness can replay: {why}. "
        "Check the path; if the file belongs to another tool, keep cassettes elsewhere, "
        "otherwise delete it and record it again."
    )


def check_header(path: Path, data: Any) -> CassetteMetadata | None:
    """Validate the top level of a cassette; return its ``harness:`` block.

    Raises:
        CassetteError: not a version-1 vcrpy cassette, or an invalid ``harness:`` block.
    """
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        raise foreign_format(path, "it has no 'interactions' list")
    if data.get("version") != FORMAT_VERSION:
        raise foreign_format(
            path, f"format version {data.get('version')!r} is not {FORMAT_VERSION}"
        )
    if METADATA_KEY not in data:
        return None
    try:
        return CassetteMetadata.model_validate(data[METADATA_KEY])
    except ValidationError as exc:
        raise CassetteError(
            f"cassette {path} has an invalid '{METADATA_KEY}:' block: {exc}"
        ) from exc


def check_interaction(path: Path, index: int, item: Any) -> Interaction:
    """A stored interaction, or a clear error naming its index."""
    if not isinstance(item, dict):
        raise foreign_format(path, f"interaction {index} is a {type(item).__name__}, not a mapping")
    match = item.get(MATCH_KEY)
    return Interaction(
        check_request(path, index, item.get("request")),
        check_response(path, index, item.get("response")),
        match if isinstance(match, str) else None,
    )
