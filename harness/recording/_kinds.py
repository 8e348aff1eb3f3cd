"""Model traffic and tool traffic: which exchanges of a cassette are a model's answers.

A test's cassette holds every HTTP exchange the test made: its model calls and
whatever else its code sent (a tool calling a weather API, a framework fetching
a price list). Only the model calls say where the answers came from, what they
cost and what the row counts; the rest is *tool traffic*.

The kind is derived when reading, never stored: an exchange is a model call
when it is a ``POST`` whose path is one a wire of the registry
(:mod:`harness.core.wires`) is posted to. A runtime wire is told by its path
ending (``/chat/completions`` behind any prefix: a gateway, Azure, a local
server); a read-only wire whose ending is generic (Bedrock's ``/converse``) by
its whole path template. Old cassettes need no new field, and a hand-edited
interaction cannot carry a stale mark.
"""

from __future__ import annotations

from enum import StrEnum
from urllib.parse import urlsplit

from harness.core.wires import Capability, path_matches, wire_for_path

__all__ = ["TrafficKind", "is_model_call", "traffic_kind"]


class TrafficKind(StrEnum):
    """What an exchange of a test was."""

    MODEL = "model"  # a call to a model API: source, cost and the row come from these
    TOOL = "tool"  # anything else the test's code sent


def is_model_call(method: str, uri: str) -> bool:
    """Whether ``method uri`` is a model API call of a wire the registry knows."""
    if method.upper() != "POST":
        return False
    path = urlsplit(uri).path.rstrip("/")
    entry = wire_for_path(path)
    if entry is None:
        return False
    if Capability.RUNTIME in entry.capabilities:
        return True
    return any(path_matches(template, path) for template in entry.paths)


def traffic_kind(method: str, uri: str) -> TrafficKind:
    """The kind of the exchange ``method uri``."""
    return TrafficKind.MODEL if is_model_call(method, uri) else TrafficKind.TOOL
