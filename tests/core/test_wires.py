"""The wire registry: every wire has its parts, and its facts have one home.

Two checks keep ``harness.core.wires`` the one home of the wire facts:

- completeness: each part a wire names (SDK adapter, traffic reader, simulator
  renderer, mutation codec, transcript renderer) imports, lives in the wire's
  home package (``Wire.home``, under ``harness/wires/``) and provides its
  contract (``harness.wires.protocols``: the functions and their parameters),
  and a part is left out only where the wire lacks the capability that needs
  it (Bedrock is traffic-only). A wire whose own package is not there yet is
  skipped with the reason, so a wire in flight is visible, not hidden;
- one home: no string constant in ``harness/`` (docstrings and comments aside,
  which document) spells a wire's host or environment variable outside
  ``harness/core/wires.py`` and the wire's own package (a wire on another's SDK,
  Responses on the openai client, shares that one's). A room that needs the
  fact asks the registry.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from collections.abc import Iterator
from dataclasses import fields, replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import harness
from harness.core import wires
from harness.core.errors import ConfigurationError
from harness.core.wires import VARIANTS, WIRES, Capability, Variant, Wire, WireParts
from tests.source_tree import parsed

ROOT = Path(harness.__file__).parent
REGISTRY = ROOT / "core" / "wires.py"

# Strings that name a wire's fact outside its home on purpose, each with its reason.
# Keys are (path relative to harness/, the fact); keep this list short.
ALLOWED: dict[tuple[str, str], str] = {}


def _home_dirs(name: str) -> tuple[Path, ...]:
    """The package(s) a wire's facts may be spelled in: its own, and for a wire that
    shares its SDK with another (Responses on the openai client), that one's too."""
    homes = [w.home for w in WIRES if w.home and (w.name == name or _shares_sdk(w, name))]
    return tuple(ROOT.joinpath(*home.split(".")[1:]) for home in homes)


def _shares_sdk(entry: Wire, name: str) -> bool:
    return entry.sdk_packages == wires.wire(name).sdk_packages


def _package_present(entry: Wire) -> bool:
    if entry.home is None:
        return True
    return ROOT.joinpath(*entry.home.split(".")[1:], "__init__.py").is_file()


def _load(dotted: str) -> object:
    module_name, _, attribute = dotted.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module


# -- completeness -------------------------------------------------------------------------


def _signature_gaps(part: object, protocol: type) -> list[str]:
    """What ``part`` lacks of ``protocol``: a member, or a parameter of a member's signature."""
    gaps = []
    for name, declared in vars(protocol).items():
        if name.startswith("_") or not callable(declared):
            continue
        found = getattr(part, name, None)
        if not callable(found):
            gaps.append(f"no {name}()")
            continue
        wanted = [p for p in inspect.signature(declared).parameters if p != "self"]
        have = inspect.signature(found).parameters
        if not set(wanted) <= set(have):
            gaps.append(f"{name}() takes {list(have)}, the contract {wanted}")
    for name in getattr(protocol, "__annotations__", {}):
        if not hasattr(part, name):
            gaps.append(f"no {name}")
    return gaps


def _sample_path(entry: Wire) -> str:
    return re.sub(r"\{[^}]*\}", "m", entry.paths[0])


