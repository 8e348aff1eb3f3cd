"""What an ``llm_cassette`` test may set: profiles and ignore lists, merged and checked.

Settings come from the ``llm_cassette_config`` fixture (override it in a
conftest, as pytest-recording's ``vcr_config``) and from
``@pytest.mark.llm_cassette(...)`` on the test, the marker winning field by
field. A profile names the request fields a framework makes random or
version-dependent, so a recording replays whatever the run:

- ``openai-agents``: the OpenAI Agents SDK sends ``prompt_cache_key`` (a fresh
  uuid every run) and ``store: true`` when its client points at api.openai.com,
  and neither when it points at the simulator or a proxy.
- ``pydantic-ai``: pydantic-ai tags requests with ``metadata`` and ``user``
  fields from its model settings; neither picks the answer.
- ``litellm``: no request field; LiteLLM's own downloads are kept off the
  network instead (its price-map host is offline, see ``_PROFILE_OFFLINE_HOSTS``
  and ``harness.testing.profile_hooks``).
- ``codex``, ``claude-code``: agents that run as their own process, under
  ``llm_proxy``; their fields here, their text rules (the date and working
  folder of the system prompt, tool-output timings) and variables in
  ``harness.proxy._profiles``. ``normalize`` (a regex -> placeholder mapping)
  adds a test's own text rules there.

A profile may also set the framework up for each test
(``harness.testing.profile_hooks``: the Agents SDK's per-test client, LiteLLM's
offline switches).
``offline_hosts`` are ignored hosts that fail as a dead network does;
``stream`` (marker only) twins one test into a plain and a streaming run
(``harness.testing.plugin.stream_twins``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from harness.core.errors import ConfigurationError
from harness.proxy import PROFILES as PROXY_PROFILES

__all__ = ["PROFILES", "LLMCassetteConfig", "resolve_config"]

PROFILES: dict[str, tuple[str, ...]] = {
    "openai-agents": ("prompt_cache_key", "store"),
    "pydantic-ai": ("metadata", "user"),
    "litellm": (),
    # Agents that run as their own process (``llm_proxy``): their fields here,
    # their text rules and variables in harness.proxy._profiles.
    **{name: p.ignore_body_fields for name, p in PROXY_PROFILES.items()},
}
# Hosts a profile makes offline (added to ``offline_hosts``): a download the
# framework makes on its own, which a replay must neither hit nor crash on.
_PROFILE_OFFLINE_HOSTS: dict[str, tuple[str, ...]] = {
    # LiteLLM's model price map (and its other catalogs) at import.
    "litellm": ("raw.githubusercontent.com",),
}
_LISTS = ("ignore_body_fields", "ignore_query_params", "ignore_hosts", "offline_hosts")
_FIELDS = ("profile", *_LISTS, "allow_unplayed", "model", "stream", "normalize")


@dataclass(frozen=True, slots=True)
class LLMCassetteConfig:
    """The resolved settings of one ``llm_cassette``.

    Attributes:
        profiles: the framework profiles in force, e.g. ``("openai-agents",)``.
        ignore_body_fields: dotted body paths matching ignores, profiles' included.
        ignore_query_params: query parameters matching ignores.
        ignore_hosts: hosts the cassette neither plays nor records.
        offline_hosts: ignored hosts that are offline: a request to one fails as on
            a machine without network, with the HTTP library's own catchable
            connection error (``httpx.ConnectError``, ``requests.ConnectionError``),
            in every record mode.
        allow_unplayed: whether recorded interactions may go unused (None: not in
            ``eval`` tests, yes elsewhere).
        normalize: ``(regex, placeholder)`` rules ``llm_proxy`` applies to every
            string of a request body before matching and saving (per-run text).
    """

    profiles: tuple[str, ...] = ()
    ignore_body_fields: tuple[str, ...] = ()
    ignore_query_params: tuple[str, ...] = ()
    ignore_hosts: tuple[str, ...] = ()
    allow_unplayed: bool | None = None
    offline_hosts: tuple[str, ...] = ()
    normalize: tuple[tuple[str, str], ...] = ()


def _rules(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and k and isinstance(v, str) for k, v in value.items()
    ):
        raise ConfigurationError(
            f"llm_cassette normalize in {where} must map regexes to placeholders, e.g. "
            f"{{r'session \\d+': 'session <n>'}}; got {value!r}"
        )
    return tuple(value.items())


def _names(value: Any, field: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Iterable) or not all(isinstance(v, str) and v for v in value):
        raise ConfigurationError(
            f"llm_cassette {field} in {where} must be a name or a list of names, got {value!r}"
        )
    return tuple(value)


def _checked(settings: Mapping[str, Any], where: str) -> dict[str, Any]:
    unknown = sorted(set(settings) - set(_FIELDS))
    if unknown:
        raise ConfigurationError(
            f"llm_cassette does not know {', '.join(unknown)} (in {where}); it takes "
            f"{', '.join(_FIELDS)}"
        )
    checked: dict[str, Any] = {}
    for field, value in settings.items():
        if field == "stream":
            continue  # read at collection, where it twins the test (see stream_twins)
        if field == "model":
            if not isinstance(value, str) or not value.strip():
                raise ConfigurationError(
                    f"llm_cassette model in {where} must be a model name, got {value!r}"
                )
            checked[field] = value
        elif field == "normalize":
            checked[field] = _rules(value, where)
        elif field == "allow_unplayed":
            if value is not None and not isinstance(value, bool):
                raise ConfigurationError(f"llm_cassette allow_unplayed in {where} must be a bool")
            checked[field] = value
        else:
            checked[field] = _names(value, field, where)
    for profile in checked.get("profile", ()):
        if profile not in PROFILES:
            raise ConfigurationError(
                f"unknown llm_cassette profile {profile!r} in {where}; known: "
                f"{', '.join(sorted(PROFILES))}"
            )
    return checked


def resolve_config(
    fixture: Mapping[str, Any] | None,
    marker: Mapping[str, Any] | None,
    *,
    query_params: Iterable[str] = (),
) -> LLMCassetteConfig:
    """Merge the fixture's and the marker's settings (the marker wins per field).

    ``query_params`` are the run's ``--harness-ignore-query-params``, always added.

    Raises:
        ConfigurationError: an unknown setting or profile, or a value of a wrong type.
    """
    if fixture is not None and not isinstance(fixture, Mapping):
        raise ConfigurationError(
            f"the llm_cassette_config fixture must return a dict, got {type(fixture).__name__}"
        )
    if fixture and "stream" in fixture:
        raise ConfigurationError(
            "llm_cassette stream cannot be set in the llm_cassette_config fixture (it picks "
            "the test's runs at collection); use @pytest.mark.llm_cassette(stream=...)"
        )
    if fixture and "model" in fixture:
        # The model picks the cassette's path, which mutants and reports find
        # without fixtures: only the marker and --harness-model may set it.
        raise ConfigurationError(
            "llm_cassette model cannot be set in the llm_cassette_config fixture; use "
            "@pytest.mark.llm_cassette(model=...) or --harness-model"
        )
    merged = {
        **_checked(fixture or {}, "the llm_cassette_config fixture"),
        **_checked(marker or {}, "@pytest.mark.llm_cassette"),
    }
    profiles = merged.get("profile", ())
    fields = [field for profile in profiles for field in PROFILES[profile]]
    fields += merged.get("ignore_body_fields", ())
    params = [*query_params, *merged.get("ignore_query_params", ())]
    offline = [host for profile in profiles for host in _PROFILE_OFFLINE_HOSTS.get(profile, ())]
    offline += merged.get("offline_hosts", ())
    return LLMCassetteConfig(
        profiles=profiles,
        ignore_body_fields=tuple(dict.fromkeys(fields)),
        ignore_query_params=tuple(dict.fromkeys(params)),
        ignore_hosts=tuple(dict.fromkeys(h.lower() for h in merged.get("ignore_hosts", ()))),
        allow_unplayed=merged.get("allow_unplayed"),
        offline_hosts=tuple(dict.fromkeys(h.lower() for h in offline)),
        normalize=merged.get("normalize", ()),
    )
