"""Request mutants: configuration regressions, served by changing what the agent sends.

Response mutants change what the model answers; these change the request, the
way a configuration slip would: a system-prompt line dropped, another reasoning
effort, a tool parameter renamed, the cached prefix reordered. The model's
answers stay the recorded ones, served by position as for every mutant, so no
replay match can fail on the changed request: a request mutant is killed only
when a check on what was sent notices it (``assert_requests``, a case's
``request:`` block). An eval that checks nothing about the request survives
every one of them, and the mutant table says so.

Where the change is made:

- a harness run: at the edge, by the ``PositionalProvider`` that stands in for
  the model: the runtime's request is rewritten as it arrives, and that is the
  request the run's checks read (the innermost request log);
- an ``llm_cassette`` agent: at the HTTP layer, by the mutant responder: the
  body the agent's SDK posted is rewritten before the cassette logs the
  exchange, so the checks read the mutated request as if the agent had sent it.

Which mutants apply is read from the cassette's recorded requests: a prompt
with a system text, a tool with parameters, a second request whose history
has two items to swap.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from harness.core.messages import LLMRequest, Role, ToolDefinition
from harness.evals.mutations import Mutant, Recorded
from harness.traffic.sent import SentRequest

__all__ = [
    "REQUEST_OPERATORS",
    "RequestChange",
    "RequestMutant",
    "change_of",
    "derive_request_mutants",
    "drop_line",
    "is_request_operator",
    "recorded_effort_of",
    "renamed_schema",
]

REQUEST_OPERATORS: Final = ("drop_system_line", "change_effort", "rename_param", "reorder_prefix")
_SYSTEM_ROLES: Final = ("system", "developer")


def is_request_operator(operator: str) -> bool:
    """Whether ``operator`` changes the request (a configuration mutant)."""
    return operator in REQUEST_OPERATORS


@dataclass(frozen=True, slots=True)
class RequestChange:
    """One change to every request of a run (``reorder_prefix``: every request after the first).

    ``effort`` is the effort the run then states; ``tool``/``param``/``renamed``
    name the parameter ``rename_param`` renames.
    """

    operator: str
    effort: str | None = None
    tool: str = ""
    param: str = ""
    renamed: str = ""

    # -- harness's runtime ------------------------------------------------------
    def apply(self, request: LLMRequest, index: int) -> LLMRequest:
        """The request the runtime would have sent under this change."""
        if self.operator == "drop_system_line":
            messages = list(request.messages)
            for n, message in enumerate(messages):
                if message.role is Role.SYSTEM:
                    messages[n] = message.model_copy(update={"content": drop_line(message.content)})
                    break
            return request.model_copy(update={"messages": tuple(messages)})
        if self.operator == "rename_param":
            tools = tuple(self._tool(t) for t in request.tools)
            return request.model_copy(update={"tools": tools})
        if self.operator == "reorder_prefix" and index > 0:
            swapped = _swap_first_two(list(request.messages), lambda m: m.role is not Role.SYSTEM)
            return request.model_copy(update={"messages": tuple(swapped)})
        return request  # change_effort: the provider states the effort (``effort``)

    def _tool(self, tool: ToolDefinition) -> ToolDefinition:
        if tool.name != self.tool:
            return tool
        parameters = renamed_schema(tool.parameters, self.param, self.renamed)
        return tool.model_copy(update={"parameters": parameters})

    # -- an HTTP request body -------------------------------------------------
    def apply_body(self, wire: str, body: dict[str, Any], index: int) -> dict[str, Any]:
        """The body an agent would have posted under this change (a changed copy)."""
        changed = copy.deepcopy(body)
        if self.operator == "drop_system_line":
            _drop_system_line(wire, changed)
        elif self.operator == "change_effort":
            _set_effort(wire, changed, self.effort)
        elif self.operator == "rename_param":
            for schema_holder, key in _schemas(wire, changed):
                if schema_holder.get("name") == self.tool:
                    schema_holder[key] = renamed_schema(
                        schema_holder[key], self.param, self.renamed
                    )
        elif self.operator == "reorder_prefix" and index > 0:
            items_key = {"openai-responses": "input", "gemini": "contents"}.get(wire, "messages")
            items = changed.get(items_key)
            if isinstance(items, list):
                changed[items_key] = _swap_first_two(items, _not_system)
        return changed


@dataclass(frozen=True, slots=True)
class RequestMutant(Mutant):
    """A mutant that serves the recorded answers and changes the requests."""

    change: RequestChange = RequestChange("drop_system_line")


def drop_line(text: str) -> str:
    """``text`` without its last non-blank line."""
    lines = text.split("\n")
    for n in range(len(lines) - 1, -1, -1):
        if lines[n].strip():
            return "\n".join(lines[:n] + lines[n + 1 :])
    return text


def renamed_schema(schema: Any, old: str, new: str) -> Any:
    """A JSON schema with property ``old`` called ``new`` (and in ``required``)."""
    if not isinstance(schema, dict) or not isinstance(schema.get("properties"), dict):
        return schema
    properties = {(new if k == old else k): v for k, v in schema["properties"].items()}
    changed = {**schema, "properties": properties}
    if isinstance(schema.get("required"), list):
        changed["required"] = [new if r == old else r for r in schema["required"]]
    return changed


def _not_system(item: Any) -> bool:
    return not (isinstance(item, dict) and item.get("role") in _SYSTEM_ROLES)


_T = TypeVar("_T")


def _swap_first_two(items: list[_T], counts: Callable[[_T], bool]) -> list[_T]:
    places = [n for n, item in enumerate(items) if counts(item)][:2]
    if len(places) == 2:
        first, second = places
        items[first], items[second] = items[second], items[first]
    return items


def _drop_in_content(holder: dict[str, Any], key: str) -> bool:
    value = holder.get(key)
    if isinstance(value, str) and value:
        holder[key] = drop_line(value)
        return True
    if isinstance(value, list):
        for part in value:
            if isinstance(part, dict) and isinstance(part.get("text"), str) and part["text"]:
                part["text"] = drop_line(part["text"])
                return True
    return False


def _drop_system_line(wire: str, body: dict[str, Any]) -> None:
    if wire == "anthropic":
        _drop_in_content(body, "system")
    elif wire == "gemini":
        holder = body.get("systemInstruction") or body.get("system_instruction")
        if isinstance(holder, dict):
            _drop_in_content(holder, "parts")
    elif wire == "openai-responses" and _drop_in_content(body, "instructions"):
        return
    else:
        key = "input" if wire == "openai-responses" else "messages"
        for item in body.get(key) or []:
            if isinstance(item, dict) and item.get("role") in _SYSTEM_ROLES:
                _drop_in_content(item, "content")
                return


def _set_effort(wire: str, body: dict[str, Any], effort: str | None) -> None:
    if wire == "openai":
        body["reasoning_effort"] = effort
    elif wire == "openai-responses":
        body["reasoning"] = {**(body.get("reasoning") or {}), "effort": effort}
    elif wire == "anthropic":
        body["output_config"] = {**(body.get("output_config") or {}), "effort": effort}
    elif wire == "gemini":
        config = body.setdefault("generationConfig", {})
        config["thinkingConfig"] = {**(config.get("thinkingConfig") or {}), "thinkingLevel": effort}


def _schemas(wire: str, body: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """``(holder, key)`` of every tool's parameter schema (the holder has the ``name``)."""
    found: list[tuple[dict[str, Any], str]] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if wire == "openai" and isinstance(tool.get("function"), dict):
            found.append((tool["function"], "parameters"))
        elif wire == "anthropic":
            found.append((tool, "input_schema"))
        elif wire == "gemini":
            for declaration in tool.get("functionDeclarations") or []:
                key = (
                    "parametersJsonSchema"
                    if "parametersJsonSchema" in declaration
                    else "parameters"
                )
                found.append((declaration, key))
        else:
            found.append((tool, "parameters"))
    return [(holder, key) for holder, key in found if key in holder]


