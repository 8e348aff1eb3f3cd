"""Simulator recordings are stored under the provider's real API host."""

from __future__ import annotations

from urllib.parse import urlsplit

from hypothesis import given
from hypothesis import strategies as st

from harness.recording._canonical import CANONICAL_HOSTS, canonical_uri

hosts = st.sampled_from(["127.0.0.1:8765", "localhost:1", "[::1]:9", "proxy.internal"])
paths = st.sampled_from([*CANONICAL_HOSTS, "/v1/models", "/openai/v1/chat/completions", "/"])
queries = st.text(alphabet="abc=&%-_0123456789", max_size=20)


@given(st.sampled_from(["http", "https"]), hosts, paths, queries)
def test_only_simulator_paths_move_and_path_and_query_stay(
    scheme: str, host: str, path: str, query: str
) -> None:
    uri = f"{scheme}://{host}{path}" + (f"?{query}" if query else "")
    moved = urlsplit(canonical_uri(uri))
    original = urlsplit(uri)
    assert (moved.path, moved.query) == (original.path, original.query)
    if path in CANONICAL_HOSTS:
        assert f"{moved.scheme}://{moved.netloc}" == CANONICAL_HOSTS[path]
    else:
        assert canonical_uri(uri) == uri


def test_each_provider_gets_its_own_api_host() -> None:
    assert canonical_uri("http://127.0.0.1:1/v1/chat/completions?x=1") == (
        "https://api.openai.com/v1/chat/completions?x=1"
    )
    assert (
        canonical_uri("http://127.0.0.1:1/v1/messages") == "https://api.anthropic.com/v1/messages"
    )
