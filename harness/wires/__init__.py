"""One package per wire format: its behaviour in one home.

Each wire's package holds the parts that speak it: the runtime provider (SDK
adapter), the traffic reader (a recorded exchange into the traffic trace), the
simulator renderer, the mutation codec and the transcript reader. The data
about a wire (hosts, paths, env vars, secret headers) lives in the registry;
rooms below this one reach a wire's parts by dotted path, so the arrows of the
import graph still point down.

- ``openai``: OpenAI Chat Completions (and its variants: Azure OpenAI,
  OpenAI-compatible servers);
- ``openai_responses``: the OpenAI Responses API;
- ``anthropic``: Anthropic Messages;
- ``gemini``: Google's ``generateContent`` / ``streamGenerateContent`` (the
  google-genai SDK; Gemini API and Vertex AI).
- ``bedrock``: Amazon Bedrock's Converse / ConverseStream, read only (traffic
  traces, eval rows, transcripts; no runtime provider or simulator).
"""

from __future__ import annotations

__all__: list[str] = []
