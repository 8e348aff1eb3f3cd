"""The wire formats harness speaks, and the servers that speak them: one home per fact.

A *wire* is a request/response format on HTTP (Chat Completions, Responses,
Messages, Gemini's ``generateContent``, Bedrock's Converse). Its entry here holds
every fact another room needs about it: the hosts that answer it live, the
paths it is posted to, the environment variables of its key and base URL, the
headers and query parameters that carry its secrets, its SDK packages, its
price key, what harness can do with it, and the dotted paths of the parts that
implement it. Rooms ask this module (the live guard, provenance, redaction, the
sandbox's scrubbed variables, the CLI choices, ``llm_cassette``, the simulator's
canonical hosts) and keep no list of their own; ``tests/core/test_wires.py``
fails when a host or variable name of a wire is spelled anywhere else.

A *variant* is a server that speaks a wire with a host, path or header of its
own (Azure OpenAI, a hosted OpenAI-compatible vendor, Ollama on this machine):
a new row here, never a new wire.

Data only: no I/O, nothing of harness outside ``core`` imported. Parts are
named by dotted path (``module`` or ``module:attribute``) so this floor never
imports the rooms above it; the structure test imports them.

Host patterns: ``{name}`` is one DNS label (``{region}-aiplatform.googleapis.com``),
``*`` one or more labels (``*.openai.azure.com``); anything else is literal.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from harness.core.errors import ConfigurationError

__all__ = [
    "VARIANTS",
    "WIRES",
    "Capability",
    "Variant",
    "Wire",
    "WireParts",
    "credential_env_names",
    "env_prefixes",
    "host_matches",
    "is_live_api_host",
    "is_proto_json_call",
    "live_host_patterns",
    "local_server",
    "path_matches",
    "ready_wires",
    "runtime_wires",
    "secret_header_names",
    "secret_query_params",
    "variant",
    "wire",
    "wire_for_path",
]


class Capability(StrEnum):
    """What harness does with a wire. Every wire is read from traffic; the rest is opt-in."""

    RUNTIME = "runtime"  # a provider the agent loop can run on
    SIMULATOR = "simulator"  # ``harness sim serve`` answers it, so mutants can be served
    TRAFFIC = "traffic"  # cassettes decode into traffic traces, rows and transcripts


@dataclass(frozen=True, slots=True)
class WireParts:
    """Where each part of a wire lives, as ``module`` or ``module:attribute``.

    None only where the wire lacks the capability that needs the part: a
    traffic-only wire (Bedrock) has no runtime provider, simulator renderer or
    mutation codec.
    """

    provider: str | None  # SDK adapter: the runtime provider (Capability.RUNTIME)
    traffic: str  # reads requests and responses into the traffic trace
    simulator: str | None  # renders a scripted reply in this wire (Capability.SIMULATOR)
    mutations: str | None  # decodes recorded answers and encodes mutated ones (SIMULATOR)
    transcript: str  # renders the wire's traffic trace as a transcript


@dataclass(frozen=True, slots=True)
class Wire:
    """One wire format and every fact harness keeps about it."""

    name: str
    title: str
    # Hosts whose answers come from the provider's own models (patterns).
    hosts: tuple[str, ...]
    # Request paths as the SDK posts them on the default base URL (``{model}`` a segment).
    paths: tuple[str, ...]
    # Path endings that identify a model call whatever prefix a base URL adds.
    path_suffixes: tuple[str, ...]
    # The SDK client's default base URL; None when the client is another wire's
    # (Responses shares Chat Completions' client) or is not an HTTP client (boto3).
    sdk_base_url: str | None
    # Appended to a simulator root to make this SDK's base URL (the OpenAI SDK wants /v1).
    simulator_base_path: str
    key_env: tuple[str, ...]  # the API key as the SDK reads it, first one preferred
    base_url_env: tuple[str, ...]  # the SDK's base URL override
    secret_env: tuple[str, ...]  # other variables whose values are credentials (tokens)
    account_env: tuple[str, ...]  # variables that pick an account, project or region (no secret)
    # Variable name prefixes that belong to this provider: never passed to a sandbox.
    env_prefixes: tuple[str, ...]
    secret_headers: tuple[str, ...]  # lower-case header names whose values are credentials
    secret_params: tuple[str, ...]  # query parameters whose values are credentials
    sdk_packages: tuple[str, ...]  # distributions / import names of the official SDKs
    price_key: str  # the provider's key in price tables (genai-prices' provider id)
    capabilities: frozenset[Capability]
    parts: WireParts
    # The package that is the wire's home, when it has one of its own (harness/wires/<name>).
    home: str | None = None
    # Hosts of known gateways that forward this wire to the provider (live, patterns).
    proxy_hosts: tuple[str, ...] = ()
    # The model the runtime provider runs when none is named (HARNESS_MODEL unset).
    default_model: str | None = None
    # The model harness's recorded provider records and replays by default.
    recorded_model: str | None = None
    # Request bodies are proto-JSON: a key may be sent in snake_case or lowerCamelCase
    # alike (SDK versions differ), so recordings match on one spelling.
    proto_json: bool = False
    # Its parts are not in this tree yet (a wire in flight on its own branch): its
    # facts already count (live hosts, secrets, scrubbed variables) but no room
    # offers it (provider choices, llm_cassette clients, canonical hosts). Set to
    # False when its package lands; tests/core/test_wires.py then checks its parts.
    pending: bool = False

    def __post_init__(self) -> None:
        needs = {
            "provider": Capability.RUNTIME,
            "simulator": Capability.SIMULATOR,
            "mutations": Capability.SIMULATOR,
        }
        for part, capability in needs.items():
            if capability in self.capabilities and getattr(self.parts, part) is None:
                raise ConfigurationError(
                    f"wire {self.name!r} is {capability} but has no {part} part: name the "
                    f"module that implements it, or drop {capability} from its capabilities"
                )
        if Capability.RUNTIME in self.capabilities and not (
            self.default_model and self.recorded_model
        ):
            raise ConfigurationError(
                f"wire {self.name!r} is {Capability.RUNTIME} but names no default_model and "
                "recorded_model: give the models its provider runs and records by default"
            )

    @property
    def env_names(self) -> tuple[str, ...]:
        """Every variable the wire's SDK reads for its key, base URL or account."""
        return self.key_env + self.base_url_env + self.secret_env + self.account_env


