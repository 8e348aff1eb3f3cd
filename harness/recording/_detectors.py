"""The secret shapes the cassette scan looks for: detect-secrets' rules plus a few.

The vendor token formats come from `detect-secrets`_ (Yelp), a maintained rule
set: every regex-based detector its ``plugins`` package ships (GitHub, GitLab,
Slack, Stripe, Twilio, SendGrid, npm, PyPI, AWS, Azure, JWT, PEM private keys,
OpenAI, Discord, Telegram, ...) is used as it is, and a detector added by a
newer release is picked up without a change here. Left out, by name:

- ``IPPublicDetector``: an IP address is no credential;
- ``BasicAuthDetector``: harness's own URL-login rule below is wider (it also
  flags a login without a password);
- the keyword-assignment detectors (``IbmCloudIamDetector``, ``CloudantDetector``,
  ``IbmCosHmacDetector``, ``SoftlayerDetector``): they look for a credential
  *name* next to a value, which harness's named-value rule does for every
  vendor (:mod:`harness.recording._secrets`); they took 60% of the scan's time.

detect-secrets' ``KeywordDetector`` and high-entropy plugins are not regex
detectors and are not used: the first flags any value after ``secret:`` or
``password=`` (prose in a prompt, ``REDACTED`` itself), the second every quoted
random-looking string, and cassettes are full of those (ids, thinking
signatures, base64 images). Harness keeps entropy to values after a credential
name.

Added here, in the form gitleaks' rules give them, are the shapes detect-secrets
1.5 lacks: Hugging Face, npm (``npm_...``, not only in ``.npmrc``), GitHub
fine-grained and Google API keys, Slack app tokens, any PEM private key
(``ENCRYPTED PRIVATE KEY`` too), plus harness's own: ``sk-`` keys, bearer
tokens, AWS key ids and logins in URLs. Importing detect-secrets costs about
0.14 s, so it happens on the first scan, never on a replay.

.. _detect-secrets: https://github.com/Yelp/detect-secrets
"""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Final

__all__ = ["find_shapes", "shape_rules"]

Finder = Callable[[str], Iterable[str]]

# Harness's own rules and the gitleaks-style shapes detect-secrets 1.5 lacks.
# Each starts with its literal prefix and checks the character before it in a
# lookbehind after it, so the regex engine jumps between prefixes (3x faster).
_OWN_RULES: Final = (
    ("api key (sk-...)", r"sk-(?<![A-Za-z0-9_-]sk-)[A-Za-z0-9_-]{10,}"),
    ("bearer token", r"[Bb][Ee][Aa][Rr][Ee][Rr](?<![A-Za-z0-9_]......)\s+[A-Za-z0-9._~+/-]{8,}=*"),
    ("AWS access key id", r"AKIA(?<![A-Za-z0-9_]AKIA)[0-9A-Z]{16}\b"),
    # A base URL's login (``http://user:password@host``); "[REDACTED]@" is already clean.
    (
        "login in a URL (user:password@)",
        r"://(?<=[A-Za-z0-9+.-]://)(?!\[REDACTED\]@)[^/?#@\s\"'<>]+@",
    ),
    ("Hugging Face token", r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z0-9]{30,}"),
    ("Hugging Face token", r"api_org_(?<![A-Za-z0-9_]api_org_)[A-Za-z0-9]{30,}"),
    ("npm token", r"npm_(?<![A-Za-z0-9_]npm_)[A-Za-z0-9]{36}(?![A-Za-z0-9])"),
    ("GitHub token", r"github_pat_(?<![A-Za-z0-9_]github_pat_)[A-Za-z0-9_]{22,}"),
    ("Google API key", r"AIza(?<![A-Za-z0-9_]AIza)[0-9A-Za-z_-]{35}"),
    ("Slack Token", r"xapp-(?<![a-z0-9_]xapp-)\d-[A-Za-z0-9]+-\d+-[A-Za-z0-9]+"),
    ("private key", r"-----BEGIN[A-Z0-9 ]{0,40} PRIVATE KEY(?: BLOCK)?-----"),
)
_LEFT_OUT: Final = frozenset(
    {
        "IPPublicDetector",
        "BasicAuthDetector",
        "IbmCloudIamDetector",
        "CloudantDetector",
        "IbmCosHmacDetector",
        "SoftlayerDetector",
    }
)


def _regex(pattern: str) -> Finder:
    compiled = re.compile(pattern)
    return lambda text: (match.group(0) for match in compiled.finditer(text))


def _detect_secrets_rules() -> list[tuple[str, Finder]]:
    """An instance of every regex detector in detect-secrets' plugins package."""
    import detect_secrets.plugins
    from detect_secrets.plugins.base import RegexBasedDetector

    rules: list[tuple[str, Finder]] = []
    package = detect_secrets.plugins
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for name, cls in sorted(inspect.getmembers(module, inspect.isclass)):
            if (
                cls.__module__ != module.__name__
                or not issubclass(cls, RegexBasedDetector)
                or inspect.isabstract(cls)
                or name in _LEFT_OUT
            ):
                continue
            rules.append((str(cls.secret_type), cls().analyze_string))
    return rules


@functools.cache
def shape_rules() -> tuple[tuple[str, Finder], ...]:
    """Every rule as ``(kind, finder)``: harness's first, then detect-secrets'."""
    own = [(kind, _regex(pattern)) for kind, pattern in _OWN_RULES]
    return (*own, *_detect_secrets_rules())


def find_shapes(text: str) -> Iterator[tuple[str, str]]:
    """``(kind, secret)`` for each key-shaped string in ``text``.

    A secret already found by an earlier rule (or inside one) is not reported
    again: an OpenAI key is one finding, not one per rule that knows it.
    """
    seen: list[str] = []
    for kind, finder in shape_rules():
        for secret in finder(text):
            if not secret or any(secret in earlier or earlier in secret for earlier in seen):
                continue
            seen.append(secret)
            yield kind, secret
