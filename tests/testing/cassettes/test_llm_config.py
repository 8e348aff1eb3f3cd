"""``llm_cassette`` settings: profiles and ignore lists merge field by field, bad ones are
refused in one line; telemetry URLs are told apart from model calls."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import ConfigurationError
from harness.recording import is_telemetry
from harness.testing import PROFILES, LLMCassetteConfig
from harness.testing.cassettes.llm_config import resolve_config
from harness.testing.rows.traffic_rows import model_api

names = st.lists(st.text(st.sampled_from("abcxyz._*"), min_size=1, max_size=8), max_size=4)


@pytest.mark.deep
@given(fixture=names, marker=names, params=names)
def test_the_marker_wins_per_field_and_profiles_add_their_fields(
    fixture: list[str], marker: list[str], params: list[str]
) -> None:
    config = resolve_config(
        {"ignore_body_fields": fixture, "profile": "openai-agents"},
        {"ignore_body_fields": marker} if marker else {},
        query_params=params,
    )
    chosen = marker or fixture
    assert set(config.ignore_body_fields) == set(PROFILES["openai-agents"]) | set(chosen)
    assert len(config.ignore_body_fields) == len(set(config.ignore_body_fields))
    assert config.ignore_query_params == tuple(dict.fromkeys(params))
    assert config.profiles == ("openai-agents",)


def test_no_settings_is_the_empty_config() -> None:
    assert resolve_config({}, None) == LLMCassetteConfig()


@pytest.mark.parametrize(
    ("fixture", "marker", "message"),
    [
        ({"profil": "x"}, {}, "llm_cassette does not know profil"),
        ({}, {"profile": "langchain"}, "unknown llm_cassette profile 'langchain'"),
        ({}, {"ignore_hosts": [3]}, "ignore_hosts in @pytest.mark.llm_cassette must be"),
        ({"allow_unplayed": "yes"}, {}, "allow_unplayed in the llm_cassette_config fixture"),
    ],
    ids=["unknown-key", "unknown-profile", "not-names", "not-bool"],
)
def test_bad_settings_are_one_clear_error(
    fixture: dict[str, Any], marker: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        resolve_config(fixture, marker)


@pytest.mark.parametrize(
    ("url", "telemetry"),
    [
        ("https://api.openai.com/v1/traces/ingest", True),
        ("http://127.0.0.1:8765/v1/traces/ingest/", True),
        ("https://logfire-us.pydantic.dev/v1/traces", True),
        ("https://logfire-api.pydantic.dev/v1/metrics", True),
        ("https://api.smith.langchain.com/runs/batch", True),
        ("https://eu.api.smith.langchain.com/runs", True),
        ("https://api.openai.com/v1/chat/completions", False),
        ("https://api.anthropic.com/v1/messages?beta=true", False),
        ("https://docs.pydantic.dev/v1/traces", False),
    ],
)
def test_telemetry_urls(url: str, telemetry: bool) -> None:
    assert is_telemetry(url) is telemetry


@given(st.text(max_size=30))
def test_no_path_under_the_model_apis_is_telemetry(tail: str) -> None:
    for base in (
        "https://api.openai.com/v1/chat/completions",
        "https://api.anthropic.com/v1/messages",
    ):
        url = base + "?" + tail.replace("#", "")
        assert not is_telemetry(url)
        assert model_api("POST", url) is not None
        assert model_api("GET", url) is None


def _telemetry_rule(url: str) -> bool:
    """The rule written out in full, without the quick pre-check ``is_telemetry`` starts with."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    return (
        parts.path.rstrip("/").endswith("/traces/ingest")
        or host.endswith("smith.langchain.com")
        or (host.startswith("logfire") and host.endswith(".pydantic.dev"))
    )


pieces = st.sampled_from(
    ["api", "openai", "com", "smith", "langchain", "logfire", "-us", "pydantic", "dev", "x"]
)
hosts = st.lists(pieces, min_size=1, max_size=4).map(".".join)
paths = st.lists(
    st.sampled_from(["v1", "traces", "ingest", "TRACES", "Ingest", "runs", "logfire", ""]),
    max_size=4,
).map("/".join)


@given(host=hosts, path=paths, upper=st.booleans(), slash=st.booleans())
def test_the_quick_telemetry_check_agrees_with_the_full_rule(
    host: str, path: str, upper: bool, slash: bool
) -> None:
    url = f"https://{host.upper() if upper else host}/{path}{'/' if slash else ''}"
    assert is_telemetry(url) is _telemetry_rule(url)
