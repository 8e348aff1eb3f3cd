"""Telemetry traffic: answered on the spot, never recorded, never a miss.

Agent frameworks export their own traces over HTTP beside the model calls: the
OpenAI Agents SDK POSTs ``/v1/traces/ingest``, Logfire its OTLP batches,
LangSmith its runs. Those requests say nothing about what the agent did, they
differ on every run (span ids, timestamps), and they are sent from background
threads whenever a batch fills. Recorded, they would make a cassette that can
never replay; missed, they would fail a test whose answer was right. So a
cassette answers them itself with an empty ``204`` and keeps no trace of them.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit

__all__ = ["is_telemetry", "telemetry_response"]

# Path suffixes that are telemetry on any host (a base URL may point elsewhere).
_PATHS = ("/traces/ingest",)
# Hosts that only ever receive telemetry.
_HOST_SUFFIXES = ("smith.langchain.com",)
_HOST_PREFIXES = ("logfire",)
_LOGFIRE_DOMAIN = ".pydantic.dev"
# A telemetry URI contains one of these (any case): a superset of the rules above.
_MARKERS = re.compile("|".join(map(re.escape, (*_PATHS, *_HOST_SUFFIXES, *_HOST_PREFIXES))), re.I)


def is_telemetry(uri: str) -> bool:
    """Whether a request to ``uri`` is a framework's trace export, not a model call."""
    # Asked of every request twice: most name none of the markers, and need no parse.
    if _MARKERS.search(uri) is None:
        return False
    parts = urlsplit(uri)
    host = (parts.hostname or "").lower()
    if any(parts.path.rstrip("/").endswith(path) for path in _PATHS):
        return True
    if host.endswith(_HOST_SUFFIXES):
        return True
    return host.startswith(_HOST_PREFIXES) and host.endswith(_LOGFIRE_DOMAIN)


def telemetry_response() -> dict[str, Any]:
    """The vcrpy response dict a telemetry request gets: ``204 No Content``."""
    return {
        "status": {"code": 204, "message": "No Content"},
        "headers": {},
        "body": {"string": b""},
    }
