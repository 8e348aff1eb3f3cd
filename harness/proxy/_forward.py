"""Forwarding a request to the upstream while recording, the answer streamed through.

The client reads the upstream's bytes as they arrive (an SSE stream event by
event), and the whole answer is kept for the cassette. Bodies pass as sent:
the raw bytes (compressed or not) with their ``content-encoding``; the
cassette decodes what it stores. The client's credentials go upstream (the
cassette keeps no such header).
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

import httpx

from harness.core.errors import ConfigurationError
from harness.core.wires import wire_for_path
from harness.proxy._spec import ANY_WIRE

__all__ = ["Upstreams"]

_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "transfer-encoding",
        "proxy-connection",
        "proxy-authorization",
        "te",
        "trailer",
        "upgrade",
        "host",
        "content-length",
    }
)


def _join(upstream: str, target: str) -> str:
    """``upstream`` + ``target``, its path prefix added unless the target has it (``/v1``)."""
    parts = urlsplit(upstream)
    prefix = parts.path.rstrip("/")
    path = target if not prefix or target.startswith(prefix + "/") else prefix + target
    return f"{parts.scheme}://{parts.netloc}{path}"


class Upstreams:
    """Where each wire's requests go while recording, and the client that sends them."""

    def __init__(self, upstreams: dict[str, str], timeout: float = 600.0) -> None:
        self.upstreams = dict(upstreams)
        self._client = httpx.Client(timeout=httpx.Timeout(timeout, connect=10.0), trust_env=False)

    def __bool__(self) -> bool:
        return bool(self.upstreams)

    def url_for(self, target: str) -> str:
        """The upstream URL of a request for ``target`` (path and query).

        Raises:
            ConfigurationError: no upstream serves the request's wire.
        """
        entry = wire_for_path(target.partition("?")[0])
        upstream = self.upstreams.get(entry.name) if entry is not None else None
        upstream = upstream or self.upstreams.get(ANY_WIRE)
        if upstream is None:
            raise ConfigurationError(
                f"no upstream for {target}: give --upstream URL (every wire) or "
                f"--upstream {entry.name if entry else 'WIRE'}=URL"
            )
        return _join(upstream, target)

    def forward(
        self,
        handler: BaseHTTPRequestHandler,
        url: str,
        body: bytes,
        extra_headers: tuple[tuple[str, str], ...] = (),
    ) -> dict[str, Any]:
        """Send the handler's request to ``url``, stream the answer to its client, return it.

        ``extra_headers`` are added to what the client sent.

        Raises:
            httpx.HTTPError: the upstream could not be reached or broke off.
        """
        headers = [(k, v) for k, v in handler.headers.items() if k.lower() not in _HOP]
        headers += list(extra_headers)
        request = self._client.build_request(handler.command, url, headers=headers, content=body)
        answer = self._client.send(request, stream=True)
        try:
            kept = [(k, v) for k, v in answer.headers.multi_items() if k.lower() not in _HOP]
            length = answer.headers.get("content-length")
            handler.send_response(answer.status_code, answer.reason_phrase or None)
            for name, value in kept:
                handler.send_header(name, value)
            chunked = length is None and handler.command != "HEAD"
            if chunked:
                handler.send_header("transfer-encoding", "chunked")
            elif length is not None:
                handler.send_header("content-length", length)
            handler.end_headers()
            received = bytearray()
            for chunk in answer.iter_raw():
                received += chunk
                if chunked:
                    handler.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                else:
                    handler.wfile.write(chunk)
                handler.wfile.flush()
            if chunked:
                handler.wfile.write(b"0\r\n\r\n")
            headers_out: dict[str, list[str]] = {}
            for name, value in answer.headers.multi_items():
                if name.lower() not in _HOP:
                    headers_out.setdefault(name.lower(), []).append(value)
            return {
                "status": {"code": answer.status_code, "message": answer.reason_phrase},
                "headers": headers_out,
                "body": {"string": bytes(received)},
            }
        finally:
            answer.close()

    def close(self) -> None:
        self._client.close()
