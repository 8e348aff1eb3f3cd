"""Redaction honours the wire registry: its secret headers, parameters and variables."""

from __future__ import annotations

import pytest

from harness.core.wires import credential_env_names, secret_header_names, secret_query_params
from harness.recording._filters import keep_request_headers
from harness.recording._redact import is_credential_param


@pytest.mark.parametrize("name", sorted(secret_header_names()))
def test_no_secret_header_of_any_wire_is_recorded(name: str) -> None:
    headers = {name: "secret-value-0123456789", name.title(): "x", "content-type": "a/b"}
    assert keep_request_headers(headers) == {"content-type": "a/b"}


@pytest.mark.parametrize("name", sorted(secret_query_params()))
def test_every_secret_query_parameter_of_any_wire_is_redacted(name: str) -> None:
    assert is_credential_param(name)
    assert is_credential_param(name.upper())


def test_the_secret_scan_looks_for_every_wire_s_key_variables() -> None:
    from harness.recording import _secrets

    assert set(_secrets._ENV_KEYS) == set(credential_env_names())


@pytest.mark.parametrize("name", sorted(secret_header_names()))
def test_every_secret_header_of_any_wire_is_redacted_in_a_log_line(name: str) -> None:
    from harness.recording._logfilter import redact_log_text

    line = f"Request options: headers={{'{name}': 'AWS4-HMAC-SHA256-0123456789abcdef'}}"
    assert "0123456789abcdef" not in redact_log_text(line)
