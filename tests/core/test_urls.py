"""One answer to "is this host this machine?", in every spelling a resolver accepts."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.urls import base_url_problem, is_loopback_host, is_loopback_url, parse_address
from harness.evals.live_hosts import is_local_host
from harness.providers.credentials import is_loopback_host as credentials_is_loopback
from harness.recording._guard import is_loopback as guard_is_loopback

loopback_v4 = st.integers(0x7F000000, 0x7FFFFFFF).map(ipaddress.IPv4Address)


def _spellings(address: ipaddress.IPv4Address) -> list[str]:
    a, b, c, d = address.packed
    return [
        str(address),
        str(int(address)),
        hex(int(address)),
        f"{a}.{(b << 16) | (c << 8) | d}",
        f"0x{a:x}.{b}.{c}.{d}",
        f"[::ffff:{address}]",
        f"{address}.",
    ]


@given(loopback_v4)
def test_every_spelling_of_a_loopback_address_is_loopback_everywhere(
    address: ipaddress.IPv4Address,
) -> None:
    for spelling in _spellings(address):
        assert is_loopback_host(spelling), spelling
        # The guard, the placeholder key and the live labels ask the same predicate.
        assert guard_is_loopback(spelling) and credentials_is_loopback(spelling), spelling
        assert is_local_host(spelling), spelling


@given(st.integers(0, 2**32 - 1).map(ipaddress.IPv4Address))
def test_an_address_outside_127_is_not_loopback(address: ipaddress.IPv4Address) -> None:
    assert is_loopback_host(str(address)) is (address.packed[0] == 127)
    assert parse_address(str(int(address))) == address


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("localhost", True),
        ("LOCALHOST.", True),
        ("ip6-localhost", True),
        ("app.localhost", True),
        ("[::1]", True),
        ("::1%lo", True),
        (b"127.0.0.1", True),
        ("0.0.0.0", False),  # every interface, reachable from other machines
        ("10.0.0.1", False),
        ("127.0.0.1.example.com", False),
        ("localhost.example.com", False),
        ("", False),
        (None, False),
    ],
)
def test_names_and_odd_spellings(host: object, loopback: bool) -> None:
    assert is_loopback_host(host) is loopback


def test_a_url_is_loopback_by_its_host() -> None:
    assert is_loopback_url("http://127.1:8765/v1")
    assert is_loopback_url("http://user:pw@localhost./v1")
    assert not is_loopback_url("https://api.openai.com/v1")
    assert not is_loopback_url("http://[::1")  # unparseable


@pytest.mark.parametrize(
    ("url", "fix"),
    [
        ("127.0.0.1:8765", "has no scheme; use http://127.0.0.1:8765"),
        ("localhost:8765/v1", "has no scheme; use http://localhost:8765/v1"),
        ("api.example.com/v1", "has no scheme; use https://api.example.com/v1"),
        ("ftp://127.0.0.1/", "has the scheme 'ftp'; use http:// or https://"),
        ("http://", "has no host; write it as http://HOST:PORT"),
    ],
    ids=["loopback", "localhost", "remote", "ftp", "no-host"],
)
def test_a_base_url_without_http_says_the_fix(url: str, fix: str) -> None:
    assert base_url_problem("HARNESS_BASE_URL", url) == f"HARNESS_BASE_URL={url} {fix}"


@given(
    st.sampled_from(["http", "https", "HTTP"]),
    st.sampled_from(["127.0.0.1", "localhost", "[::1]", "api.example.com"]),
    st.integers(1, 65535),
    st.sampled_from(["", "/", "/v1", "/v1/"]),
)
def test_every_http_url_with_a_host_passes(scheme: str, host: str, port: int, path: str) -> None:
    assert base_url_problem("X", f"{scheme}://{host}:{port}{path}") is None


@given(st.text(max_size=60))
def test_a_problem_is_one_line_and_never_repeats_a_password(text: str) -> None:
    url = f"user:s3cretpw@{text}"
    problem = base_url_problem("X", url)
    if problem is not None:
        assert problem.startswith("X=") and "s3cretpw" not in problem
        assert "\n" not in problem and "\r" not in problem
