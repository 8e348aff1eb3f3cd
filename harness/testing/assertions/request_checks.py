"""Checks on what was sent: the model requests of a run, asserted like its trace.

A quality drop can come from configuration alone: an effort default, one
system-prompt line, a tool parameter renamed, a history reordered so the prompt
cache misses. ``assert_requests`` reads every model request of a run, whatever
its wire, as a :class:`~harness.traffic.sent.SentRequest` and checks it::

    from harness.testing import assert_requests, system_sha256

    (assert_requests(llm_cassette)          # or harness_app, a provider, a cassette path
        .model("gpt-5-mini")
        .effort("low")
        .temperature(None)
        .system_sha256("3f2a...")           # sha256 of the system text
        .tools({"read_file", "write_file"}) # or {name: parameters schema}, or .tools_sha256
        .stable_prefix()                    # each request starts with the one before it
        .complete_history())                # no turn dropped between requests

Each check covers every request, or the ones ``at(i)`` / ``where(predicate)``
select; the checks across turns compare each request with the one before it in
its conversation (the latest earlier request it shares a message with, so a
sub-agent's requests in between are their own conversation). A failure raises
:class:`RequestAssertionError` (a ``TraceAssertionError``) naming the request,
what was expected, what was sent and how to fix it.

For a harness run the requests are the ones harness's runtime handed its
provider at the edge (after any request mutant); ``effort`` and
``temperature`` are the provider's configuration (``reasoning_effort``,
``temperature``). For ``llm_cassette`` they are the HTTP requests the agent's
SDK sent, read per wire.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness.core import TraceAssertionError
from harness.traffic.sent import (
    SentMessage,
    SentRequest,
    sent_from_exchanges,
    sent_from_llm_request,
    sha256_text,
)

if TYPE_CHECKING:
    from harness.evals.request_spec import RequestSpec

__all__ = [
    "RequestAssertionError",
    "RequestChecks",
    "SentRequest",
    "assert_requests",
    "request_spec_failures",
    "sent_requests",
    "system_sha256",
]


class RequestAssertionError(TraceAssertionError):
    """A model request did not carry what the test expected; the message says which."""


def system_sha256(text: str) -> str:
    """The digest ``RequestChecks.system_sha256`` compares: SHA-256 of the system text."""
    return sha256_text(text)


def _chain(provider: Any) -> list[Any]:
    """``provider`` and every provider it wraps (``.inner``), outermost first."""
    chain = [provider]
    while (inner := getattr(chain[-1], "inner", None)) is not None and len(chain) < 16:
        chain.append(inner)
    return chain


def _from_provider(provider: Any) -> list[SentRequest]:
    chain = _chain(provider)
    # The innermost log is what reached the edge: a request mutant rewrites the
    # request on its way in, after any outer logger saw it.
    logged = [p for p in chain if isinstance(getattr(p, "requests", None), list)]
    if not logged:
        raise RequestAssertionError(
            f"{type(provider).__name__} keeps no log of its requests: wrap it in "
            "harness.providers.RequestLoggingProvider (harness_app does) or pass the requests"
        )
    stated = {
        name: next((getattr(p, name) for p in chain if getattr(p, name, None) is not None), None)
        for name in ("model", "reasoning_effort", "temperature")
    }
    return [
        sent_from_llm_request(
            request,
            model=stated["model"],
            effort=stated["reasoning_effort"],
            temperature=stated["temperature"],
            index=i,
        )
        for i, request in enumerate(logged[-1].requests)
    ]


def sent_requests(source: Any) -> list[SentRequest]:
    """The model requests of ``source``, in order, as ``SentRequest`` views.

    ``source`` is an ``llm_cassette``, a harness ``Application`` (``harness_app``),
    a provider that logs its requests (``ScriptedProvider``,
    ``RequestLoggingProvider``), a cassette path, or a sequence of
    ``SentRequest``, ``LLMRequest`` or ``HttpExchange`` values.

    Raises:
        RequestAssertionError: ``source`` is none of these.
        CassetteError: a cassette path that cannot be read.
    """
    from harness.core.messages import LLMRequest
    from harness.traffic import HttpExchange, exchanges_from_cassette

    if isinstance(source, RequestChecks):
        return list(source.requests)
    if isinstance(source, str | os.PathLike):
        return sent_from_exchanges(exchanges_from_cassette(source))
    # ``handle`` is looked up on the class: on an llm_proxy the instance's property
    # raises (it has no in-process cassette), which ``hasattr`` does not catch.
    if callable(getattr(source, "exchanges", None)) and hasattr(type(source), "handle"):
        from harness.testing.cassettes.http_exchanges import http_exchanges

        return sent_from_exchanges(http_exchanges(source.exchanges()))
    if hasattr(source, "provider") and hasattr(source, "run"):  # an Application
        return _from_provider(source.provider)
    if callable(getattr(source, "complete", None)):
        return _from_provider(source)
    if isinstance(source, Sequence):
        items = list(source)
        if all(isinstance(i, SentRequest) for i in items):
            return items
        if all(isinstance(i, LLMRequest) for i in items):
            return [sent_from_llm_request(r, index=n) for n, r in enumerate(items)]
        if all(isinstance(i, HttpExchange) for i in items):
            return sent_from_exchanges(items)
    raise RequestAssertionError(
        f"cannot read model requests from {type(source).__name__}: pass llm_cassette, "
        "harness_app, a provider that logs requests, a cassette path, or a list of requests"
    )


def assert_requests(source: Any) -> RequestChecks:
    """Checks on every model request of ``source`` (see :func:`sent_requests`).

    Raises:
        RequestAssertionError: ``source`` sent no model request at all.
    """
    requests = sent_requests(source)
    if not requests:
        raise RequestAssertionError(
            "no model request was sent: run the agent before checking its requests "
            "(for llm_cassette, inside the test, while the cassette is open)"
        )
    return RequestChecks(tuple(requests), len(requests))


def _short(text: str | None, limit: int = 80) -> str:
    if text is None:
        return "nothing"
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


def _show(message: SentMessage) -> str:
    return f"{message.role} {_short(message.text, 60)}"


class RequestChecks:
    """A fluent set of checks over some of a run's model requests; each returns ``self``."""

    def __init__(self, requests: tuple[SentRequest, ...], total: int) -> None:
        self.requests = requests
        self._total = total

    # -- selection ----------------------------------------------------------
    def at(self, index: int) -> RequestChecks:
        """Only request ``index`` (0-based, negative from the end)."""
        try:
            chosen = self.requests[index]
        except IndexError:
            raise RequestAssertionError(
                f"no request {index}: the run sent {len(self.requests)} model request(s) "
                "(indexes count from 0; -1 is the last)"
            ) from None
        return RequestChecks((chosen,), self._total)

    def where(self, predicate: Callable[[SentRequest], bool]) -> RequestChecks:
        """Only the requests ``predicate`` accepts (one conversation of several, say)."""
        chosen = tuple(r for r in self.requests if predicate(r))
        if not chosen:
            raise RequestAssertionError(
                f"no request matched the predicate among {len(self.requests)} sent"
            )
        return RequestChecks(chosen, self._total)

    # -- settings -----------------------------------------------------------
    def _name(self, request: SentRequest) -> str:
        return f"request {request.index} of {self._total} ({request.wire})"

    def _each(self, what: str, expected: Any, sent: Callable[[SentRequest], Any], fix: str) -> None:
        for request in self.requests:
            value = sent(request)
            if value != expected:
                raise RequestAssertionError(
                    f"{self._name(request)}: {what}: expected {expected!r}, sent {value!r}; {fix}"
                )

    def model(self, expected: str) -> RequestChecks:
        """Every selected request names model ``expected``."""
        self._each(
            "model",
            expected,
            lambda r: r.model,
            "pass the model to the agent's client (llm_cassette.model, --harness-model)",
        )
        return self

    def effort(self, expected: str | None) -> RequestChecks:
        """Reasoning effort, normalised: ``"low"``, ``"budget:2048"``, ``"adaptive"``, or None."""
        self._each(
            "effort",
            expected,
            lambda r: r.effort,
            "set reasoning_effort / reasoning.effort / thinking / thinkingConfig where the "
            "agent builds its request (None: the request states none)",
        )
        return self

    def temperature(self, expected: float | None) -> RequestChecks:
        """Sampling temperature (None: the request states none, the API default applies)."""
        self._each(
            "temperature",
            None if expected is None else float(expected),
            lambda r: r.temperature,
            "set temperature where the agent builds its request",
        )
        return self

    def system_sha256(self, expected: str) -> RequestChecks:
        """The system text's SHA-256 (:func:`system_sha256`), so a test pins it unpasted."""
        for request in self.requests:
            sent = request.system_sha256
            if sent != expected.lower():
                raise RequestAssertionError(
                    f"{self._name(request)}: system prompt sha256: expected {expected}, "
                    f"sent {sent} (system text {_short(request.system)}); if the prompt "
                    f"changed on purpose, pin the new one: .system_sha256({sent!r})"
                )
        return self

    def tools(self, expected: Iterable[str] | Mapping[str, Any]) -> RequestChecks:
        """The tools shown: a set of names, or ``{name: parameters schema}`` for both."""
        schemas = dict(expected) if isinstance(expected, Mapping) else None
        names = sorted(schemas) if schemas is not None else sorted(set(expected))
        for request in self.requests:
            sent = sorted(request.tool_names)
            if sent != names:
                missing = sorted(set(names) - set(sent))
                extra = sorted(set(sent) - set(names))
                raise RequestAssertionError(
                    f"{self._name(request)}: tools: expected {names}, sent {sent} "
                    f"(missing {missing}, unexpected {extra}); register the same tools "
                    "or update the expected set"
                )
            if schemas is None:
                continue
            for tool in request.tools:
                if tool.parameters != schemas[tool.name]:
                    raise RequestAssertionError(
                        f"{self._name(request)}: tool {tool.name!r} parameters: expected "
                        f"{schemas[tool.name]!r}, sent {tool.parameters!r}; a renamed or "
                        "retyped parameter changes what the model can call"
                    )
        return self

    def tools_sha256(self, expected: str) -> RequestChecks:
        """SHA-256 of the tools' names and parameter schemas (``SentRequest.tools_sha256``)."""
        for request in self.requests:
            if request.tools_sha256 != expected.lower():
                raise RequestAssertionError(
                    f"{self._name(request)}: tool schemas sha256: expected {expected}, sent "
                    f"{request.tools_sha256} for tools {list(request.tool_names)}; if the "
                    f"tools changed on purpose, pin .tools_sha256({request.tools_sha256!r})"
                )
        return self

    # -- across turns ---------------------------------------------------------
    def _pairs(self) -> Iterable[tuple[SentRequest, SentRequest]]:
        """Each request with the one before it in its conversation.

        That is the latest earlier request it shares a message with: a sub-agent's
        or a judge's requests, which share none with the agent's, are a
        conversation of their own, even when they come in between. A request that
        continues a history the server keeps (``previous_response_id``) re-sends
        none, so it is not compared.
        """
        for n, after in enumerate(self.requests):
            if after.continues is not None:
                continue
            keys = {m.key for m in after.messages}
            before = next(
                (r for r in reversed(self.requests[:n]) if keys & {m.key for m in r.messages}),
                None,
            )
            if before is not None:
                yield before, after

    def stable_prefix(self) -> RequestChecks:
        """Each request starts with the one before it: same system text, same messages
        in the same order. A changed or reordered prefix is a prompt-cache miss."""
        fix = (
            "keep earlier turns byte-identical and append new ones at the end: a changed, "
            "reordered or dropped turn makes the prompt cache miss from that point on"
        )
        for before, after in self._pairs():
            where = f"{self._name(after)} against request {before.index}"
            if after.system != before.system:
                raise RequestAssertionError(
                    f"{where}: the system text changed (was {_short(before.system)}, sent "
                    f"{_short(after.system)}); {fix}"
                )
            if len(after.messages) < len(before.messages):
                raise RequestAssertionError(
                    f"{where}: {len(after.messages)} message(s) sent after "
                    f"{len(before.messages)}: the history shrank; {fix}"
                )
            for n, (old, new) in enumerate(zip(before.messages, after.messages, strict=False)):
                if old.key != new.key:
                    raise RequestAssertionError(
                        f"{where}: message {n} differs (was {_show(old)}, sent {_show(new)}); {fix}"
                    )
        return self

    def complete_history(self) -> RequestChecks:
        """No turn dropped: every message of a request is sent again, in order, by the
        next, followed by the model's answer (an assistant message)."""
        for before, after in self._pairs():
            where = f"{self._name(after)} against request {before.index}"
            keys = [m.key for m in after.messages]
            position = 0
            for n, message in enumerate(before.messages):
                try:
                    position = keys.index(message.key, position) + 1
                except ValueError:
                    raise RequestAssertionError(
                        f"{where}: message {n} ({_show(message)}) was dropped; send the whole "
                        "history (or check a compacting agent with stable_prefix only "
                        "where it does not compact)"
                    ) from None
            if not any(m.role == "assistant" for m in after.messages[position:]):
                raise RequestAssertionError(
                    f"{where}: the model's answer to request {before.index} is missing (no "
                    "assistant message after the history); append the answer before the "
                    "tool results or the next user turn"
                )
        return self