@dataclass(frozen=True, slots=True)
class Variant:
    """A server that speaks ``wire`` with its own hosts, port, path or auth header.

    ``live`` says whether its answers count as a real model's for provenance: a
    hosted API is live; a server on this machine (Ollama, vLLM, ...) runs a real
    model too, but of the user's choosing, so it is labelled ``local`` by name.
    """

    name: str
    title: str
    wire: str
    live: bool
    hosts: tuple[str, ...] = ()  # patterns of its public hosts
    default_port: int | None = None  # the port a local server listens on by default
    paths: tuple[str, ...] = ()  # where it differs from the wire's
    query_params: tuple[str, ...] = ()  # required non-secret parameters (api-version)
    secret_headers: tuple[str, ...] = ()
    key_env: tuple[str, ...] = ()
    base_url_env: tuple[str, ...] = ()
    env_prefixes: tuple[str, ...] = ()


def _parts(home: str, provider: str | None) -> WireParts:
    """The parts of a wire whose package ``home`` holds them all, under the usual names."""
    return WireParts(
        provider=f"{home}.provider:{provider}" if provider else None,
        traffic=f"{home}.traffic",
        simulator=f"{home}.simulator" if provider else None,
        mutations=f"{home}.mutations" if provider else None,
        transcript=f"{home}.transcript",
    )


_ALL = frozenset(Capability)
_OPENAI_HOME = "harness.wires.openai"
_RESPONSES_HOME = "harness.wires.openai_responses"
_ANTHROPIC_HOME = "harness.wires.anthropic"
_GEMINI_HOME = "harness.wires.gemini"
_BEDROCK_HOME = "harness.wires.bedrock"

