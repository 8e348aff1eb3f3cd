"""The Chat Completions mutation codec: recorded answers decoded; no body operators yet.

Harness's own runtime is mutated on decoded ``LLMResponse`` sequences
(``harness.evals.mutations``), read from a cassette by :func:`recorded_decoder`.
An agent on another framework is served those mutants rendered by the
simulator; operators on the recorded body itself, as other wires' codecs have,
are not written for this wire yet, so :func:`body_mutants` gives none.
"""

from __future__ import annotations

from harness.evals.wire_mutations import BodyMutant
from harness.wires.openai.provider import recorded_decoder

__all__ = ["body_mutants", "recorded_decoder"]


def body_mutants(body: bytes | str) -> list[BodyMutant]:
    """No mutants of a recorded body yet (see the module docstring)."""
    return []
