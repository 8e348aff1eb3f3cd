"""harness's own reading of Feishu's event encryption, against lark-oapi's."""

from __future__ import annotations

import base64
import importlib.util

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from harness.integrations.feishu._cipher import decrypt_event

pytest.importorskip("Crypto", reason="the feishu extra is not installed")

from tests.integrations._feishu_crypto import encrypt

# The lark-oapi comparison imports that SDK: one worker does (see the root conftest).
pytestmark = pytest.mark.xdist_group("lark")

keys = st.text(min_size=1, max_size=40)


@given(text=st.text(max_size=300), key=keys)
def test_what_feishu_encrypts_decrypts_to_the_same_text(text: str, key: str) -> None:
    assert decrypt_event(encrypt(text.encode("utf-8"), key), key) == text


@given(text=st.text(min_size=1, max_size=100), key=keys, other=keys)
def test_a_wrong_key_is_a_value_error_or_other_text_never_a_crash(
    text: str, key: str, other: str
) -> None:
    assume(key != other)
    ciphertext = encrypt(text.encode("utf-8"), key)
    try:
        result = decrypt_event(ciphertext, other)
    except ValueError:  # padding or UTF-8 (UnicodeDecodeError is one)
        return
    assert result != text


@pytest.mark.parametrize("raw", [b"", b"x" * 15, b"x" * 16, b"x" * 33])
def test_short_or_ragged_ciphertext_is_a_value_error(raw: bytes) -> None:
    with pytest.raises(ValueError):
        decrypt_event(base64.b64encode(raw).decode(), "key")


@pytest.mark.deep
@pytest.mark.skipif(importlib.util.find_spec("lark_oapi") is None, reason="lark-oapi not installed")
@given(text=st.text(max_size=200), key=keys)
def test_it_agrees_with_lark_oapi(text: str, key: str) -> None:
    from lark_oapi.core.utils.decryptor import AESCipher

    ciphertext = encrypt(text.encode("utf-8"), key)
    assert decrypt_event(ciphertext, key) == AESCipher(key).decrypt_str(ciphertext)
