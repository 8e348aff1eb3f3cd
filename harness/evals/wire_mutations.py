"""Mutants of a recorded response *body*: (request path, body) -> mutated bodies.

``harness.evals.mutations`` perturbs decoded ``LLMResponse`` sequences, which
serves harness's own runtime. An agent built on another framework reads the
HTTP answer itself, so a mutant for it must be a body its SDK parses: the
operators perturb the wire format directly, one function of the recorded body,
no cassette, provider or SDK involved.

Each wire's operators live in its own package, its mutation codec
(``harness.wires.<name>.mutations``, the registry's ``parts.mutations``):
:func:`body_mutants` tells the wire from the request path and asks it. A wire
with no body operators yet (Chat Completions, Messages) gives none.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.core.wire_parts import load_part
from harness.core.wires import wire_for_path

__all__ = ["BodyMutant", "body_mutants"]


@dataclass(frozen=True, slots=True)
class BodyMutant:
    """One mutated body: ``id`` is ``<operator>.<site>`` (1-based), stable per body."""

    id: str
    operator: str
    description: str
    body: bytes


def body_mutants(path: str, body: bytes | str) -> list[BodyMutant]:
    """The mutants of the answer ``body`` to a request for ``path`` (its URL path)."""
    entry = wire_for_path(path.split("?", 1)[0])
    if entry is None or entry.pending or entry.parts.mutations is None:
        return []
    # The codec lives in the wire's package, a room above: by the registry's dotted path.
    mutants: list[BodyMutant] = load_part(entry, "mutations").body_mutants(body)
    return mutants
