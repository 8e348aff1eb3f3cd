"""Tool-result mutants: the model answers kept, one MCP tool result changed.

A model-response mutant asks whether an eval notices the model going wrong; a
tool-result mutant asks whether it notices a *tool* going wrong: the recorded
model answers are served in order, as for the control, and the MCP cassette
beside the model's (``<test>.mcp.json``) is replayed with one recorded
``tools/call`` result replaced by

* ``empty_result``: no content (and structured content emptied to its shape:
  strings ``""``, lists ``[]``, numbers 0, so a tool's output schema still holds);
* ``error_result``: ``isError: true`` with an error text, as a failing tool answers;
* ``truncated_result``: every text cut to its first half.

Each operator is applied to each recorded result in turn (``error_result.2`` is
the second ``tools/call`` of the cassette, servers in name order). A test with
more than one MCP cassette (``<test>-2.mcp.json``: a second application) has its
results numbered on, cassette after cassette. An eval that never checks what
its agent does with a failing tool survives them.

They are scored with the other mutants (the kill rate, the status, the
mutation score): they exist only where an eval's agent uses MCP tools, and
there a tool that fails is as likely as a model that errs. The table also gives
them a line of their own, as it does request mutants.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from harness.evals.mutations import Mutant, Recorded
from harness.mcp import McpCassette, load_cassette, mcp_cassette_path, mcp_cassettes_from

__all__ = [
    "ERROR_TEXT",
    "TOOL_RESULT_OPERATORS",
    "ToolResultMutant",
    "derive_tool_result_mutants",
    "is_tool_result_operator",
    "mutated_cassette",
    "tool_result_mutants_beside",
]

TOOL_RESULT_OPERATORS: Final = ("empty_result", "error_result", "truncated_result")
ERROR_TEXT: Final = "Error: the tool failed (a harness tool-result mutant)"


def is_tool_result_operator(operator: str) -> bool:
    """Whether ``operator`` changes a recorded MCP tool result (the model answers kept)."""
    return operator in TOOL_RESULT_OPERATORS


@dataclass(frozen=True, slots=True)
class ToolResultMutant(Mutant):
    """Serves the recorded model answers; in the test's ``cassette``-th (from 1) MCP
    cassette, ``server``'s exchange ``exchange`` is changed."""

    server: str = ""
    exchange: int = 0
    cassette: int = 1


Cassettes = McpCassette | Sequence[McpCassette]


def _listed(cassettes: Cassettes) -> list[McpCassette]:
    return [cassettes] if isinstance(cassettes, McpCassette) else list(cassettes)


def _sites(cassettes: list[McpCassette]) -> list[tuple[int, str, int, str]]:
    """``(cassette, server, exchange index, shown call)`` of every answered ``tools/call``,
    in order: cassette after cassette, servers in name order."""
    sites = []
    for ordinal, cassette in enumerate(cassettes, start=1):
        for server in sorted(cassette.servers):
            for index, exchange in enumerate(cassette.servers[server].exchanges):
                if exchange.method != "tools/call" or exchange.result is None:
                    continue
                params = exchange.params or {}
                args = params.get("arguments") or {}
                shown = ", ".join(f"{k}={_clip(v)}" for k, v in list(args.items())[:2])
                call = f"{server}.{params.get('name', '?')}({shown})"
                sites.append((ordinal, server, index, call))
    return sites


