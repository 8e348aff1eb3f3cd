"""``--harness-mutants`` for evals on ``llm_cassette``: mutants served at the HTTP layer.

An agent harness did not build has no provider to swap, so the mutated model
responses are served where its SDK reads them: every model call (a ``POST``
to chat completions, messages or responses) is answered, in order and whatever was
asked, with the next response of the mutant, rendered by the simulator in the
wire format and streaming mode the request asked for. The operators, the
control run and the outcome classes are harness's own (``harness.evals``); a
stored error answer is served as that API's error.

A request mutant (``harness.evals.request_mutants``) serves the recorded
answers (rendered for the body as posted) and then rewrites that body before
the cassette logs the exchange: the test's request checks then read the mutated request, as if the
agent had sent it. Answers are served by position, so the changed body can
never fail a replay match; only a check on what was sent can kill it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from harness.core.errors import CassetteError, ProviderError
from harness.core.wires import ready_wires
from harness.evals.mutant_results import CONTROL
from harness.evals.mutants import MutantExhaustedError
from harness.testing.naming import test_file
from harness.testing.options import HarnessOptions
from harness.testing.rows.traffic_rows import model_api

if TYPE_CHECKING:
    from harness.evals.mutants import PositionalProvider
    from harness.evals.request_mutants import RequestChange

__all__ = [
    "FIXTURE",
    "HttpMutantExhaustedError",
    "HttpMutantResponder",
    "applicable",
    "candidate_ids",
    "cassette_api",
    "llm_target",
    "uses_llm_cassette",
]

FIXTURE = "llm_cassette"
# The wires with a mutation codec (the registry's): their recorded answers decode for mutants.
_MUTABLE = tuple(w.name for w in ready_wires() if w.parts.mutations is not None)


def uses_llm_cassette(item: pytest.Item) -> bool:
    """Whether ``item``'s model traffic goes through a per-test cassette (in process or proxy)."""
    names = getattr(item, "fixturenames", ())
    return FIXTURE in names or "llm_proxy" in names


def _relative_file(path: Path, options: HarnessOptions) -> str:
    return test_file(path, options.rootdir)


def llm_target(item: pytest.Item, options: HarnessOptions) -> Path:
    """The cassette ``llm_cassette`` opens for ``item``
    (see ``harness.testing.cassettes.llm_paths``)."""
    from harness.testing.cassettes.llm_paths import resolve_llm_target

    return resolve_llm_target(item, options).path


def cassette_api(path: Path) -> str:
    """The one wire format of the model calls in ``path`` (a registry wire's name).

    Raises:
        CassetteError: unreadable, no model call, or calls of several APIs.
    """
    import yaml

    from harness.yamlload import load_yaml

    try:
        text = path.read_text("utf-8")
        source = f"cassette {path}"
        data = json.loads(text) if path.suffix == ".json" else load_yaml(text, source=source)
    except yaml.YAMLError as exc:  # names the cassette, the line and the column
        raise CassetteError(f"{exc}; no mutants without a readable recording") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise CassetteError(f"cassette {path} cannot be read for mutants: {exc}") from exc
    interactions = data.get("interactions") if isinstance(data, dict) else None
    apis: dict[str, None] = {}
    for interaction in interactions if isinstance(interactions, list) else []:
        request = interaction.get("request") if isinstance(interaction, dict) else None
        if isinstance(request, dict):
            api = model_api(str(request.get("method", "")), str(request.get("uri", "")))
            if api is not None:
                apis[api] = None
    if not apis:
        raise CassetteError(f"cassette {path} holds no model call to derive mutants from")
    if len(apis) > 1:
        raise CassetteError(
            f"cassette {path} mixes {' and '.join(apis)} calls; mutants are served to one API"
        )
    api = next(iter(apis))
    if api not in _MUTABLE:
        raise CassetteError(f"cassette {path}: no mutation operators for {api} traffic yet")
    return api


