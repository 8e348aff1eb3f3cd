"""One reply rendered as the HTTP answer the simulator would send for a request body.

Used where answers are made up without a server: ``--harness-mutants`` serves
a mutated model response to any agent at the HTTP layer, in the wire format,
JSON or SSE, that the request asked for.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from harness.core.wire_parts import load_part
from harness.core.wires import wire_for_path
from harness.simulator._conversation import ApiError
from harness.simulator._held import HeldConversations
from harness.simulator._script import ErrorReply, Reply
from harness.simulator._wire import Answer, Ids, request_seed

__all__ = ["HeldConversations", "render_reply", "renders"]


def _api(url: str) -> Any:
    """The API answering ``url`` (told by the registry from the path as a client on
    any base URL sends it), or None."""
    path = urlsplit(url).path.rstrip("/")
    entry = wire_for_path(path)
    if entry is None or entry.pending or entry.parts.simulator is None:
        return None  # not a model call, or a wire harness only reads (Bedrock)
    # The renderer lives in the wire's package, a room above: by the registry's dotted path.
    return load_part(entry, "simulator").route(path)


def renders(url: str) -> bool:
    """Whether ``url``'s path is an API the simulator speaks (a model call of a wire
    whose registry entry names a simulator renderer)."""
    return _api(url) is not None


def render_reply(
    url: str,
    body: bytes | str | None,
    reply: Reply | ErrorReply,
    held: HeldConversations | None = None,
) -> Answer:
    """The answer to a request to ``url`` with ``body``: ``reply`` in that API's shape.

    The request is validated as the real API does: an invalid one gets the
    API's 400 instead of ``reply``. ``held`` is the server-held state of the
    run (``previous_response_id``, Anthropic threads): a request continuing an
    answer rendered before with the same ``held`` sees the whole conversation,
    and this answer is kept in turn. Without it nothing is held.

    Raises:
        ValueError: ``url`` is not an API the simulator speaks.
    """
    api = _api(url)
    if api is None:
        raise ValueError(f"the simulator does not speak {urlsplit(url).path}")
    raw = body.encode("utf-8") if isinstance(body, str) else body or b""
    held = held if held is not None else HeldConversations(limit=0)
    try:
        request = held.resume(api, json.loads(raw) if raw else None)
        conversation = api.parse(request)
    except ValueError:
        answer: Answer = api.error_answer("the request body is not JSON")
        return answer
    except ApiError as exc:
        answer = api.error_answer(exc)
        return answer
    if isinstance(reply, ErrorReply):
        answer = api.error_answer(reply, reply.status)
        return answer
    seed = request_seed(raw)
    answer = api.answer(reply, conversation, Ids(seed), conversation.model)
    held.keep(api, request, reply, conversation, seed)
    return answer
