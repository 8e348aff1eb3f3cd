"""Any cassette's exchanges as plain data, bodies decoded, for tools that read traffic.

Replay reads a cassette through vcrpy; a tool that only looks at what was sent
and answered (the traffic trace, a transcript) wants the same files without
vcrpy: harness's own, vanilla vcrpy's, the older httpx layout
(``status_code`` / ``content``) and pydantic-ai's test serializer, which stores
a JSON body as a structure under ``parsed_body`` instead of text under
``body``. Every layout goes through the same checks replay uses
(``_format`` / ``_layout``), and bodies come out decoded (gzip, deflate, br,
zstd) with ``decode_content``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from harness.core.errors import CassetteError
from harness.recording._encoding import decode_body, encodings_of
from harness.recording._format import check_header, check_interaction, parse_document
from harness.recording._metadata import CassetteMetadata

__all__ = ["StoredCassette", "StoredInteraction", "decode_content", "read_cassette"]


class StoredInteraction(NamedTuple):
    """One recorded exchange in vcrpy's dict shape (current layout), bodies as bytes."""

    request: dict[str, Any]
    response: dict[str, Any]


class StoredCassette(NamedTuple):
    """A cassette file read whole: its interactions and its ``harness:`` block, if any."""

    interactions: list[StoredInteraction]
    metadata: CassetteMetadata | None


def decode_content(body: bytes, headers: Mapping[str, Any]) -> bytes:
    """``body`` with its ``Content-Encoding`` undone; unchanged if it cannot be.

    ``headers`` may map to one value or to vcrpy's lists of values.
    """
    codings = encodings_of(headers)
    if not codings:
        return body
    decoded = decode_body(body, codings)
    return body if decoded is None else decoded


def _serialized(value: Any) -> str:
    # pydantic-ai replays ``parsed_body`` as ``json.dumps`` of the structure.
    return json.dumps(value)


def _unparsed(item: Any) -> Any:
    """An interaction whose ``parsed_body`` parts are turned back into body text."""
    if not isinstance(item, dict):
        return item
    request, response = item.get("request"), item.get("response")
    if isinstance(request, dict) and "parsed_body" in request and "body" not in request:
        request = {**request, "body": _serialized(request["parsed_body"])}
        request.pop("parsed_body")
    if isinstance(response, dict) and "parsed_body" in response and "body" not in response:
        response = {**response, "body": {"string": _serialized(response["parsed_body"])}}
        response.pop("parsed_body")
    return {**item, "request": request, "response": response}


def _as_bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    return b"" if value is None else str(value).encode("utf-8")


def read_cassette(path: str | Path) -> StoredCassette:
    """Every interaction of the cassette at ``path``, in recorded order, and its metadata.

    Request and response bodies are ``bytes``, decoded; a body whose encoding
    cannot be undone keeps its ``Content-Encoding`` header.

    Raises:
        CassetteError: the file is missing, unreadable, corrupt, or not a vcrpy cassette.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CassetteError(f"cassette {file} does not exist; check the path") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"cannot read cassette {file}: {exc}") from exc
    data = parse_document(file, text)
    metadata = check_header(file, data)
    found: list[StoredInteraction] = []
    for index, item in enumerate(data["interactions"]):
        stored = check_interaction(file, index, _unparsed(item))
        request = {**stored.request, "body": _as_bytes(stored.request.get("body"))}
        request["body"] = decode_content(request["body"], request.get("headers") or {})
        body = _as_bytes(stored.response["body"].get("string"))
        headers = stored.response.get("headers") or {}
        decoded = decode_content(body, headers)
        if decoded is not body:
            headers = {
                name: values
                for name, values in headers.items()
                if name.lower() not in ("content-encoding", "content-length")
            }
        response = {**stored.response, "headers": headers, "body": {"string": decoded}}
        found.append(StoredInteraction(request, response))
    return StoredCassette(found, metadata)
