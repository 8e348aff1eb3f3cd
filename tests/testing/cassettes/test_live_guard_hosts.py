"""The live-call guard and the live labels read one list: the wire registry's hosts."""

from __future__ import annotations

import re
import socket

import pytest

from harness.core.wires import live_host_patterns
from harness.evals.live_hosts import is_live_host
from harness.evals.provenance import Source, source_of_recording
from harness.testing.cassettes.live_guard import (
    LiveCallBlockedError,
    guard_live_calls,
    is_model_api_host,
)


def _instance(pattern: str) -> str:
    """A host that fits ``pattern`` (``{region}`` and ``*`` filled in)."""
    return re.sub(r"\{[^}]*\}", "us-east-1", pattern).replace("*", "my-resource")


HOSTS = [_instance(p) for p in live_host_patterns()]


@pytest.mark.parametrize("host", HOSTS)
def test_the_guard_blocks_exactly_the_hosts_provenance_labels_live(host: str) -> None:
    # api.cohere.com and api.perplexity.ai were blocked but not labelled live.
    assert is_model_api_host(host)
    assert is_live_host(host)
    assert source_of_recording(f"{host}:443") is Source.LIVE


@pytest.mark.parametrize(
    "host", ["bedrock-runtime.eu-west-1.amazonaws.com", "europe-west4-aiplatform.googleapis.com"]
)
def test_a_lookup_of_a_regional_api_host_is_refused_in_a_guarded_block(host: str) -> None:
    refused: list[LiveCallBlockedError] = []
    with guard_live_calls("eval", refused.append), pytest.raises(LiveCallBlockedError):
        socket.getaddrinfo(host, 443)
    assert len(refused) == 1 and host in str(refused[0])


def test_other_hosts_pass_the_guard_untouched() -> None:
    assert not is_model_api_host("example.com")
    assert not is_model_api_host(b"127.0.0.1")
    assert not is_model_api_host(None)
