"""What a wire package needs to teach the simulator its format, under public names.

Each wire's renderer lives in its own package (``harness.wires.<name>.simulator``)
and renders with these pieces: the validated request (``Conversation``), a
refusal in the API's shape (``ApiError``), ids derived from the request, the
answer bytes (JSON or SSE), and the server-held conversations a wire that keeps
state between requests resumes (``HeldConversations``).
"""

from __future__ import annotations

from harness.simulator._conversation import ApiError, Conversation, estimate_tokens, text_of
from harness.simulator._held import HeldConversations
from harness.simulator._wire import Answer, Ids, chunks, json_answer, sse_answer

__all__ = [
    "Answer",
    "ApiError",
    "Conversation",
    "HeldConversations",
    "Ids",
    "chunks",
    "estimate_tokens",
    "json_answer",
    "sse_answer",
    "text_of",
]
