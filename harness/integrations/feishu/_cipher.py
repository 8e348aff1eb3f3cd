"""Feishu's event encryption, read with pycryptodome alone.

Feishu encrypts an event as base64(IV || AES-256-CBC(PKCS7(plaintext))) keyed by
sha256(FEISHU_ENCRYPT_KEY). lark-oapi ships the same routine, but importing any
part of it imports the whole SDK (seconds of start-up), and a webhook server
needs only these few lines.
"""

from __future__ import annotations

import base64
import hashlib

__all__ = ["decrypt_event"]

_BLOCK = 16


def decrypt_event(ciphertext: str, encrypt_key: str) -> str:
    """The plaintext of one encrypted event; ``ValueError`` when it does not decrypt."""
    from Crypto.Cipher import AES

    data = base64.b64decode(ciphertext, validate=False)
    if len(data) < 2 * _BLOCK or len(data) % _BLOCK:
        raise ValueError("the ciphertext is not whole AES blocks after its IV")
    key = hashlib.sha256(encrypt_key.encode("utf-8")).digest()
    padded = AES.new(key, AES.MODE_CBC, data[:_BLOCK]).decrypt(data[_BLOCK:])
    pad = padded[-1]
    if not 1 <= pad <= _BLOCK or padded[-pad:] != bytes([pad]) * pad:
        raise ValueError("the padding is not PKCS7: wrong key or tampered data")
    return padded[:-pad].decode("utf-8")
