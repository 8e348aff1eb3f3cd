"""Provider errors stay ProviderErrors when a second copy of httpcore2 is loaded.

httpx2 imports httpcore2 at its first request and caches a map from httpcore2's
exception classes to its own. pytester's inline runs restore ``sys.modules``
after each inner run, so when that first request happens inside an inner run,
the cached map holds the classes of a copy that is gone; the next request loads
a fresh copy whose errors the map does not know, and they pass the SDK raw.
The fixture below sets that up for real, with an inner pytester run.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.errors import ProviderError
from harness.core.messages import LLMRequest, Message
from harness.providers.sdk_errors import (
    anthropic_provider_error,
    is_transport_error,
    openai_provider_error,
)
from harness.wires.anthropic.provider import AnthropicProvider
from harness.wires.openai.provider import OpenAIProvider

_FIRST_REQUEST_INSIDE = """
import httpx2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

CLOSED_URL = "{url}"

def test_first_request():
    with pytest.raises(httpx2.ConnectError), httpx2.Client() as client:
        client.get(CLOSED_URL)
"""


@pytest.fixture
def second_httpcore_copy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, closed_port_url: str
) -> Iterator[None]:
    """httpx2's exception map holds a dropped httpcore2 copy; sys.modules a new one."""
    import httpx2._transports.default as transport

    # Back to a fresh process's state: no httpcore2 loaded, no map cached.
    for name in [name for name in sys.modules if name.partition(".")[0] == "httpcore2"]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(transport, "HTTPCORE_EXC_MAP", {})
    pytester.makepyfile(_FIRST_REQUEST_INSIDE.format(url=closed_port_url))
    pytester.runpytest_inprocess("-p", "no:xdist").assert_outcomes(passed=1)
    assert "httpcore2" not in sys.modules, "pytester kept the inner run's httpcore2"
    # The situation is real: httpx2 itself now lets the new copy's error through.
    with pytest.raises(Exception) as raw, httpx2.Client() as client:
        client.get(closed_port_url)
    assert not isinstance(raw.value, httpx2.HTTPError), raw.value
    assert type(raw.value).__module__.startswith("httpcore2"), type(raw.value)
    yield


def ask() -> LLMRequest:
    return LLMRequest(messages=[Message.user("hi")])


def openai(url: str, key: str, **options: Any) -> OpenAIProvider:
    return OpenAIProvider("gpt-test", api_key=key, base_url=url, max_retries=0, **options)


def anthropic(url: str, key: str, **options: Any) -> AnthropicProvider:
    return AnthropicProvider("claude-test", api_key=key, base_url=url, max_retries=0, **options)


@pytest.mark.usefixtures("second_httpcore_copy")
@pytest.mark.parametrize("make", [openai, pytest.param(anthropic, marks=pytest.mark.deep)])
def test_connection_refused_names_the_url(make: Any, closed_port_url: str, fake_key: str) -> None:
    with make(closed_port_url, fake_key) as provider, pytest.raises(ProviderError) as caught:
        provider.complete(ask())
    assert "connection to" in str(caught.value)
    assert closed_port_url in str(caught.value)
    assert caught.value.status_code is None


@pytest.mark.deep
@pytest.mark.usefixtures("second_httpcore_copy")
@pytest.mark.parametrize("make", [openai, anthropic])
def test_timeout_says_timed_out(make: Any, loopback: Any, fake_key: str) -> None:
    loopback.add(200, b"{}", delay=1.0)
    with (
        make(f"{loopback.url}/v1", fake_key, timeout=0.2) as provider,
        pytest.raises(ProviderError, match="timed out"),
    ):
        provider.complete(ask())


@pytest.mark.deep
@pytest.mark.usefixtures("second_httpcore_copy")
def test_openai_stream_cut_off(loopback: Any, fake_key: str) -> None:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "gpt-test"}
    event = {**chunk, "choices": [{"index": 0, "delta": {"content": "Hello"}}]}
    body = f"data: {json.dumps(event)}\n\n".encode() * 5
    loopback.add(200, body, content_type="text/event-stream", cut_after=len(body) // 2)
    with (
        openai(f"{loopback.url}/v1", fake_key, stream=True) as provider,
        pytest.raises(ProviderError, match=r"connection to .* failed"),
    ):
        provider.complete(ask())


def _copy_of(name: str, module: str, *bases: type[BaseException]) -> type[BaseException]:
    """A class as another copy of an http package would define it."""
    return type(name, bases or (Exception,), {"__module__": module})


@pytest.mark.parametrize("package", ["httpcore2", "httpcore", "httpx2", "httpx"])
def test_transport_errors_are_known_by_name_in_any_copy(package: str) -> None:
    timeout = _copy_of("TimeoutException", f"{package}._exceptions")
    read_timeout = _copy_of("ReadTimeout", f"{package}._exceptions", timeout)
    network = _copy_of("NetworkError", f"{package}._exceptions")
    connect = _copy_of("ConnectError", f"{package}._exceptions", network)
    assert is_transport_error(read_timeout("slow"))
    assert is_transport_error(connect("refused"))
    assert "timed out" in str(openai_provider_error(read_timeout("slow")))
    refused = anthropic_provider_error(connect("refused"), base_url="http://127.0.0.1:9")
    assert "connection to http://127.0.0.1:9 failed" in str(refused)


@pytest.mark.parametrize(
    "exc",
    [
        ValueError("no"),
        _copy_of("ConnectError", "myapp.errors")("same name, other package"),
        _copy_of("InvalidURL", "httpx2._urlparse")("not a transport failure"),
    ],
    ids=["builtin", "foreign-package", "not-transport"],
)
def test_other_errors_are_not_transport_errors(exc: BaseException) -> None:
    assert not is_transport_error(exc)


_BRANCHES = ("TimeoutException", "NetworkError", "ProtocolError", "ProxyError")


@settings(database=None, max_examples=60)
@given(
    package=st.sampled_from(["httpcore2", "httpcore", "httpx2", "httpx"]),
    other=st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True),
    branch=st.sampled_from(_BRANCHES),
    leaf=st.from_regex(r"[A-Z][A-Za-z]{0,15}", fullmatch=True),
    submodule=st.sampled_from(["", "._exceptions", "._transports.default"]),
)
def test_only_the_http_packages_transport_branches_are_recognised(
    package: str, other: str, branch: str, leaf: str, submodule: str
) -> None:
    base = _copy_of(branch, package + submodule)
    assert is_transport_error(_copy_of(leaf, package + submodule, base)("x"))
    timeout = "timed out" in str(openai_provider_error(_copy_of(leaf, package, base)("x")))
    assert timeout == (branch == "TimeoutException")
    if other not in {"httpcore2", "httpcore", "httpx2", "httpx"}:
        foreign = _copy_of(branch, other + submodule)
        assert not is_transport_error(_copy_of(leaf, other, foreign)("x"))
