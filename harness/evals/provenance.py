"""Where an eval's model answers came from: live, simulator, local, scripted or unknown.

A replayed cassette's source is where it was *recorded*, never "replay". The
cassette's ``harness:`` block says so (``recorded_against`` ends with
``(harness simulator)`` for ``harness sim`` recordings). A plain vcrpy file has
no such block, so the hosts and responses of its model calls decide (a tool's own
HTTP, say a weather API, is left out: ``harness.recording.is_model_call``; a file
with no call of a known wire is read whole):

- every response carries the simulator's ``x-harness-simulator`` header -> simulator;
- every request went to a known provider API host (the wire registry's) or a
  gateway declared in ``HARNESS_LIVE_HOSTS`` (``live_hosts``) -> live;
- every request went to a known OpenAI-compatible server on this machine or
  network, told by its default port (Ollama 11434, vLLM 8000, LM Studio 1234,
  a LiteLLM proxy 4000; :func:`local_servers` names them) -> local;
- anything else (another server on this machine or network, in whatever
  spelling of its address: a local model or a mock, harness cannot tell which;
  an undeclared host; a mix; no interactions) -> unknown.

The same host rule guards the metadata: a file marked simulated whose hosts
include a remote one mixes simulator and live answers (re-recorded in mode
``all``, which keeps the interactions it did not replace), so it is unknown.
harness writes the hosts of model calls only into ``recorded_against``; a file
saved before tool traffic was told apart may name a tool's host there, and
reads unknown until it is re-recorded.

The reader here only needs the header and the request hosts, so it parses the
YAML itself instead of reaching into the recording layer's private loader.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# At import, though an xdist controller reads no cassette: the plugin imports this
# module, so YAML is loaded before any test runs. Loaded for the first time inside
# an in-process pytest run (pytester), it would be dropped with that run's modules,
# and PyYAML's C loader, which stays, then fails on the classes of the next import
# ("could not determine a constructor for the tag None").
import yaml

from harness.core.errors import CassetteError
from harness.evals.live_hosts import is_live_host, is_local_host, local_server_name
from harness.recording import is_model_call
from harness.yamlload import describe_yaml_error

__all__ = [
    "SIMULATOR_MARK",
    "Source",
    "cassette_source",
    "local_servers",
    "source_of_document",
    "source_of_recording",
]

SIMULATOR_MARK = "(harness simulator)"
_SIMULATOR_HEADER = "x-harness-simulator"
_METADATA_KEY = "harness"
_INTERACTIONS = "\ninteractions:\n"
_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Source(StrEnum):
    """Where a row's model answers came from."""

    LIVE = "live"
    SIMULATOR = "simulator"
    # A model server of the user's on this machine or network (Ollama, vLLM, ...):
    # a real model counted the tokens, but no provider's.
    LOCAL = "local"
    SCRIPTED = "scripted"
    UNKNOWN = "unknown"

    @property
    def synthetic_tokens(self) -> bool:
        """Token counts no real model produced (the simulator's estimate, scripted words)."""
        # A set built once: looking members up on the class each time cost 10 us a row.
        return self in _SYNTHETIC


_SYNTHETIC = frozenset({Source.SIMULATOR, Source.SCRIPTED})


def _host(netloc: str) -> str:
    """``host`` of ``host:port`` or ``[v6]:port``."""
    if netloc.startswith("["):
        return netloc[1 : netloc.find("]")]
    return netloc.rsplit(":", 1)[0] if netloc.count(":") == 1 else netloc


def _port(netloc: str) -> int | None:
    """``port`` of ``host:port`` or ``[v6]:port``; None without one."""
    tail = netloc[netloc.find("]") + 1 :] if netloc.startswith("[") else netloc
    if tail.count(":") != 1:
        return None
    digits = tail.rsplit(":", 1)[1]
    return int(digits) if digits.isdigit() else None


def local_servers(netlocs: list[str]) -> tuple[str, ...] | None:
    """The known local servers (``ollama``, ``vllm``, ...) every ``host:port`` names, or None.

    None unless every one is a known server on this machine or network: a mix with
    a remote or an unrecognised host says nothing about where the answers came from.
    """
    names = [local_server_name(_host(n), _port(n)) for n in netlocs]
    if not names or any(name is None for name in names):
        return None
    return tuple(dict.fromkeys(n for n in names if n is not None))