def part_problems(entry: Wire) -> list[str]:
    """Why ``entry``'s parts are not what the registry says, or an empty list.

    Each part must load, live in the wire's home package (``Wire.home``, under
    ``harness.wires``) and provide its contract (``harness.wires.protocols``).
    """
    from harness.wires.protocols import PART_PROTOCOLS, ProviderPart, SimulatorApi

    if entry.home is None or not entry.home.startswith("harness.wires."):
        return [f"its home is {entry.home!r}, not a package under harness.wires"]
    problems = []
    for part in fields(WireParts):
        dotted = getattr(entry.parts, part.name)
        if dotted is None:
            continue
        module_name = dotted.partition(":")[0]
        if module_name != entry.home and not module_name.startswith(entry.home + "."):
            problems.append(f"its {part.name} part {dotted} is outside its home {entry.home}")
            continue
        try:
            loaded = _load(dotted)
        except (ImportError, AttributeError) as exc:
            problems.append(f"its {part.name} part {dotted} does not load: {exc}")
            continue
        protocol = PART_PROTOCOLS[part.name]
        if protocol is ProviderPart:
            init = getattr(loaded, "__init__", None)
            wanted = {"model", "api_key", "base_url", "max_retries", "stream"}
            have = set(inspect.signature(init).parameters) if init else set()
            gaps = [] if wanted <= have else [f"its constructor lacks {sorted(wanted - have)}"]
            if not callable(getattr(loaded, "http_library", None)):
                gaps.append("no http_library()")
        else:
            gaps = _signature_gaps(loaded, protocol)
        if part.name == "simulator" and not gaps:
            api = loaded.route(_sample_path(entry))
            gaps = (
                [f"route({_sample_path(entry)!r}) gives no API"]
                if api is None
                else _signature_gaps(api, SimulatorApi)
            )
        problems += [f"its {part.name} part {dotted}: {gap}" for gap in gaps]
    return problems


@pytest.mark.parametrize("entry", WIRES, ids=[w.name for w in WIRES])
def test_every_part_of_a_wire_is_in_its_home_and_keeps_its_contract(entry: Wire) -> None:
    present = _package_present(entry)
    if entry.pending and not present:
        pytest.skip(
            f"wire {entry.name!r} is pending: its package {entry.home} is not in this tree "
            "yet (it lands with the wire's own branch)"
        )
    assert present, f"wire {entry.name!r} is not pending but its package {entry.home} is missing"
    problems = part_problems(entry)
    assert not problems, f"wire {entry.name!r}: " + "; ".join(problems)
    assert not entry.pending, (
        f"wire {entry.name!r} has all its parts now: set pending=False in harness/core/wires.py "
        "so the rooms offer it"
    )


def _planted(home: str | None, **parts: str | None) -> Wire:
    openai = wires.wire("openai")
    values = {f.name: getattr(openai.parts, f.name) for f in fields(WireParts)}
    return replace(openai, name="planted", home=home, parts=WireParts(**{**values, **parts}))


@pytest.mark.parametrize(
    ("home", "parts", "problem"),
    [
        (None, {}, "its home is None, not a package under harness.wires"),
        (
            "harness.wires.planted",
            {},
            "its provider part harness.wires.openai.provider:OpenAIProvider is outside its home",
        ),
        (
            "harness.wires.openai",
            {"transcript": "harness.wires.openai.missing"},
            "its transcript part harness.wires.openai.missing does not load",
        ),
        (
            "harness.wires.openai",
            {"transcript": "harness.wires.openai.sdk"},
            "its transcript part harness.wires.openai.sdk: no reads()",
        ),
        (
            "harness.wires.openai",
            {"simulator": "harness.wires.openai.traffic"},
            "its simulator part harness.wires.openai.traffic: no route()",
        ),
        (
            "harness.wires.openai",
            {"provider": "harness.wires.openai.sdk:OpenAISdkProvider"},
            "its provider part harness.wires.openai.sdk:OpenAISdkProvider: its constructor lacks",
        ),
    ],
    ids=["no-home", "outside-home", "does-not-load", "lacks-a-function", "wrong-part", "ctor"],
)
def test_the_completeness_check_names_a_missing_or_misplaced_part(
    home: str | None, parts: dict[str, str | None], problem: str
) -> None:
    found = part_problems(_planted(home, **parts))
    assert any(p.startswith(problem) for p in found), found


