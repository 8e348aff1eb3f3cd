"""A loopback "weather API" for tests of tool traffic: compact JSON, and a proxy mode.

Reached directly (``http://127.0.0.1:<port>/forecast?city=Paris``) or as an HTTP
proxy (``proxy=server.url``), so that a test's tool can call a public-looking host
(``http://api.weather.example/forecast``) while every packet stays on 127.0.0.1:
the recorded request then names that host, as a real tool's does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.loopback import serving

# What the API answers: compact, key order and non-ASCII as a real server sends them.
FORECASTS = {"Paris": {"city": "Paris", "sky": "sunny", "temp_c": 21.5, "note": "brise légère"}}
# A server's own spelling, which no JSON library writes (an exponent, a space before ",").
RAW = {"Odd": b'{"city": "Odd" ,"temp_c": 2.15E1}\n'}


@dataclass
class ToolServer:
    url: str
    hits: list[str] = field(default_factory=list)


def forecast_body(city: str) -> bytes:
    if city in RAW:
        return RAW[city]
    found = FORECASTS.get(city, {"city": city, "sky": "unknown"})
    return json.dumps(found, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@contextmanager
def tool_server() -> Iterator[ToolServer]:
    """A weather API on 127.0.0.1 (also an HTTP proxy for any host's ``/forecast``)."""
    state = ToolServer(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            state.hits.append(f"{parts.netloc or 'direct'}{parts.path}")
            city = parse_qs(parts.query).get("city", ["?"])[0]
            body = forecast_body(city)
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with serving(server):
        state.url = f"http://127.0.0.1:{server.server_address[1]}"
        yield state
