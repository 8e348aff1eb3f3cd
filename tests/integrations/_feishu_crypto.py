"""Feishu's side of event encryption, for tests that send encrypted events."""

from __future__ import annotations

import base64
import hashlib
import os


def encrypt(plaintext: bytes, key: str) -> str:
    """What Feishu does: AES-256-CBC, key sha256(key), random IV first, PKCS7, base64."""
    from Crypto.Cipher import AES

    iv = os.urandom(16)
    pad = 16 - len(plaintext) % 16
    cipher = AES.new(hashlib.sha256(key.encode()).digest(), AES.MODE_CBC, iv)
    return base64.b64encode(iv + cipher.encrypt(plaintext + bytes([pad]) * pad)).decode()
