"""Content-encoding decoders: a body is stored decoded, or with its encoding named.

httpx advertises every encoding it can decode (``gzip, deflate``, plus ``br``
with ``brotli`` installed and ``zstd`` with ``backports.zstd`` or Python 3.14),
and vcrpy records the body as it came off the wire. vcrpy itself decodes only
gzip and deflate; harness decodes all four when their decoder is importable,
so a cassette holds readable text. A body it cannot decode keeps its
``Content-Encoding`` header, so httpx decodes it again on replay; harness never
drops the header of a body still encoded.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = [
    "DECODABLE",
    "MAX_DECODED_BYTES",
    "decode_body",
    "decode_response",
    "encodings_of",
    "looks_encoded",
]

MAX_DECODED_BYTES: Final = 256 * 1024 * 1024  # a decompression bomb stops here


class _TooLarge(Exception):
    pass


def _zlib(wbits: int) -> Callable[[bytes], bytes]:
    def decode(data: bytes) -> bytes:
        decoder = zlib.decompressobj(wbits)
        out = decoder.decompress(data, MAX_DECODED_BYTES)
        if decoder.unconsumed_tail:
            raise _TooLarge
        return out + decoder.flush()

    return decode


def _deflate(data: bytes) -> bytes:
    # "deflate" is zlib-wrapped by the RFC, raw in some servers; httpx accepts both.
    try:
        return _zlib(zlib.MAX_WBITS)(data)
    except zlib.error:
        return _zlib(-zlib.MAX_WBITS)(data)


def _optional_decoders() -> dict[str, Callable[[bytes], bytes]]:
    found: dict[str, Callable[[bytes], bytes]] = {}
    for module in ("brotli", "brotlicffi"):  # the two httpx itself uses
        try:
            brotli: Any = __import__(module)
        except ImportError:
            continue
        found["br"] = brotli.decompress
        break
    for module in ("compression.zstd", "backports.zstd"):
        try:
            zstd: Any = __import__(module, fromlist=["decompress"])
        except ImportError:
            continue
        found["zstd"] = zstd.decompress
        break
    return found


_DECODERS: Final[dict[str, Callable[[bytes], bytes]]] = {
    "identity": lambda data: data,
    "gzip": _zlib(zlib.MAX_WBITS | 16),
    "x-gzip": _zlib(zlib.MAX_WBITS | 16),
    "deflate": _deflate,
    **_optional_decoders(),
}
DECODABLE: Final = frozenset(_DECODERS)


def encodings_of(headers: Mapping[str, Any]) -> list[str]:
    """The content codings of a vcrpy headers dict, in the order they were applied."""
    codings: list[str] = []
    for name, values in headers.items():
        if name.lower() != "content-encoding":
            continue
        for value in values if isinstance(values, list) else [values]:
            text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
            codings += [c.strip().lower() for c in text.split(",") if c.strip()]
    return codings


def decode_body(body: bytes, codings: list[str]) -> bytes | None:
    """``body`` with ``codings`` undone (last applied first), or None if it cannot be."""
    for coding in reversed(codings):
        decoder = _DECODERS.get(coding)
        if decoder is None:
            return None
        try:
            body = decoder(body)
        except Exception:  # each library raises its own error type for bad data
            return None
    return body


def decode_response(response: dict[str, Any]) -> dict[str, Any]:
    """A vcrpy response dict with its body decoded and its encoding headers dropped.

    A body that cannot be decoded (unknown coding, missing decoder, corrupt
    data) is returned unchanged, ``Content-Encoding`` included.
    """
    headers = response.get("headers") or {}
    codings = encodings_of(headers)
    body = response.get("body", {}).get("string")
    if not codings or not isinstance(body, bytes):
        return response
    decoded = decode_body(body, codings)
    if decoded is None:
        return response
    kept = {
        name: values
        for name, values in headers.items()
        if name.lower() not in ("content-encoding", "content-length")
    }
    return {**response, "headers": kept, "body": {**response["body"], "string": decoded}}


_MAGIC: Final = (b"\x1f\x8b", b"\x28\xb5\x2f\xfd")  # gzip, zstd frames


def looks_encoded(body: object) -> bool:
    """Whether ``body`` starts like a gzip or zstd stream (brotli has no magic)."""
    return isinstance(body, bytes) and body.startswith(_MAGIC)