WIRES: Final[tuple[Wire, ...]] = (
    Wire(
        name="openai",
        title="OpenAI Chat Completions",
        hosts=("api.openai.com",),
        proxy_hosts=("openrouter.ai",),
        paths=("/v1/chat/completions",),
        path_suffixes=("/chat/completions",),
        sdk_base_url="https://api.openai.com/v1",
        simulator_base_path="/v1",
        key_env=("OPENAI_API_KEY",),
        base_url_env=("OPENAI_BASE_URL",),
        secret_env=(),
        account_env=("OPENAI_ORG_ID", "OPENAI_PROJECT_ID"),
        env_prefixes=("OPENAI_",),
        secret_headers=("authorization", "openai-organization", "openai-project"),
        secret_params=(),
        sdk_packages=("openai",),
        price_key="openai",
        capabilities=_ALL,
        parts=_parts(_OPENAI_HOME, "OpenAIProvider"),
        home=_OPENAI_HOME,
        default_model="gpt-4o-mini",
        recorded_model="gpt-4.1-mini",
    ),
    Wire(
        name="openai-responses",
        title="OpenAI Responses",
        hosts=("api.openai.com",),
        paths=("/v1/responses",),
        path_suffixes=("/responses",),
        sdk_base_url=None,  # the openai wire's client
        simulator_base_path="/v1",
        key_env=("OPENAI_API_KEY",),
        base_url_env=("OPENAI_BASE_URL",),
        secret_env=(),
        account_env=("OPENAI_ORG_ID", "OPENAI_PROJECT_ID"),
        env_prefixes=("OPENAI_",),
        secret_headers=("authorization", "openai-organization", "openai-project"),
        secret_params=(),
        sdk_packages=("openai",),
        price_key="openai",
        capabilities=_ALL,
        parts=_parts(_RESPONSES_HOME, "OpenAIResponsesProvider"),
        home=_RESPONSES_HOME,
        default_model="gpt-4o-mini",
        recorded_model="gpt-4.1-mini",
    ),
    Wire(
        name="anthropic",
        title="Anthropic Messages",
        hosts=("api.anthropic.com",),
        paths=("/v1/messages",),
        path_suffixes=("/messages",),
        sdk_base_url="https://api.anthropic.com",
        simulator_base_path="",
        key_env=("ANTHROPIC_API_KEY",),
        base_url_env=("ANTHROPIC_BASE_URL",),
        secret_env=("ANTHROPIC_AUTH_TOKEN",),
        account_env=(),
        env_prefixes=("ANTHROPIC_",),
        secret_headers=("x-api-key", "authorization"),
        secret_params=(),
        sdk_packages=("anthropic",),
        price_key="anthropic",
        capabilities=_ALL,
        parts=_parts(_ANTHROPIC_HOME, "AnthropicProvider"),
        home=_ANTHROPIC_HOME,
        default_model="claude-sonnet-4-6",
        recorded_model="claude-sonnet-4-6",
    ),
    Wire(
        name="gemini",
        title="Google Gemini (Gemini API and Vertex AI)",
        hosts=("generativelanguage.googleapis.com",),  # Vertex AI is a variant below
        paths=(
            "/v1beta/models/{model}:generateContent",
            "/v1beta/models/{model}:streamGenerateContent",
            "/v1/models/{model}:generateContent",
            "/v1/models/{model}:streamGenerateContent",
        ),
        path_suffixes=(":generateContent", ":streamGenerateContent"),
        sdk_base_url="https://generativelanguage.googleapis.com",
        simulator_base_path="",
        # google-genai reads GOOGLE_API_KEY first, then GEMINI_API_KEY (_api_client.py).
        key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        # google-genai's base URL overrides (_base_url.py).
        base_url_env=("GOOGLE_GEMINI_BASE_URL", "GOOGLE_VERTEX_BASE_URL"),
        secret_env=(),
        account_env=(
            "GOOGLE_APPLICATION_CREDENTIALS",  # a path to a key file, not the key
            "GOOGLE_CLOUD_PROJECT",
            "GOOGLE_CLOUD_LOCATION",
            "GOOGLE_GENAI_USE_VERTEXAI",
        ),
        env_prefixes=("GEMINI_", "GOOGLE_"),
        secret_headers=("x-goog-api-key", "authorization"),
        secret_params=("key",),
        sdk_packages=("google-genai", "google.genai"),
        price_key="google",
        capabilities=_ALL,
        parts=_parts(_GEMINI_HOME, "GeminiProvider"),
        home=_GEMINI_HOME,
        default_model="gemini-2.5-flash",
        recorded_model="gemini-2.5-flash",
        proto_json=True,
    ),
    Wire(
        name="bedrock",
        title="Amazon Bedrock Converse",
        hosts=(
            "bedrock-runtime.{region}.amazonaws.com",
            "bedrock-runtime-fips.{region}.amazonaws.com",
        ),
        paths=("/model/{model}/converse", "/model/{model}/converse-stream"),
        path_suffixes=("/converse", "/converse-stream"),
        sdk_base_url=None,  # boto3 signs its own requests; harness only reads them
        simulator_base_path="",
        key_env=("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),
        base_url_env=("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_ENDPOINT_URL"),
        secret_env=("AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"),
        account_env=("AWS_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION"),
        env_prefixes=("AWS_",),
        # SigV4: the signature travels in authorization, the session token beside it.
        secret_headers=("authorization", "x-amz-security-token"),
        # A presigned URL carries the same in its query.
        secret_params=("X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token"),
        sdk_packages=("boto3", "botocore"),
        price_key="aws",
        capabilities=frozenset({Capability.TRAFFIC}),
        parts=_parts(_BEDROCK_HOME, None),  # traffic-only: no provider, simulator or codec
        home=_BEDROCK_HOME,
    ),
)


def _hosted(name: str, title: str, *hosts: str) -> Variant:
    """A hosted vendor's OpenAI-compatible API: a live Chat Completions server."""
    return Variant(name=name, title=title, wire="openai", live=True, hosts=hosts)


def _local(name: str, title: str, port: int) -> Variant:
    """An OpenAI-compatible server on this machine, known by its default port."""
    return Variant(name=name, title=title, wire="openai", live=False, default_port=port)


VARIANTS: Final[tuple[Variant, ...]] = (
    Variant(
        name="azure-openai",
        title="Azure OpenAI",
        wire="openai",
        live=True,
        hosts=("*.openai.azure.com",),
        # Its Responses API (/openai/responses) is told apart by the path ending as usual.
        paths=("/openai/deployments/{deployment}/chat/completions",),
        query_params=("api-version",),
        secret_headers=("api-key",),
        # The openai SDK's AzureOpenAI reads these.
        key_env=("AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN"),
        base_url_env=("AZURE_OPENAI_ENDPOINT",),
        env_prefixes=("AZURE_OPENAI_",),
    ),
    Variant(
        name="vertex-ai",
        title="Vertex AI (Gemini)",
        wire="gemini",
        live=True,
        hosts=(
            "aiplatform.googleapis.com",
            "{region}-aiplatform.googleapis.com",
            "aiplatform.{region}.rep.googleapis.com",
        ),
        paths=(
            "/{version}/projects/{project}/locations/{location}/publishers/google/models/{model}"
            ":generateContent",
            "/{version}/projects/{project}/locations/{location}/publishers/google/models/{model}"
            ":streamGenerateContent",
        ),
    ),
    _hosted("mistral", "Mistral", "api.mistral.ai"),
    _hosted("groq", "Groq", "api.groq.com"),
    _hosted("deepseek", "DeepSeek", "api.deepseek.com"),
    _hosted("together", "Together AI", "api.together.xyz"),
    _hosted("xai", "xAI", "api.x.ai"),
    _hosted("fireworks", "Fireworks AI", "api.fireworks.ai"),
    _hosted("perplexity", "Perplexity", "api.perplexity.ai"),
    # Cohere's compatibility API (/compatibility/v1/chat/completions) speaks Chat Completions.
    _hosted("cohere", "Cohere", "api.cohere.com", "api.cohere.ai"),
    _local("ollama", "Ollama", 11434),
    _local("vllm", "vLLM", 8000),
    _local("lm-studio", "LM Studio", 1234),
    _local("litellm", "LiteLLM proxy", 4000),
)


def wire(name: str) -> Wire:
    """The wire called ``name``.

    Raises:
        KeyError: no such wire (the message lists the known ones).
    """
    for entry in WIRES:
        if entry.name == name:
            return entry
    raise KeyError(f"no wire {name!r}; known: {', '.join(w.name for w in WIRES)}")


def variant(name: str) -> Variant:
    """The variant called ``name``.

    Raises:
        KeyError: no such variant (the message lists the known ones).
    """
    for entry in VARIANTS:
        if entry.name == name:
            return entry
    raise KeyError(f"no variant {name!r}; known: {', '.join(v.name for v in VARIANTS)}")


def ready_wires() -> tuple[Wire, ...]:
    """The wires whose parts are in this tree (not :attr:`Wire.pending`)."""
    return tuple(w for w in WIRES if not w.pending)


def runtime_wires() -> tuple[Wire, ...]:
    """The ready wires the agent loop can run on (a provider name each)."""
    return tuple(w for w in ready_wires() if Capability.RUNTIME in w.capabilities)


def _pattern(template: str, segment: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]*\}|\*)", template)
    out = []
    for part in parts:
        if part == "*":
            out.append(r"[a-z0-9-]+(?:\.[a-z0-9-]+)*")
        elif part.startswith("{") and part.endswith("}"):
            out.append(segment)
        else:
            out.append(re.escape(part))
    return re.compile("".join(out))