def request_spec_failures(spec: RequestSpec, source: Any) -> list[str]:
    """Every failed check of a case's ``request:`` block on ``source``'s requests, as lines."""
    failures: list[str] = []
    try:
        checks = assert_requests(source)
    except RequestAssertionError as exc:
        return [f"request: {exc}"]
    chosen = spec.model_fields_set
    steps: list[Callable[[], object]] = []
    if "model" in chosen and spec.model is not None:
        steps.append(lambda: checks.model(str(spec.model)))
    if "effort" in chosen:
        steps.append(lambda: checks.effort(spec.effort))
    if "temperature" in chosen:
        steps.append(lambda: checks.temperature(spec.temperature))
    if spec.system_sha256 is not None:
        steps.append(lambda: checks.system_sha256(str(spec.system_sha256)))
    if spec.tools is not None:
        steps.append(lambda: checks.tools(spec.tools or ()))
    if spec.tools_sha256 is not None:
        steps.append(lambda: checks.tools_sha256(str(spec.tools_sha256)))
    if spec.stable_prefix:
        steps.append(checks.stable_prefix)
    if spec.complete_history:
        steps.append(checks.complete_history)
    for step in steps:
        try:
            step()
        except RequestAssertionError as exc:
            failures.append(f"request: {exc}")
    return failures