def test_a_wire_home_holds_its_facts_and_a_wire_on_the_same_sdk_shares_them() -> None:
    wires_dir = ROOT / "wires"
    assert _home_dirs("anthropic") == (wires_dir / "anthropic",)
    assert set(_home_dirs("openai-responses")) == {
        wires_dir / "openai",
        wires_dir / "openai_responses",
    }
    assert wires_dir / "openai" not in _home_dirs("gemini")


@pytest.mark.parametrize(
    ("capability", "part"),
    [
        (Capability.RUNTIME, "provider"),
        (Capability.SIMULATOR, "simulator"),
        (Capability.SIMULATOR, "mutations"),
    ],
    ids=["runtime-needs-provider", "simulator-needs-renderer", "simulator-needs-codec"],
)
def test_a_wire_that_lacks_a_part_its_capability_needs_is_refused(
    capability: Capability, part: str
) -> None:
    parts = WireParts(
        provider="m:p", traffic="m:t", simulator="m:s", mutations="m:c", transcript="m:r"
    )
    with pytest.raises(ConfigurationError, match=f"has no {part} part"):
        Wire(
            name="x",
            title="X",
            hosts=(),
            paths=(),
            path_suffixes=(),
            sdk_base_url=None,
            simulator_base_path="",
            key_env=(),
            base_url_env=(),
            secret_env=(),
            account_env=(),
            env_prefixes=(),
            secret_headers=(),
            secret_params=(),
            sdk_packages=(),
            price_key="x",
            capabilities=frozenset({capability}),
            parts=_without(parts, part),
        )


def _without(parts: WireParts, part: str) -> WireParts:
    values = {f.name: getattr(parts, f.name) for f in fields(WireParts)}
    return WireParts(**{**values, part: None})


def test_a_runtime_wire_without_its_default_models_is_refused() -> None:
    openai = wires.wire("openai")
    with pytest.raises(ConfigurationError, match="names no default_model and recorded_model"):
        replace(openai, recorded_model=None)
    with pytest.raises(ConfigurationError, match="names no default_model"):
        replace(openai, default_model=None)
    assert replace(wires.wire("bedrock"), default_model=None).default_model is None


def test_a_part_is_loaded_by_the_registry_s_dotted_path() -> None:
    from harness.core.wire_parts import load_part
    from harness.wires.anthropic import simulator
    from harness.wires.openai.provider import OpenAIProvider

    assert load_part("openai", "provider") is OpenAIProvider
    assert load_part(wires.wire("anthropic"), "simulator") is simulator
    with pytest.raises(LookupError, match="wire 'bedrock' has no provider part"):
        load_part("bedrock", "provider")
    with pytest.raises(KeyError, match="no wire 'nope'"):
        load_part("nope", "traffic")


@pytest.mark.parametrize(
    ("path", "proto"),
    [
        ("/v1beta/models/gemini-2.5-flash:generateContent", True),
        ("/v1beta/models/gemini-2.5-flash:streamGenerateContent", True),
        ("/v1/projects/p/locations/l/publishers/google/models/m:GenerateContent", True),
        ("/v1/chat/completions", False),
        ("/model/m/converse", False),
        ("/v1beta/models/m:countTokens", False),
    ],
)
def test_proto_json_calls_are_the_registry_s(path: str, proto: bool) -> None:
    assert wires.is_proto_json_call(path) is proto


# One message of each shape a run sends, and the wire whose transcript part claims it
# (None: the role/content shape harness's own messages share, read by the viewer).
SENT = [
    ({"role": "user", "content": "hi"}, None),
    ({"role": "assistant", "content": "ok", "tool_calls": []}, None),
    ({"role": "tool", "tool_call_id": "c1", "content": "42"}, "openai"),
    (
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        "openai-responses",
    ),
    ({"type": "function_call_output", "call_id": "c1", "output": "42"}, "openai-responses"),
    ({"type": "message", "role": "user", "content": "hi"}, None),
    (
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "4"}]},
        "anthropic",
    ),
    ({"role": "user", "content": [{"type": "text", "text": "hi"}]}, None),
    ({"role": "user", "parts": [{"text": "hi"}]}, "gemini"),
    ({"role": "function", "parts": [{"functionResponse": {"name": "f"}}]}, "gemini"),
    ({"role": "user", "content": [{"text": "hi"}]}, "bedrock"),
    ({"role": "user", "content": [{"toolResult": {"toolUseId": "t"}}]}, "bedrock"),
]