@functools.cache
def _host_pattern(pattern: str) -> re.Pattern[str]:
    return _pattern(pattern.lower(), r"[a-z0-9-]+")


@functools.cache
def _path_pattern(template: str) -> re.Pattern[str]:
    return _pattern(template, r"[^/]+")


def host_matches(pattern: str, host: str) -> bool:
    """Whether ``host`` (any case, maybe with the root's trailing dot) fits ``pattern``."""
    return _host_pattern(pattern).fullmatch(host.lower().rstrip(".")) is not None


def path_matches(template: str, path: str) -> bool:
    """Whether ``path`` is an instance of the path ``template`` (``{x}``: one segment)."""
    return _path_pattern(template).fullmatch(path) is not None


def live_host_patterns() -> tuple[str, ...]:
    """Every host whose answers are a provider's model: wires, their gateways, live variants."""
    hosts = [h for w in WIRES for h in (*w.hosts, *w.proxy_hosts)]
    hosts += [h for v in VARIANTS if v.live for h in v.hosts]
    return tuple(dict.fromkeys(hosts))


@functools.cache
def _live_literals() -> frozenset[str]:
    return frozenset(h for h in live_host_patterns() if "{" not in h and "*" not in h)


@functools.cache
def _live_patterns() -> tuple[str, ...]:
    return tuple(h for h in live_host_patterns() if "{" in h or "*" in h)


