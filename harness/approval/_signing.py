"""HMAC-SHA256 signatures over approval records and checkpoints.

The signature covers the whole canonical JSON of the *validated* model (every
field but ``signature``): sorted keys, no spaces, the text pydantic writes. On
read the raw file must also canonicalise to exactly that text, so nothing can
hide in what validation would drop or coerce: an extra field, a duplicate key,
``true`` for ``1``, another spelling of a timestamp. Each document kind signs
under its own label, so one kind's signature never verifies as another's.

Hand-written on purpose: it is the trust boundary, and the stdlib ``hmac``
with ``compare_digest`` is all it needs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from harness.core.errors import ApprovalError
from harness.jsonload import JsonTooDeepError, load_json

__all__ = ["ApprovalSigner", "canonical_json", "read_signed_document"]

ModelT = TypeVar("ModelT", bound=BaseModel)

SIGNATURE_FIELD = "signature"


def canonical_json(data: Any) -> str:
    """The one text a JSON value signs as: sorted keys, no spaces, UTF-8 as is."""
    return json.dumps(data, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _model_canonical(model: BaseModel) -> str:
    # Through pydantic's JSON, so the text is what the file holds (NaN -> null, ...).
    return canonical_json(json.loads(model.model_dump_json(exclude={SIGNATURE_FIELD})))


class ApprovalSigner:
    """Signs and verifies approval documents with one key.

    Args:
        key: the key, or a function that loads it on first use (so a harness
            that never pauses a call never touches the key file).
    """

    def __init__(self, key: bytes | Callable[[], bytes]) -> None:
        self._key = key if isinstance(key, bytes) else None
        self._loader = None if isinstance(key, bytes) else key
        self._lock = threading.Lock()

    def key(self) -> bytes:
        with self._lock:
            if self._key is None:
                assert self._loader is not None
                self._key = self._loader()
            return self._key

    def signature(self, model: BaseModel) -> str:
        """The hex HMAC of ``model`` (its ``signature`` field left out)."""
        return self._digest(type(model).__name__, _model_canonical(model))

    def sign(self, model: ModelT) -> ModelT:
        """``model`` with its ``signature`` field set."""
        return model.model_copy(update={SIGNATURE_FIELD: self.signature(model)})

    def verify(self, model: BaseModel, *, what: str) -> None:
        """Raise ``ApprovalError`` unless ``model``'s signature is this key's."""
        given = getattr(model, SIGNATURE_FIELD, "")
        expected = self.signature(model)
        if not isinstance(given, str) or not hmac.compare_digest(given, expected):
            raise ApprovalError(
                f"{what} has an invalid signature: it was changed after harness wrote it, or "
                "signed with another key (HARNESS_APPROVAL_KEY or the key file changed); "
                "nothing was executed, run the prompt again to get a new approval"
            )

    def digest(self, label: str, text: str) -> str:
        """The hex HMAC of ``text`` under ``label`` (other documents than approvals)."""
        return self._digest(label, text)

    def _digest(self, label: str, text: str) -> str:
        message = f"harness/{label}\n{text}".encode()
        return hmac.new(self.key(), message, hashlib.sha256).hexdigest()


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def read_signed_document(
    path: Path,
    model: type[ModelT],
    version: int,
    signer: ApprovalSigner,
    *,
    what: str,
    consequence: str,
) -> ModelT:
    """Load ``path`` as a signed ``model``; every doubt raises ``ApprovalError``.

    Refused: a missing, unreadable or non-JSON file, duplicate keys, another
    ``schema_version`` (older ones were unsigned), invalid or extra fields, a
    text that is not the canonical form of the validated model, a bad signature.
    """
    tail = f"; {consequence}"
    try:
        data = load_json(
            path.read_bytes(), source=f"{what} {path}", object_pairs_hook=_no_duplicates
        )
    except FileNotFoundError:
        raise ApprovalError(f"{what} {path} does not exist{tail}") from None
    except JsonTooDeepError as exc:
        raise ApprovalError(f"{exc}{tail}") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ApprovalError(f"{what} {path} is unreadable or corrupt ({exc}){tail}") from None
    if not isinstance(data, dict):
        raise ApprovalError(f"{what} {path} is not a JSON object{tail}")
    found = data.get("schema_version")
    if found != version:
        older = isinstance(found, int) and not isinstance(found, bool) and found < version
        why = (
            "it was written by an older harness without a signature and cannot be trusted"
            if older
            else f"this harness reads version {version}"
        )
        raise ApprovalError(f"{what} {path} has schema_version {found!r}: {why}{tail}")
    try:
        document = model.model_validate(data)
    except ValidationError as exc:
        raise ApprovalError(f"{what} {path} is invalid: {exc}{tail}") from None
    raw = dict(data)
    raw.pop(SIGNATURE_FIELD, None)
    if canonical_json(raw) != _model_canonical(document):
        raise ApprovalError(
            f"{what} {path} is not in the form harness writes (a value was reformatted, "
            f"coerced or added); it cannot be trusted{tail}"
        )
    signer.verify(document, what=f"{what} {path}")
    return document
