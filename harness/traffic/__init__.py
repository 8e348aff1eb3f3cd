"""The traffic trace: a run rebuilt from its HTTP exchanges with a model API.

A room of its own below the toolkit, so that the viewer (transcripts from a
cassette) and the testing toolkit (the ``trace`` of a foreign agent) both read
cassettes through one decoder:

- ``_exchanges``: HTTP exchanges (or a cassette) into a ``TraceTree``;
- each wire format's reader lives in its package (``harness.wires.<name>.traffic``);
- ``sse``: server-sent events; ``wire``: what the formats share;
- ``_threads``: which call belongs to which conversation or sub-agent;
- ``_spans``, ``attributes``: the spans and their attributes.
"""

from __future__ import annotations

from harness.traffic._exchanges import (
    HttpExchange,
    exchanges_from_cassette,
    trace_from_cassette,
    trace_from_exchanges,
)

__all__ = [
    "HttpExchange",
    "exchanges_from_cassette",
    "trace_from_cassette",
    "trace_from_exchanges",
]