def applicable(item: pytest.Item, options: HarnessOptions) -> tuple[set[str], str]:
    """The mutant ids of ``item``'s cassette, or an empty set and the true reason why none."""
    from harness.core.errors import HarnessError
    from harness.evals.mutants import cassette_mutants

    path = llm_target(item, options)
    if not path.is_file():
        return set(), f"no cassette at {path}; record it first"
    try:
        return {m.id for m in cassette_mutants(path, cassette_api(path))}, ""
    except HarnessError as exc:
        return set(), str(exc)


def candidate_ids(function_name: str, path: Path, options: HarnessOptions) -> list[str]:
    """The control plus every mutant id of the cassettes this test function may open."""
    from harness.core.errors import HarnessError
    from harness.evals.mutants import cassette_mutants
    from harness.testing.cassettes.llm_cassette import llm_cassette_path

    folder = llm_cassette_path(
        options.cassette_dir, _relative_file(path, options), function_name, options.model
    ).parent
    ids = [CONTROL]
    for cassette in sorted(folder.glob(f"{function_name}*")):
        if cassette.suffix not in (".yaml", ".yml", ".json"):
            continue
        try:
            mutants = cassette_mutants(cassette, cassette_api(cassette))
        except HarnessError:
            continue  # reported on the item itself, where the path is exact
        ids += [m.id for m in mutants if m.id not in ids]
    return ids


class HttpMutantResponder:
    """A cassette responder that answers each model call with the mutant's next response."""

    def __init__(self, positional: PositionalProvider) -> None:
        from harness.simulator.render import HeldConversations

        self.positional = positional
        self.calls = 0  # model calls answered, the index a request change sees
        # The run's server-held conversations: a mutated answer is kept under
        # its own id, so the request that continues it (``previous_response_id``,
        # an Anthropic thread) is answered, not refused as naming an unknown id.
        self.held = HeldConversations()

    def __call__(self, request: Any) -> dict[str, Any] | None:
        from harness.core.messages import LLMRequest, Message, Role
        from harness.simulator import ErrorReply, Reply, ScriptToolCall
        from harness.simulator.render import render_reply, renders

        api = model_api(request.method, request.uri)
        if api is None or not renders(request.uri):
            return None
        index, self.calls = self.calls, self.calls + 1
        probe = LLMRequest(messages=(Message(role=Role.USER, content="(served by position)"),))
        try:
            response = self.positional.complete(probe)
        except ProviderError as exc:
            if self.positional.exhausted:
                raise _exhausted(exc) from None
            status = exc.status_code if exc.status_code and exc.status_code >= 400 else 500
            reply: Reply | ErrorReply = ErrorReply(status=status, message=str(exc))
        else:
            calls = tuple(
                ScriptToolCall(name=c.name, arguments=dict(c.arguments), id=c.id)
                for c in response.tool_calls
            )
            # A mutant may leave nothing but an empty answer: served as an empty text.
            reply = Reply.model_construct(text=response.text or "", tool_calls=calls, error=None)
        answer = render_reply(request.uri, request.body, reply, self.held)
        if self.positional.change is not None:
            # After rendering: the answer is the recorded one, whatever the change
            # (a reordered history would not pass the simulator's own checks).
            _rewrite(request, api, self.positional.change, index)
        return {
            "status": {"code": answer.status, "message": ""},
            "headers": {"content-type": [answer.content_type]}
            | {name: [value] for name, value in answer.headers},
            "body": {"string": answer.body},
        }


def _rewrite(request: Any, api: str, change: RequestChange, index: int) -> None:
    """Put the request mutant's change into the vcr request's body (JSON bodies only)."""
    body = request.body_bytes if hasattr(request, "body_bytes") else request.body
    try:
        data = json.loads(body or b"")
    except ValueError:
        return
    if isinstance(data, dict):
        request.body = json.dumps(change.apply_body(api, data, index)).encode("utf-8")


class HttpMutantExhaustedError(MutantExhaustedError, CassetteError):
    """The agent asked for more model responses than the mutant holds.

    A ``CassetteError`` too, so that it crosses the SDKs as a replay miss does:
    unwrapped and never retried.
    """


def _exhausted(error: ProviderError) -> CassetteError:
    from harness.recording import passthrough

    return passthrough(HttpMutantExhaustedError(str(error), provider=error.provider))