def _clip(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _emptied(value: Any) -> Any:
    """``value`` with the same shape and nothing in it."""
    if isinstance(value, dict):
        return {key: _emptied(item) for key, item in value.items()}
    if isinstance(value, list):
        return []
    if isinstance(value, str):
        return ""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return type(value)(0)
    return value


def _halved(value: Any) -> Any:
    """Every string of ``value`` cut to its first half."""
    if isinstance(value, dict):
        return {key: _halved(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_halved(item) for item in value]
    if isinstance(value, str):
        return value[: len(value) // 2]
    return value


def _texts(result: dict[str, Any]) -> list[str]:
    content = result.get("content")
    items = content if isinstance(content, list) else []
    texts = [i for i in items if isinstance(i, dict) and i.get("type") == "text"]
    return [str(i.get("text", "")) for i in texts]


def _changed(operator: str, result: dict[str, Any]) -> dict[str, Any]:
    if operator == "error_result":
        return {"content": [{"type": "text", "text": ERROR_TEXT}], "isError": True}
    structured = result.get("structuredContent")
    if operator == "empty_result":
        changed: dict[str, Any] = {"content": [], "isError": False}
        if structured is not None:
            changed["structuredContent"] = _emptied(structured)
        return changed
    content = result.get("content")
    cut = [
        {**item, "text": _halved(item.get("text", ""))}
        if isinstance(item, dict) and item.get("type") == "text"
        else item
        for item in (content if isinstance(content, list) else [])
    ]
    changed = {**result, "content": cut}
    if structured is not None:
        changed["structuredContent"] = _halved(structured)
    return changed


def derive_tool_result_mutants(
    cassettes: Cassettes, responses: tuple[Recorded, ...]
) -> list[ToolResultMutant]:
    """Every operator applied to every recorded tool result of a test's MCP cassette (or
    cassettes, in order); ``responses`` served as recorded.

    A result already empty gets no ``empty_result``, one already an error no
    ``error_result``, and one with no text of two characters no ``truncated_result``:
    each would be the control again.
    """
    listed = _listed(cassettes)
    mutants: list[ToolResultMutant] = []
    for site, (ordinal, server, index, shown) in enumerate(_sites(listed), start=1):
        result = listed[ordinal - 1].servers[server].exchanges[index].result or {}
        texts = _texts(result)
        useful = {
            "empty_result": bool(result.get("content") or result.get("structuredContent")),
            "error_result": result.get("isError") is not True,
            "truncated_result": any(len(t) >= 2 for t in texts),
        }
        described = {
            "empty_result": f"{shown} returns an empty result",
            "error_result": f"{shown} fails (isError)",
            "truncated_result": f"{shown} returns the first half of its text",
        }
        for operator in TOOL_RESULT_OPERATORS:
            if useful[operator]:
                mutants.append(
                    ToolResultMutant(
                        f"{operator}.{site}",
                        operator,
                        described[operator],
                        responses,
                        server=server,
                        exchange=index,
                        cassette=ordinal,
                    )
                )
    return mutants


def tool_result_mutants_beside(
    model_cassette: Path, responses: tuple[Recorded, ...]
) -> list[ToolResultMutant]:
    """The tool-result mutants of the MCP cassettes beside ``model_cassette``
    (``<name>.mcp.json``, ``<name>-2.mcp.json``...; none if absent).

    Raises:
        CassetteError: an MCP cassette exists but cannot be read.
    """
    paths = mcp_cassettes_from(mcp_cassette_path(model_cassette))
    return derive_tool_result_mutants([load_cassette(path) for path in paths], responses)


def mutated_cassette(cassettes: Cassettes, mutant_id: str, ordinal: int = 1) -> McpCassette | None:
    """The test's ``ordinal``-th (from 1) cassette of ``cassettes`` as ``mutant_id`` serves
    it: with the mutant's tool result changed, or unchanged (the very object) when the
    mutant changes another of them; None if none of them holds such a mutant."""
    listed = _listed(cassettes)
    found = derive_tool_result_mutants(listed, ())
    chosen = next((m for m in found if m.id == mutant_id), None)
    if chosen is None:
        return None
    cassette = listed[ordinal - 1]
    if chosen.cassette != ordinal:
        return cassette
    copy = cassette.model_copy(deep=True)
    exchange = copy.servers[chosen.server].exchanges[chosen.exchange]
    exchange.result = _changed(chosen.operator, exchange.result or {})
    return copy