def is_live_api_host(host: str) -> bool:
    """Whether ``host`` is a model provider's API (a wire's, a gateway's or a hosted variant's)."""
    name = host.lower().rstrip(".")
    return name in _live_literals() or any(host_matches(p, name) for p in _live_patterns())


def wire_for_path(path: str) -> Wire | None:
    """The wire a model call posted to ``path`` speaks (by its ending), or None."""
    path = path.rstrip("/")
    for entry in WIRES:
        if path.endswith(entry.path_suffixes):
            return entry
    return None


def local_server(port: int | None) -> Variant | None:
    """The local OpenAI-compatible server whose default port is ``port``, or None."""
    if port is None:
        return None
    return next((v for v in VARIANTS if not v.live and v.default_port == port), None)


def credential_env_names() -> tuple[str, ...]:
    """Every variable name that may hold a provider's credential (keys, tokens)."""
    names = [n for w in WIRES for n in (*w.key_env, *w.secret_env)]
    names += [n for v in VARIANTS for n in v.key_env]
    return tuple(dict.fromkeys(names))


def env_prefixes() -> tuple[str, ...]:
    """The variable name prefixes that belong to a provider (never given to a sandbox)."""
    prefixes = [p for w in WIRES for p in w.env_prefixes]
    prefixes += [p for v in VARIANTS for p in v.env_prefixes]
    return tuple(dict.fromkeys(prefixes))


def secret_header_names() -> frozenset[str]:
    """Lower-case names of every header that carries a provider credential."""
    names = {h for w in WIRES for h in w.secret_headers}
    return frozenset(names | {h for v in VARIANTS for h in v.secret_headers})


def secret_query_params() -> frozenset[str]:
    """Lower-case names of every query parameter that carries a provider credential."""
    return frozenset(p.lower() for w in WIRES for p in w.secret_params)


@functools.cache
def _proto_json_suffixes() -> tuple[str, ...]:
    return tuple(s.lower() for w in WIRES if w.proto_json for s in w.path_suffixes)


def is_proto_json_call(path: str) -> bool:
    """Whether ``path`` is a model call of a wire whose bodies are proto-JSON (any case)."""
    return path.lower().endswith(_proto_json_suffixes())
