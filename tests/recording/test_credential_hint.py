"""The credential pre-check finds exactly what the case-blind pattern finds."""

from __future__ import annotations

import re

from hypothesis import example, given
from hypothesis import strategies as st

from harness.recording._redact import _HINT, may_hold_credentials

PATTERN = re.compile(_HINT, re.IGNORECASE)
BYTES_PATTERN = re.compile(_HINT.encode(), re.IGNORECASE)

# Text made mostly of the hints' own letters and their neighbours, so that near
# misses ("tokens", "ke", "TOKEN" at the end) come up often.
PIECES = st.sampled_from(
    [
        "token",
        "tokens",
        "TOKEN",
        "Tokens",
        "key",
        "KEY",
        "ke",
        "secret",
        "Secre",
        "passw",
        "PASSW",
        "credential",
        "authoriz",
        "AUTHORIZ",
        "s",
        "S",
        '"',
        ":",
        " ",
        "_",
        "\u212a",
        "\u017f",
        "\u00e9",
        "input_tokens",
        "api_key",
    ]
)
TEXTS = st.one_of(st.text(), st.lists(PIECES, max_size=12).map("".join))


@given(TEXTS)
@example("token")
@example("tokens")
@example("x_tokenS")
@example("\u212aey")  # the Kelvin sign: a "k" to the pattern
def test_text_agrees_with_the_pattern(text: str) -> None:
    assert may_hold_credentials(text) == (PATTERN.search(text) is not None)


@given(st.one_of(st.binary(), TEXTS.map(lambda t: t.encode("utf-8"))))
@example(b"TOKEN")
@example(b"prompt_tokens token")
def test_bytes_agree_with_the_pattern(data: bytes) -> None:
    assert may_hold_credentials(data) == (BYTES_PATTERN.search(data) is not None)