@pytest.mark.parametrize(("message", "owner"), SENT)
def test_at_most_one_wire_claims_a_sent_message(
    message: dict[str, object], owner: str | None
) -> None:
    from harness.core.wire_parts import load_part

    claims = [w.name for w in wires.ready_wires() if load_part(w, "transcript").reads(message)]
    assert claims == ([owner] if owner else [])


def test_a_traffic_only_wire_needs_no_runtime_or_simulator_part() -> None:
    bedrock = wires.wire("bedrock")
    assert bedrock.capabilities == {Capability.TRAFFIC}
    assert bedrock.parts.provider is bedrock.parts.simulator is bedrock.parts.mutations is None


def test_names_are_unique_and_every_variant_names_a_wire() -> None:
    names = [w.name for w in WIRES]
    assert len(names) == len(set(names))
    assert len({v.name for v in VARIANTS}) == len(VARIANTS)
    assert {v.wire for v in VARIANTS} <= set(names)
    assert not set(names) & {v.name for v in VARIANTS}


# -- one home -----------------------------------------------------------------------------


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes (documentation may name a variable or host)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _strings(path: Path) -> Iterator[tuple[int, str]]:
    tree = parsed(path)
    skip = _docstrings(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            yield node.lineno, node.value


def _host_fact(pattern: str) -> str:
    """The literal part of a host pattern that names it (``.openai.azure.com``)."""
    pieces = re.split(r"\{[^}]*\}|\*", pattern)
    return max(pieces, key=len).strip("-.")


def _facts() -> dict[str, tuple[str, re.Pattern[str]]]:
    """Each fact -> (the wire whose home may spell it, how it is spelled)."""
    facts: dict[str, tuple[str, re.Pattern[str]]] = {}
    owners: list[tuple[str, Wire | Variant]] = [(w.name, w) for w in WIRES]
    owners += [(v.wire, v) for v in VARIANTS]
    for owner, entry in owners:
        extra = entry.proxy_hosts if isinstance(entry, Wire) else ()
        for host in (*entry.hosts, *extra):
            fact = _host_fact(host)
            facts.setdefault(fact, (owner, re.compile(re.escape(fact), re.IGNORECASE)))
        names = entry.env_names if isinstance(entry, Wire) else entry.key_env + entry.base_url_env
        for name in names:
            facts.setdefault(name, (owner, re.compile(rf"(?<![A-Z0-9_]){name}(?![A-Z0-9_])")))
    return facts


def _violations() -> list[str]:
    facts = _facts()
    # Every spelling holds its fact verbatim (names in capitals, hosts in any case):
    # a plain substring test on the lowered text rules out most files and strings
    # before any pattern runs (one alternation of all the patterns took ~2 s).
    lowered = {fact: fact.lower() for fact in facts}
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if path == REGISTRY:
            continue
        source = path.read_text("utf-8").lower()
        if not any(low in source for low in lowered.values()):
            continue
        relative = path.relative_to(ROOT).as_posix()
        for line, text in _strings(path):
            lower = text.lower()
            for fact, (owner, spelled) in facts.items():
                if lowered[fact] not in lower or not spelled.search(text):
                    continue
                if any(path.is_relative_to(home) for home in _home_dirs(owner)):
                    continue
                if (relative, fact) in ALLOWED:
                    continue
                found.append(f"harness/{relative}:{line}: {fact!r} (wire {owner})")
    return found


def test_no_host_or_variable_of_a_wire_is_spelled_outside_its_home() -> None:
    violations = _violations()
    assert not violations, (
        "a wire's host or environment variable is spelled outside harness/core/wires.py and "
        "harness/wires/<wire>/; ask the registry (harness.core.wires) instead:\n  "
        + "\n  ".join(violations)
    )


def test_the_check_sees_a_fact_kept_twice(tmp_path: Path) -> None:
    source = tmp_path / "copy.py"
    source.write_text(
        '"""Docs may say OPENAI_API_KEY."""\n'
        'KEY = "OPENAI_API_KEY"\n'
        'URL = f"https://{REGION}-aiplatform.googleapis.com/v1"\n'
        'FINE = "MY_OPENAI_API_KEY_X"\n',
        "utf-8",
    )
    facts = _facts()
    hits = {
        (line, fact)
        for line, text in _strings(source)
        for fact, (_, spelled) in facts.items()
        if spelled.search(text)
    }
    assert hits == {(2, "OPENAI_API_KEY"), (3, "aiplatform.googleapis.com")}


# -- the facts, read back -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "live"),
    [
        ("api.openai.com", True),
        ("API.Anthropic.com.", True),
        ("my-resource.openai.azure.com", True),
        ("a.b.openai.azure.com", True),
        ("generativelanguage.googleapis.com", True),
        ("us-central1-aiplatform.googleapis.com", True),
        ("aiplatform.googleapis.com", True),
        ("aiplatform.europe-west4.rep.googleapis.com", True),
        ("bedrock-runtime.us-east-1.amazonaws.com", True),
        ("bedrock-runtime-fips.us-gov-west-1.amazonaws.com", True),
        ("api.cohere.com", True),
        ("api.perplexity.ai", True),
        ("openai.azure.com", False),
        ("api.openai.com.evil.example", False),
        ("evil-openai.azure.com.example", False),
        ("bedrock-runtime.amazonaws.com", False),
        ("s3.us-east-1.amazonaws.com", False),
        ("127.0.0.1", False),
    ],
)
def test_live_hosts_and_their_patterns(host: str, live: bool) -> None:
    assert wires.is_live_api_host(host) is live


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/v1/chat/completions", "openai"),
        ("/openai/deployments/gpt-4o/chat/completions", "openai"),  # Azure OpenAI
        ("/api/v1/chat/completions/", "openai"),
        ("/v1/responses", "openai-responses"),
        ("/v1/messages", "anthropic"),
        ("/v1beta/models/gemini-2.5-flash:generateContent", "gemini"),
        ("/v1beta/models/gemini-2.5-flash:streamGenerateContent", "gemini"),
        (
            "/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.5-pro"
            ":generateContent",
            "gemini",
        ),
        ("/model/anthropic.claude-3-haiku-20240307-v1:0/converse", "bedrock"),
        ("/model/amazon.nova-lite-v1:0/converse-stream", "bedrock"),
        ("/v1/models", None),
        ("/v1/embeddings", None),
    ],
)
def test_a_model_call_is_told_by_its_path(path: str, name: str | None) -> None:
    found = wires.wire_for_path(path)
    assert (found.name if found else None) == name


