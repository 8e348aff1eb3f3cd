"""vcrpy's ``Cassette.data`` as a sequence whose stored items convert on first use."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, overload

from vcr.request import Request

from harness.recording._entries import CassetteEntries

__all__ = ["LazyInteractions"]

Pair = tuple[Any, dict[str, Any]]


class LazyInteractions:
    """``(vcr Request, response)`` pairs; loaded ones are parsed part by part, then kept.

    Replay only needs a response, so a request is parsed only when something
    asks for it (a miss diff, a re-save, a hand-edited item).
    """

    def __init__(self, entries: CassetteEntries | None = None) -> None:
        self._entries = entries
        count = len(entries) if entries is not None else 0
        self._requests: list[Any] = [None] * count
        self._responses: list[dict[str, Any] | None] = [None] * count

    def __len__(self) -> int:
        return len(self._requests)

    def request(self, index: int) -> Any:
        """The vcrpy ``Request`` of interaction ``index``."""
        request = self._requests[index]
        if request is None:
            assert self._entries is not None, "only loaded entries start unparsed"
            stored = self._entries.request(index)
            headers = stored.get("headers") or {}
            request = Request(stored["method"], stored["uri"], stored.get("body"), headers)
            self._requests[index] = request
        return request

    def response(self, index: int) -> dict[str, Any]:
        """The response of interaction ``index`` as vcrpy plays it (bytes body)."""
        response = self._responses[index]
        if response is None:
            assert self._entries is not None, "only loaded entries start unparsed"
            stored = self._entries.response(index)
            body = stored["body"].get("string")
            encoded = body.encode("utf-8") if isinstance(body, str) else body
            response = self._responses[index] = {**stored, "body": {"string": encoded}}
        return response

    @overload
    def __getitem__(self, index: int) -> Pair: ...

    @overload
    def __getitem__(self, index: slice) -> list[Pair]: ...

    def __getitem__(self, index: int | slice) -> Pair | list[Pair]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return self.request(index), self.response(index)

    def __iter__(self) -> Iterator[Pair]:
        return (self[i] for i in range(len(self)))

    def append(self, pair: Pair) -> None:
        """Add an interaction recorded in this session."""
        self._requests.append(pair[0])
        self._responses.append(pair[1])
