"""The trap's reading of a proxy request's first line: host, port and method, nothing else."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.proxy._bridge_in import origin_form, trap_target

_labels = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=12)
hosts = st.lists(_labels, min_size=1, max_size=4).map(".".join)
_segments = st.text("abcdefghijklmnopqrstuvwxyzABC0123456789_.~-", max_size=12)
ports = st.integers(min_value=1, max_value=65535)


@given(host=hosts, port=ports)
def test_a_connect_line_names_its_host_and_port(host: str, port: int) -> None:
    head = f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode()
    assert trap_target(head) == (host, port, "CONNECT")


@given(
    scheme=st.sampled_from(["http", "https"]),
    host=hosts,
    port=st.none() | ports,
    path=st.lists(_segments, max_size=3).map(lambda parts: "".join(f"/{p}" for p in parts)),
    key=st.none() | _labels,
    method=st.sampled_from(["GET", "POST", "HEAD"]),
)
def test_an_absolute_request_names_host_port_and_method_only(
    scheme: str, host: str, port: int | None, path: str, key: str | None, method: str
) -> None:
    where = host if port is None else f"{host}:{port}"
    query = "" if key is None else f"?key=sk-{key}"
    head = f"{method} {scheme}://{where}{path}{query} HTTP/1.1\r\n".encode()
    default = 443 if scheme == "https" else 80
    found = trap_target(head)
    assert found == (host, default if port is None else port, method)
    assert "sk-" not in repr(found)  # a key in a query string never leaves the line


@given(st.binary(max_size=300))
def test_any_bytes_give_a_target_or_none_without_raising(head: bytes) -> None:
    found = trap_target(head)
    assert found is None or (found[0] and 0 <= found[1] <= 65535)


@pytest.mark.parametrize(
    "head",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\x16\x03\x01\x02\x00", id="tls-hello"),
        pytest.param(b"GET /v1/models HTTP/1.1\r\n", id="origin-form"),
        pytest.param(b"CONNECT :443 HTTP/1.1\r\n", id="no-host"),
        pytest.param(b"CONNECT host:99999 HTTP/1.1\r\n", id="port-out-of-range"),
    ],
)
def test_what_names_no_host_is_none(head: bytes) -> None:
    assert trap_target(head) is None


@given(
    host=hosts,
    path=st.lists(_segments, max_size=3).map(lambda parts: "".join(f"/{p}" for p in parts)),
    query=st.none() | _labels,
)
def test_origin_form_keeps_path_query_and_the_rest(host: str, path: str, query: str | None) -> None:
    tail = "" if query is None else f"?q={query}"
    head = f"POST http://{host}:8080{path}{tail} HTTP/1.1\r\nHost: {host}\r\n\r\nbody".encode()
    expected = f"POST {path or '/'}{tail} HTTP/1.1\r\nHost: {host}\r\n\r\nbody".encode()
    assert origin_form(head) == expected
