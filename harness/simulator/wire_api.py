"""What a wire package needs to teach the simulator its format, under public names.

The Chat Completions, Messages and Responses renderers live in this room; a
wire whose behaviour lives in its own package (``harness.wires.*``) renders
with the same pieces: the validated request (``Conversation``), a refusal in
the API's shape (``ApiError``), ids derived from the request, and the answer
bytes.
"""

from __future__ import annotations

from harness.simulator._conversation import ApiError, Conversation, estimate_tokens, text_of
from harness.simulator._wire import Answer, Ids, chunks, json_answer

__all__ = [
    "Answer",
    "ApiError",
    "Conversation",
    "Ids",
    "chunks",
    "estimate_tokens",
    "json_answer",
    "text_of",
]
