"""Usage means the same for every provider: input counts every prompt token."""

from __future__ import annotations

from typing import Any

import pytest
from anthropic.types import Usage as AnthropicUsage
from hypothesis import given
from hypothesis import strategies as st
from openai.types import CompletionUsage

from harness.core import Usage
from harness.wires.anthropic.provider import anthropic_usage
from harness.wires.openai.provider import _usage as openai_usage


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            {"input_tokens": 11, "output_tokens": 3, "cache_read_input_tokens": 2055},
            Usage(input_tokens=2066, output_tokens=3, cached_input_tokens=2055),
            id="cache-read",
        ),
        pytest.param(
            {"input_tokens": 4, "output_tokens": 2, "cache_creation_input_tokens": 1165},
            Usage(input_tokens=1169, output_tokens=2, cache_write_input_tokens=1165),
            id="cache-write",
        ),
        pytest.param(
            {
                "input_tokens": 1,
                "output_tokens": 1,
                "cache_read_input_tokens": None,
                "cache_creation_input_tokens": None,
            },
            Usage(input_tokens=1, output_tokens=1),
            id="null-cache-fields",
        ),
    ],
)
def test_anthropic_adds_cache_reads_and_writes(raw: dict[str, Any], expected: Usage) -> None:
    assert anthropic_usage(AnthropicUsage.model_validate(raw)) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param(
            {
                "prompt_tokens": 1420,
                "completion_tokens": 100,
                "total_tokens": 1520,
                "prompt_tokens_details": {"cached_tokens": 1280},
            },
            Usage(input_tokens=1420, output_tokens=100, cached_input_tokens=1280),
            id="cached",
        ),
        pytest.param(
            {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6},
            Usage(input_tokens=5, output_tokens=1),
            id="no-details",
        ),
    ],
)
def test_openai_prompt_tokens_already_include_the_cache(
    raw: dict[str, Any], expected: Usage
) -> None:
    assert openai_usage(CompletionUsage.model_validate(raw)) == expected


_COUNT = st.integers(min_value=0, max_value=10**9)
_USAGE = st.builds(
    Usage,
    input_tokens=_COUNT,
    output_tokens=_COUNT,
    cached_input_tokens=_COUNT,
    cache_write_input_tokens=_COUNT,
)


@given(_USAGE, _USAGE)
def test_usage_round_trips_and_adds_field_by_field(a: Usage, b: Usage) -> None:
    assert Usage.model_validate_json(a.model_dump_json()) == a
    total = a + b
    assert total.cache_write_input_tokens == a.cache_write_input_tokens + b.cache_write_input_tokens
    assert total.cached_input_tokens == a.cached_input_tokens + b.cached_input_tokens
    assert total.total_tokens == total.input_tokens + total.output_tokens


def test_usage_from_before_the_new_field_still_loads() -> None:
    old = '{"input_tokens": 3, "output_tokens": 2, "cached_input_tokens": 1}'
    assert Usage.model_validate_json(old).cache_write_input_tokens == 0
