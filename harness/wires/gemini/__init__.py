"""Gemini (``generateContent`` / ``streamGenerateContent?alt=sse``), Gemini API and Vertex AI.

- ``provider``: ``GeminiProvider``, the runtime provider over google-genai;
- ``parts``: the wire's JSON (request contents, response candidates, usage) read
  and written, shared by every other part;
- ``traffic``: a recorded exchange read for the traffic trace;
- ``simulator``: a scripted reply answered as ``generateContent`` JSON or SSE;
- ``mutations``: mutants of a recorded answer body;
- ``transcript``: a sent ``contents`` entry read as a transcript line.

google-genai is imported only when a provider is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.wires.gemini.provider import GeminiProvider

__all__ = ["GeminiProvider"]

__getattr__ = lazy_getattr(__name__, {"GeminiProvider": "provider"})
