"""Loading ScriptedProvider turns from a JSON or YAML file (``HARNESS_SCRIPT``).

The file is a list of turns, or ``{"turns": [...]}``. A turn is one of::

    "final answer text"
    {"text": "..."}                                   # same, may carry tool_calls
    {"tool": "read", "arguments": {"path": "a"}}      # one tool call
    {"tool_calls": [{"name": "read", "arguments": {...}}, ...]}
    {"error": "message"}                              # the provider fails here

``scripted_provider_from_file`` builds the provider the CLI uses: it picks the
turn by the number of assistant messages already in the request's conversation
(``by_conversation``), so the script gives the same answer in every process;
``harness run`` can pause for approval and ``harness approve ID``, a new
process, continues with the next turn.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigurationError, ProviderError
from harness.core.messages import LLMResponse, ToolCall
from harness.jsonload import JsonTooDeepError, load_json
from harness.providers._scripted import ScriptedProvider

__all__ = ["load_script", "parse_turn", "scripted_provider_from_file"]


def scripted_provider_from_file(path: Path) -> ScriptedProvider:
    """The ``HARNESS_PROVIDER=scripted`` provider: turns of ``path``, chosen by conversation."""
    return ScriptedProvider(load_script(path), by_conversation=True)


def load_script(path: Path) -> list[object]:
    """Read a script file into turns for ``ScriptedProvider``."""
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ConfigurationError(
            f"HARNESS_SCRIPT={str(path)!r} cannot be read ({exc.strerror}); "
            "point it at a JSON or YAML file of turns"
        ) from None
    data = _decode(path, text)
    if isinstance(data, dict) and "turns" in data:
        data = data["turns"]
    if not isinstance(data, list):
        raise ConfigurationError(
            f"HARNESS_SCRIPT={str(path)!r} must hold a list of turns (or {{'turns': [...]}})"
        )
    return [parse_turn(turn, index, path) for index, turn in enumerate(data, start=1)]


def _decode(path: Path, text: str) -> Any:
    if path.suffix.lower() in (".yaml", ".yml"):
        import yaml

        from harness.yamlload import DocumentBoundsError, load_yaml

        try:
            return load_yaml(text, source=f"HARNESS_SCRIPT={str(path)!r}")
        except DocumentBoundsError as exc:
            raise ConfigurationError(str(exc)) from None
        except yaml.YAMLError as exc:  # names HARNESS_SCRIPT, the line and the column
            raise ConfigurationError(str(exc)) from None
    try:
        return load_json(text, source=f"HARNESS_SCRIPT={str(path)!r}")
    except json.JSONDecodeError as exc:
        raise ConfigurationError(
            f"HARNESS_SCRIPT={str(path)!r} is not valid JSON (line {exc.lineno}): {exc.msg}"
        ) from None
    except JsonTooDeepError as exc:
        raise ConfigurationError(str(exc)) from None


def parse_turn(turn: Any, index: int, path: Path | None = None) -> object:
    where = f"turn {index}" + (f" of {path}" if path else "")
    if isinstance(turn, str):
        return turn
    if not isinstance(turn, dict):
        raise ConfigurationError(f"{where}: expected a string or an object, got {turn!r}")
    if "error" in turn:
        return ProviderError(str(turn["error"]), provider="scripted")
    calls: list[ToolCall] = []
    if "tool" in turn:
        calls.append(_call(turn, "tool", where))
    for raw in turn.get("tool_calls", ()):
        if not isinstance(raw, dict):
            raise ConfigurationError(f"{where}: each tool call must be an object")
        calls.append(_call(raw, "name", where))
    if not calls and "text" not in turn:
        raise ConfigurationError(f"{where}: give 'text', 'tool', 'tool_calls' or 'error'")
    return LLMResponse(
        text=str(turn.get("text", "")),
        tool_calls=tuple(calls),
        model="scripted",
        stop_reason="tool_use" if calls else "end_turn",
    )


def _call(raw: dict[str, Any], key: str, where: str) -> ToolCall:
    name = raw.get(key)
    arguments = raw.get("arguments", {})
    if not isinstance(name, str) or not isinstance(arguments, dict):
        raise ConfigurationError(
            f"{where}: a tool call needs a string {key!r} and an 'arguments' object"
        )
    if "id" in raw:
        return ToolCall(id=str(raw["id"]), name=name, arguments=arguments)
    return ToolCall(name=name, arguments=arguments)