def source_of_recording(recorded_against: str | None) -> Source:
    """The source a harness cassette's ``recorded_against`` field names."""
    if not recorded_against:
        return Source.UNKNOWN
    text = recorded_against.strip()
    simulated = text.endswith(SIMULATOR_MARK)
    text = text.removesuffix(SIMULATOR_MARK)
    hosts = [_host(part.strip()) for part in text.split(",") if part.strip()]
    if simulated:
        # harness marks a file simulated when *any* answer came from the simulator;
        # a remote host beside it means live answers were mixed in (mode all).
        return Source.SIMULATOR if all(is_local_host(h) for h in hosts) else Source.UNKNOWN
    if hosts and all(is_live_host(h) for h in hosts):
        return Source.LIVE
    netlocs = [part.strip() for part in text.split(",") if part.strip()]
    return Source.LOCAL if local_servers(netlocs) else Source.UNKNOWN


def _header(headers: Any, name: str) -> bool:
    if not isinstance(headers, dict):
        return False
    return any(str(key).lower() == name and value for key, value in headers.items())


def _request_host(request: Any) -> str:
    if not isinstance(request, dict):
        return ""
    return urlsplit(str(request.get("uri", ""))).hostname or ""


def _request_netloc(request: Any) -> str:
    if not isinstance(request, dict):
        return ""
    return urlsplit(str(request.get("uri", ""))).netloc.rsplit("@", 1)[-1]


def _is_model_call(request: Any) -> bool:
    if not isinstance(request, dict):
        return False
    return is_model_call(str(request.get("method", "")), str(request.get("uri", "")))


def _model_interactions(interactions: list[Any]) -> list[Any]:
    """The model calls among ``interactions``: a tool's own HTTP says nothing of the
    answers' source. All of them when none is a model call of a known wire."""
    found = [i for i in interactions if isinstance(i, dict) and _is_model_call(i.get("request"))]
    return found or interactions


def _source_of_interactions(interactions: list[Any]) -> Source:
    interactions = _model_interactions(interactions)
    requests = [i.get("request") for i in interactions if isinstance(i, dict)]
    responses = [i.get("response") for i in interactions if isinstance(i, dict)]
    if not requests:
        return Source.UNKNOWN
    marked = [
        isinstance(r, dict) and _header(r.get("headers"), _SIMULATOR_HEADER) for r in responses
    ]
    hosts = [_request_host(r) for r in requests]
    if all(marked):
        # The header alone is no proof: a remote server may send it too.
        return Source.SIMULATOR if all(is_local_host(h) for h in hosts) else Source.UNKNOWN
    if any(marked):
        return Source.UNKNOWN
    if all(is_live_host(h) for h in hosts):
        return Source.LIVE
    return Source.LOCAL if local_servers([_request_netloc(r) for r in requests]) else Source.UNKNOWN


def source_of_document(data: Any) -> Source:
    """The source of a parsed cassette document (vcrpy layout, maybe with ``harness:``)."""
    if not isinstance(data, dict):
        return Source.UNKNOWN
    metadata = data.get(_METADATA_KEY)
    if isinstance(metadata, dict):
        return source_of_recording(metadata.get("recorded_against"))
    interactions = data.get("interactions")
    return _source_of_interactions(interactions if isinstance(interactions, list) else [])


def _parse(path: Path, text: str) -> Any:
    if path.suffix.lower() == ".json":
        return json.loads(text)
    head, found, _ = text.partition(_INTERACTIONS)
    if found and f"\n{_METADATA_KEY}:" in f"\n{head}":
        # harness writes its block before the interactions: the header decides alone.
        return yaml.load(head + "\ninteractions: []\n", Loader=_Loader)  # a safe loader
    return yaml.load(text, Loader=_Loader)  # a safe loader


def cassette_source(path: Path) -> Source:
    """Read where the cassette at ``path`` was recorded.

    Raises:
        CassetteError: the file is missing or cannot be parsed.
    """
    try:
        text = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"cannot read cassette {path} to tell its source: {exc}") from exc
    try:
        data = _parse(path, text)
    except (ValueError, yaml.YAMLError) as exc:
        problem = describe_yaml_error(exc) if isinstance(exc, yaml.YAMLError) else exc
        raise CassetteError(
            f"cassette {path} is corrupt, so its source is unknown ({problem}); restore it from "
            "version control or record it again"
        ) from exc
    return source_of_document(data)