def _other_effort(recorded: str | None) -> str:
    return "low" if recorded == "high" else "high"


def _first_param(requests: Sequence[SentRequest]) -> tuple[str, str] | None:
    for request in requests:
        for tool in request.tools:
            properties = (
                tool.parameters.get("properties") if isinstance(tool.parameters, dict) else None
            )
            if isinstance(properties, dict) and properties:
                return tool.name, str(next(iter(properties)))
    return None


def derive_request_mutants(
    requests: Sequence[SentRequest], responses: tuple[Recorded, ...]
) -> list[RequestMutant]:
    """The request mutants that apply to a run that sent ``requests``; each serves
    the recorded ``responses`` unchanged."""
    found: list[tuple[str, RequestChange]] = []
    if any(r.system for r in requests):
        found.append(("drop the last line of the system prompt", RequestChange("drop_system_line")))
    if requests:
        recorded = requests[0].effort
        new = _other_effort(recorded)
        found.append(
            (f"effort {recorded or 'unset'} -> {new}", RequestChange("change_effort", new))
        )
    param = _first_param(requests)
    if param is not None:
        tool, name = param
        renamed = f"{name}_renamed"
        change = RequestChange("rename_param", tool=tool, param=name, renamed=renamed)
        found.append((f"rename {tool} parameter {name} -> {renamed}", change))
    if any(len(r.messages) >= 2 for r in requests[1:]):
        description = "swap the first two history items of every request after the first"
        found.append((description, RequestChange("reorder_prefix")))
    return [
        RequestMutant(f"{change.operator}.1", change.operator, description, responses, change)
        for description, change in found
    ]


def recorded_effort_of(requests: Sequence[SentRequest]) -> str | None:
    """The effort the recording stated (its first request's)."""
    return requests[0].effort if requests else None


def change_of(mutant: Any) -> RequestChange | None:
    """The request change a mutant makes (None for response mutants and the control)."""
    found = getattr(mutant, "change", None)
    return found if isinstance(found, RequestChange) else None
