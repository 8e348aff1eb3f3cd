"""Checking and decoding a Feishu webhook request before anything acts on it.

Order, as Feishu defines it: decrypt ``{"encrypt": ...}`` (AES-256-CBC keyed
by sha256(FEISHU_ENCRYPT_KEY), IV in the first 16 bytes), check the
verification token (``header.token`` in schema 2.0, top-level ``token``
otherwise), answer a URL-verification challenge, and for events check
``X-Lark-Signature`` = sha256(timestamp + nonce + encrypt_key + body), and
that the signed timestamp is within ``MAX_EVENT_AGE_SECONDS`` of now (a
captured request replayed later is refused; the de-duplication of event ids
covers a replay inside that window). Bodies nested deeper than
``MAX_JSON_DEPTH`` are refused before ``json.loads`` sees them. Any failure
raises ``WebhookRejected`` and nothing is acted on.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.core.errors import HarnessError
from harness.integrations.feishu._bounded_json import MAX_JSON_DEPTH, JsonTooDeep, loads_bounded
from harness.integrations.feishu._cipher import decrypt_event

__all__ = [
    "MAX_EVENT_AGE_SECONDS",
    "VerifiedWebhook",
    "WebhookRejected",
    "feishu_signature",
    "verify_webhook",
]

MAX_EVENT_AGE_SECONDS = 300
"""A signed event whose timestamp is further than this from now (either way) is refused."""

TIMESTAMP_HEADER = "X-Lark-Request-Timestamp"
NONCE_HEADER = "X-Lark-Request-Nonce"
SIGNATURE_HEADER = "X-Lark-Signature"


class WebhookRejected(HarnessError):
    """A webhook request failed a check; answer ``status`` and do nothing.

    Attributes:
        status: 400 for a malformed body, 401 for failed authentication, 413
            for a body over the size limit.
    """

    def __init__(self, message: str, *, status: int = 401) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class VerifiedWebhook:
    """A request that passed every check: a challenge to echo, or an event payload."""

    payload: Mapping[str, Any] = field(default_factory=dict)
    challenge: str | None = None


def feishu_signature(timestamp: str, nonce: str, encrypt_key: str, body: bytes) -> str:
    """The ``X-Lark-Signature`` Feishu computes for ``body``."""
    digest = hashlib.sha256((timestamp + nonce + encrypt_key).encode("utf-8") + body)
    return digest.hexdigest()


def verify_webhook(
    body: bytes,
    headers: Mapping[str, str],
    *,
    verification_token: str,
    encrypt_key: str = "",
    now: float | None = None,
) -> VerifiedWebhook:
    """Authenticate and decode one webhook request.

    Args:
        body: the raw request body.
        headers: the request headers (looked up case-insensitively).
        verification_token: FEISHU_VERIFICATION_TOKEN; required.
        encrypt_key: FEISHU_ENCRYPT_KEY; when set, only encrypted, signed
            events are accepted, and only within ``MAX_EVENT_AGE_SECONDS``.
        now: the current Unix time (seconds); ``time.time()`` when None.

    Raises:
        WebhookRejected: malformed (400) or not authentic (401).
    """
    if not verification_token:
        raise WebhookRejected("FEISHU_VERIFICATION_TOKEN is not set; refusing every event")
    document = _json_object(body)
    if "encrypt" in document:
        if not encrypt_key:
            raise WebhookRejected("an encrypted event arrived but FEISHU_ENCRYPT_KEY is not set")
        document = _json_object(_decrypt(document["encrypt"], encrypt_key).encode("utf-8"))
    elif encrypt_key:
        raise WebhookRejected("a plaintext event arrived but FEISHU_ENCRYPT_KEY is set")
    _check_token(document, verification_token)
    if document.get("type") == "url_verification":
        # Feishu does not sign the challenge; the token above authenticates it.
        return VerifiedWebhook(challenge=str(document.get("challenge", "")))
    if encrypt_key:
        _check_signature(body, headers, encrypt_key, time.time() if now is None else now)
    return VerifiedWebhook(payload=document)


def _json_object(raw: bytes) -> dict[str, Any]:
    try:
        document = loads_bounded(raw)
    except JsonTooDeep:
        raise WebhookRejected(
            f"the body nests JSON deeper than {MAX_JSON_DEPTH} levels", status=400
        ) from None
    except ValueError:  # JSONDecodeError, UnicodeDecodeError
        raise WebhookRejected("the body is not JSON", status=400) from None
    if not isinstance(document, dict):
        raise WebhookRejected("the body is not a JSON object", status=400)
    return document


def _decrypt(ciphertext: Any, encrypt_key: str) -> str:
    if not isinstance(ciphertext, str):
        raise WebhookRejected("the encrypt field is not a string")
    try:
        plaintext = decrypt_event(ciphertext, encrypt_key)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        # Wrong key or tampered data; never echo either back.
        raise WebhookRejected("the event could not be decrypted with FEISHU_ENCRYPT_KEY") from None
    return plaintext


def _check_token(document: Mapping[str, Any], expected: str) -> None:
    header = document.get("header")
    if document.get("schema") == "2.0" and isinstance(header, Mapping):
        token = header.get("token")
    else:
        token = document.get("token")
    if not isinstance(token, str) or not hmac.compare_digest(
        token.encode("utf-8"), expected.encode("utf-8")
    ):
        raise WebhookRejected("the verification token does not match")


def _check_signature(body: bytes, headers: Mapping[str, str], encrypt_key: str, now: float) -> None:
    lowered = {key.lower(): value for key, value in headers.items()}
    timestamp = lowered.get(TIMESTAMP_HEADER.lower())
    nonce = lowered.get(NONCE_HEADER.lower())
    signature = lowered.get(SIGNATURE_HEADER.lower())
    if not (timestamp and nonce and signature):
        raise WebhookRejected("the event is not signed (X-Lark-Signature headers missing)")
    expected = feishu_signature(timestamp, nonce, encrypt_key, body)
    if not hmac.compare_digest(expected, signature):
        raise WebhookRejected("the X-Lark-Signature does not match")
    # The timestamp is signed, so it can be trusted once the signature matched.
    try:
        sent = int(timestamp)
    except ValueError:
        raise WebhookRejected("the X-Lark-Request-Timestamp is not a Unix time") from None
    if abs(now - sent) > MAX_EVENT_AGE_SECONDS:
        raise WebhookRejected(
            f"the signed event is {int(now - sent)} s from now, beyond the "
            f"{MAX_EVENT_AGE_SECONDS} s allowed (a replayed or delayed request)"
        )