def test_every_path_template_of_a_wire_and_its_variants_is_that_wire_s() -> None:
    for entry in WIRES:
        for template in entry.paths:
            path = re.sub(r"\{[^}]*\}", "x", template)
            assert wires.path_matches(template, path)
            assert wires.wire_for_path(path) is entry, template
    for variant in VARIANTS:
        for template in variant.paths:
            assert wires.wire_for_path(re.sub(r"\{[^}]*\}", "x", template)) is wires.wire(
                variant.wire
            )


def test_azure_openai_is_a_variant_of_chat_completions() -> None:
    azure = wires.variant("azure-openai")
    assert azure.wire == "openai" and azure.live
    assert "api-key" in wires.secret_header_names()
    assert azure.query_params == ("api-version",)
    assert wires.is_live_api_host("contoso.openai.azure.com")


@pytest.mark.parametrize(
    ("port", "name"),
    [(11434, "ollama"), (8000, "vllm"), (1234, "lm-studio"), (4000, "litellm"), (8080, None)],
)
def test_local_servers_are_known_by_their_default_port(port: int, name: str | None) -> None:
    server = wires.local_server(port)
    assert (server.name if server else None) == name
    assert server is None or (server.wire == "openai" and not server.live)


def test_only_ready_runtime_wires_are_provider_choices() -> None:
    names = [w.name for w in wires.runtime_wires()]
    assert "bedrock" not in names
    assert not any(wires.wire(name).pending for name in names)
    assert {"openai", "openai-responses", "anthropic"} <= set(names)


