"""Reading a contained child's output for the hosts it could not reach."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.proxy._contain import unreachable_hosts

_labels = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12)
hosts = st.lists(_labels, min_size=2, max_size=4).map(".".join)

MESSAGES = {
    "node": "TypeError: fetch failed\n  [cause]: Error: getaddrinfo EAI_AGAIN {host}\n",
    "curl": "curl: (6) Could not resolve host: {host}\n",
    "go": "dial tcp: lookup {host} on 10.0.0.53:53: dial udp 10.0.0.53:53: connect: unreachable",
    "go-cgo": "Post: dial tcp: lookup {host}: no such host",
    "urllib3": "Caused by NameResolutionError(\"<obj>: Failed to resolve '{host}' ([Errno -3]\"",
    "requests": "HTTPSConnectionPool(host='{host}', port=443): Max retries exceeded with url: /v1",
    "reqwest": "stream error: error sending request for url (https://{host}/v1/responses); retry",
}


@given(client=st.sampled_from(sorted(MESSAGES)), host=hosts)
def test_each_clients_error_names_its_host(client: str, host: str) -> None:
    assert unreachable_hosts(f"noise\n{MESSAGES[client].format(host=host)}\nmore") == (host,)


@given(first=hosts, second=hosts)
def test_hosts_come_in_order_once_each(first: str, second: str) -> None:
    text = "".join(
        MESSAGES[client].format(host=host)
        for client, host in (("curl", first), ("node", second), ("go", first))
    )
    assert unreachable_hosts(text) == tuple(dict.fromkeys((first, second)))


# Text made of what the patterns look for, so that near-misses come up often.
_pieces = st.sampled_from(
    ["getaddrinfo EAI_AGAIN ", "lookup ", " on a:53: ", ": no such host",
     "Could not resolve host: ", "for url (https://", "Failed to resolve '",
     "'", ".", "-", "a", "1", " ", "\n", ")", "/", ":"]
)  # fmt: skip


@given(st.lists(_pieces, max_size=30).map("".join))
def test_any_text_gives_hosts_with_a_dot(text: str) -> None:
    assert all("." in host for host in unreachable_hosts(text))


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("getaddrinfo ENOTFOUND localhost", id="loopback-name"),
        pytest.param("Could not resolve host: 127.0.0.1", id="loopback-address"),
        pytest.param(
            "httpx.ConnectError: [Errno -3] Temporary failure in name resolution", id="httpx"
        ),
        pytest.param("cache lookup miss: key.x was cold", id="prose"),
    ],
)
def test_what_names_no_outside_host_gives_none(text: str) -> None:
    assert unreachable_hosts(text) == ()
