"""A cassette's model responses, in recorded order, parsed by the real provider adapters.

Each stored response (JSON or an event stream, compressed or not) is handed to
the wire's own adapter (``OpenAIProvider``, ``AnthropicProvider``, ...; built by
its mutation codec's ``recorded_decoder``) through an in-memory transport that
answers with those bytes and headers, so the official SDK and harness's own
mapping parse it exactly as a replay would. Nothing opens a socket. A stored
error status becomes the ``ProviderError`` the adapter raises for it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from harness.core.errors import CassetteError, ProviderError
from harness.core.messages import LLMRequest, Message, Role
from harness.core.roles import ConversationRole, role_of_system
from harness.core.wire_parts import load_part
from harness.core.wires import runtime_wires
from harness.evals.mutations import Recorded
from harness.jsonload import load_json
from harness.providers import LLMProvider
from harness.yamlload import YamlSyntaxError, load_yaml

__all__ = ["decode_recorded_response", "read_recorded_responses", "read_recorded_roles"]

# The path endings of each wire a provider adapter decodes, from the wire registry.
_ENDPOINTS = {w.name: w.path_suffixes for w in runtime_wires()}
_DROPPED_HEADERS = frozenset({"content-length", "transfer-encoding", "connection"})
_KEY = "harness-mutants-placeholder"
_PROBE = LLMRequest(messages=(Message(role=Role.USER, content="(recorded response)"),))


def _choices() -> str:
    names = list(_ENDPOINTS)
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else names[0]


def _load(path: Path) -> list[Any]:
    try:
        text = path.read_text("utf-8")
        source = f"cassette {path}"
        if path.suffix.lower() == ".json":
            data = load_json(text, source=source)
        else:
            data = load_yaml(text, source=source)
    except FileNotFoundError:
        raise CassetteError(
            f"cassette {path} does not exist; no mutants without a recording"
        ) from None
    except YamlSyntaxError as exc:
        raise CassetteError(f"{exc}; no mutants without a readable recording") from None
    except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
        raise CassetteError(f"cassette {path} cannot be read for mutants: {exc}") from exc
    interactions = data.get("interactions") if isinstance(data, dict) else None
    if not isinstance(interactions, list):
        raise CassetteError(f"{path} is not a vcrpy cassette: it has no 'interactions' list")
    return interactions


def _is_model_call(interaction: Any, provider: str) -> bool:
    if not isinstance(interaction, dict):
        return False
    request = interaction.get("request") or {}
    path = urlsplit(str(request.get("uri", ""))).path
    return str(request.get("method", "")).upper() == "POST" and path.endswith(_ENDPOINTS[provider])


def _body(response: dict[str, Any]) -> bytes:
    if "body" not in response and "parsed_body" in response:  # pydantic-ai's serializer
        return json.dumps(response["parsed_body"], ensure_ascii=False).encode("utf-8")
    body = response.get("body")
    value = body.get("string") if isinstance(body, dict) else body
    if isinstance(value, bytes):
        return value
    return str(value or "").encode("utf-8")


def _headers(response: dict[str, Any]) -> list[tuple[str, str]]:
    headers = response.get("headers") or {}
    pairs: list[tuple[str, str]] = []
    # A parsed_body (pydantic-ai) is decoded JSON: the wire encoding no longer applies.
    dropped = _DROPPED_HEADERS | ({"content-encoding"} if "parsed_body" in response else set())
    for name, values in headers.items():
        if str(name).lower() in dropped:
            continue  # the transport sets them for the body it actually sends
        for value in values if isinstance(values, list) else [values]:
            pairs.append((str(name), str(value)))
    return pairs


def _decoder(provider: str, response: dict[str, Any], client: Any) -> LLMProvider:
    """The real adapter for ``provider`` on an SDK client that uses ``client`` (httpx2)."""

    stream = any(
        k.lower() == "content-type" and "text/event-stream" in v.lower()
        for k, v in _headers(response)
    )
    # The wire's mutation codec (its package, a room above) builds the adapter on
    # ``client``: reached by the registry's dotted path.
    codec = load_part(provider, "mutations")
    decoder: LLMProvider = codec.recorded_decoder(client, key=_KEY, stream=stream)
    return decoder


def _decode(provider: str, response: Any) -> Recorded:
    import httpx2

    if not isinstance(response, dict):
        raise CassetteError("a recorded interaction has no response")
    status = int((response.get("status") or {}).get("code", 200))
    headers, content = _headers(response), _body(response)

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, headers=headers, content=content, request=request)

    with httpx2.Client(transport=httpx2.MockTransport(answer)) as client:
        try:
            return _decoder(provider, response, client).complete(_PROBE)
        except ProviderError as exc:
            return exc


def read_recorded_responses(path: Path, provider: str) -> tuple[Recorded, ...]:
    """The ``provider`` model responses stored in ``path``, in recorded order.

    Raises:
        CassetteError: the file is missing, unreadable, or not a vcrpy cassette.
        ConfigurationError: ``provider`` is not a runtime wire of the registry.
    """
    if provider not in _ENDPOINTS:
        from harness.core.errors import ConfigurationError

        raise ConfigurationError(f"no mutants for provider {provider!r}: use {_choices()}")
    responses: list[Recorded] = []
    for interaction in _load(path):
        if _is_model_call(interaction, provider):
            decoded = _decode(provider, interaction.get("response"))
            responses.append(decoded)
    return tuple(responses)


def read_recorded_roles(path: Path, provider: str) -> tuple[ConversationRole, ...]:
    """The role of each ``provider`` model request in ``path`` (as ``read_recorded_responses``
    orders them): read from the system text of its body (see ``harness.core.roles``).

    Raises:
        CassetteError: the file is missing, unreadable, or not a vcrpy cassette.
    """
    if provider not in _ENDPOINTS:
        return ()
    return tuple(
        role_of_system(_system_text(interaction.get("request") or {}))
        for interaction in _load(path)
        if _is_model_call(interaction, provider)
    )


def _system_text(request: dict[str, Any]) -> str:
    """The system text of a stored request body on any wire ("" when there is none)."""
    body = request.get("body")
    raw = body.get("string") if isinstance(body, dict) else body
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    try:
        data = json.loads(raw) if isinstance(raw, str) else None
    except ValueError:
        return ""
    if not isinstance(data, dict):
        return ""
    parts: list[Any] = [data.get("system"), data.get("instructions")]  # Messages, Responses
    instruction = data.get("systemInstruction") or data.get("system_instruction")  # Gemini
    if isinstance(instruction, dict):
        parts.append(instruction.get("parts"))
    for message in data.get("messages") or data.get("input") or []:  # Chat, Responses
        if isinstance(message, dict) and message.get("role") in ("system", "developer"):
            parts.append(message.get("content"))
    return "\n".join(_text(part) for part in parts if part).strip()


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text(item) for item in value)
    if isinstance(value, dict):
        return _text(value.get("text") or value.get("content") or "")
    return ""


def decode_recorded_response(provider: str, response: dict[str, Any]) -> Recorded:
    """One vcrpy response dict (JSON or an event stream) as the ``provider`` adapter maps it.

    Raises:
        CassetteError: ``response`` is not a response dict.
    """
    return _decode(provider, response)