def test_the_secret_facts_cover_every_wire() -> None:
    headers = wires.secret_header_names()
    assert {"authorization", "x-api-key", "x-goog-api-key", "x-amz-security-token"} <= headers
    assert {"key", "x-amz-signature"} <= wires.secret_query_params()
    names = wires.credential_env_names()
    assert {"OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AWS_SECRET_ACCESS_KEY"} <= set(
        names
    )
    # Region and project pick an account; their values are no secret to hunt in cassettes.
    assert not {"AWS_REGION", "GOOGLE_CLOUD_PROJECT"} & set(names)


# -- matching, as properties --------------------------------------------------------------

label = st.text("abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1, max_size=12)
segment = st.text(st.characters(blacklist_characters="/", blacklist_categories=("Cs",)), min_size=1)
LIVE = wires.live_host_patterns()


def _fill(pattern: str, labels: list[str]) -> str:
    parts = iter(labels)
    return re.sub(r"\{[^}]*\}|\*", lambda _: next(parts), pattern)


@given(st.sampled_from(LIVE), st.lists(label, min_size=4, max_size=4), label)
def test_a_live_host_pattern_matches_its_instances_and_nothing_around_them(
    pattern: str, labels: list[str], other: str
) -> None:
    host = _fill(pattern, labels)
    assert wires.host_matches(pattern, host) and wires.host_matches(pattern, host.upper() + ".")
    assert wires.is_live_api_host(host)
    assert not wires.host_matches(pattern, f"{host}.{other}")  # a suffix makes another domain
    if not pattern.startswith(("*", "{")):
        assert not wires.host_matches(pattern, f"{other}.{host}")


@given(st.sampled_from([p for w in WIRES for p in w.paths]), st.lists(segment, min_size=4))
def test_a_path_template_takes_one_segment_per_placeholder(
    template: str, values: list[str]
) -> None:
    path = _fill(template, values)
    assert wires.path_matches(template, path)
    if "{" in template:
        assert not wires.path_matches(template, _fill(template, [f"{v}/x" for v in values]))


@given(
    st.sampled_from([(s, w.name) for w in WIRES for s in w.path_suffixes]),
    st.lists(label, max_size=3),
    st.booleans(),
)
def test_a_call_is_told_by_its_path_ending_whatever_the_prefix(
    suffix_wire: tuple[str, str], prefix: list[str], slash: bool
) -> None:
    suffix, name = suffix_wire
    path = "".join(f"/{p}" for p in prefix) + "/models/m" + suffix + ("/" if slash else "")
    found = wires.wire_for_path(path)
    assert found is not None and found.name == name


@given(
    st.sampled_from([(s, w.proto_json) for w in WIRES for s in w.path_suffixes]),
    st.lists(label, max_size=3),
    st.booleans(),
)
def test_a_proto_json_call_is_told_by_its_ending_in_any_case(
    suffix_proto: tuple[str, bool], prefix: list[str], upper: bool
) -> None:
    suffix, proto = suffix_proto
    path = "".join(f"/{p}" for p in prefix) + "/models/m" + suffix
    assert wires.is_proto_json_call(path.upper() if upper else path) is proto
