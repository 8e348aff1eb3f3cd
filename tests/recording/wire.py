"""A loopback OpenAI-compatible server whose bodies are content-encoded on request.

``/<encoding>/v1/chat/completions`` answers a chat completion (or, for a
``"stream": true`` request, an event stream) encoded with ``gzip``, ``deflate``,
``br``, ``zstd`` or ``identity``. Extra response headers (cookies, org ids) and
every request seen (path with query, headers) are kept for the tests.
"""

from __future__ import annotations

import gzip
import json
import threading
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.loopback import POLL_INTERVAL

ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "identity": lambda data: data,
    "gzip": gzip.compress,
    "deflate": zlib.compress,
}
try:
    import brotli

    ENCODERS["br"] = brotli.compress
except ImportError:  # pragma: no cover - brotli is in the dev extra
    pass
try:
    from backports import zstd

    ENCODERS["zstd"] = zstd.compress
except ImportError:  # pragma: no cover - backports.zstd is in the dev extra
    pass

ANSWER = "The answer, decoded: SENTINEL-ENC."
EXTRA_HEADERS = {"set-cookie": "session=abc123; Path=/", "openai-organization": "org-secret-9"}


def completion(text: str = ANSWER) -> dict[str, Any]:
    """A Chat Completions response body."""
    return {
        "id": "chatcmpl-enc1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-enc",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": 12,
            "completion_tokens": 5,
            "total_tokens": 17,
            "prompt_tokens_details": {"cached_tokens": 8},
        },
    }


def event_stream(text: str = ANSWER) -> bytes:
    """The same answer as server-sent events, two chunks and a usage chunk."""
    base = {"id": "chatcmpl-enc1", "object": "chat.completion.chunk", "created": 1}
    base["model"] = "gpt-enc"
    half = len(text) // 2
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"content": part}, "finish_reason": None}]}
        for part in (text[:half], text[half:])
    ]
    chunks.append({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    usage = {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17}
    chunks.append({**base, "choices": [], "usage": usage})
    events = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks)
    return (events + "data: [DONE]\n\n").encode()


class WireServer:
    """The server; ``base(encoding)`` is its root for that encoding."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, str], bytes]] = []
        self.extra_headers: dict[str, str] = {}
        self.answer: dict[str, Any] | None = None
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                owner.requests.append((self.path, dict(self.headers), body))
                encoding = self.path.split("/")[1]
                streamed = bool(json.loads(body or b"{}").get("stream"))
                payload = (
                    event_stream()
                    if streamed
                    else json.dumps(owner.answer or completion()).encode()
                )
                data = ENCODERS[encoding](payload)
                self.send_response(200)
                kind = "text/event-stream" if streamed else "application/json"
                self.send_header("content-type", kind)
                if encoding != "identity":
                    self.send_header("content-encoding", encoding)
                for name, value in owner.extra_headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL}, daemon=True
        )

    def base(self, encoding: str = "identity") -> str:
        """The server root for ``encoding`` (an OpenAI ``base_url`` is this + ``/v1``)."""
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/{encoding}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop serving (idempotent): replays after this prove they stay offline."""
        if self._thread.is_alive():
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()


@contextmanager
def wire_server() -> Iterator[WireServer]:
    """A running :class:`WireServer`, stopped afterwards."""
    server = WireServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()
