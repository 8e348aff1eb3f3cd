"""Answers shaped to a request that asks for JSON output.

An agent that asks for structured output (Chat Completions' ``response_format``
``json_schema`` / ``json_object``, the Responses API's ``text.format``,
Anthropic's ``output_format``, Gemini's ``responseMimeType`` with a schema)
parses the answer as JSON and fails on prose. A scripted text that already is
JSON is served as written; any other text is wrapped: into an instance of
the requested schema (every string field carries the text, other fields the
simplest valid value), or ``{"text": ...}`` when no schema is given.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["json_output_schema", "shape_json_text"]

_NO_SCHEMA: dict[str, Any] = {}


def _dig(body: dict[str, Any], *path: str) -> Any:
    value: Any = body
    for part in path:
        if not isinstance(value, dict):
            return None
        value = value.get(part)
    return value


def json_output_schema(body: Any) -> dict[str, Any] | None:
    """The JSON schema the request asks its answer to follow; ``{}`` for JSON of any
    shape; None when it asks for no JSON output."""
    if not isinstance(body, dict):
        return None
    for format_ in (
        body.get("response_format"),
        _dig(body, "text", "format"),
        body.get("output_format"),
    ):
        if isinstance(format_, dict):
            kind = format_.get("type")
            if kind == "json_object":
                return _NO_SCHEMA
            if kind == "json_schema":
                schema = format_.get("schema", _dig(format_, "json_schema", "schema"))
                return schema if isinstance(schema, dict) else _NO_SCHEMA
    config = body.get("generationConfig") or body.get("generation_config")
    if isinstance(config, dict):
        mime = config.get("responseMimeType") or config.get("response_mime_type")
        if mime == "application/json":
            for name in (
                "responseJsonSchema",
                "response_json_schema",
                "responseSchema",
                "response_schema",
            ):
                if isinstance(config.get(name), dict):
                    return dict(config[name])
            return _NO_SCHEMA
    return None


def _instance(schema: Any, text: str, depth: int = 0) -> Any:
    if not isinstance(schema, dict) or depth > 8:
        return text
    for choice in ("anyOf", "oneOf", "allOf"):
        options = schema.get(choice)
        if isinstance(options, list) and options:
            return _instance(options[0], text, depth + 1)
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    kind = (
        str(kind).lower()
        if kind is not None
        else ("object" if "properties" in schema else "string")
    )
    if kind == "object":
        properties = schema.get("properties")
        properties = properties if isinstance(properties, dict) else {}
        return {name: _instance(sub, text, depth + 1) for name, sub in properties.items()}
    if kind == "array":
        return [_instance(schema.get("items"), text, depth + 1)] if schema.get("minItems") else []
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return text


def shape_json_text(text: str, schema: dict[str, Any]) -> str:
    """``text`` as the JSON answer a request with ``schema`` expects (see the module)."""
    try:
        value = json.loads(text)
    except ValueError:
        pass
    else:
        if isinstance(value, (dict, list)):
            return text
    if not schema:
        return json.dumps({"text": text}, ensure_ascii=False)
    return json.dumps(_instance(schema, text), ensure_ascii=False)
