"""The price table (shipped, overridden by HARNESS_PRICES) and what tokens cost."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import ConfigurationError
from harness.evals import ModelPrice, TokenUsage, default_prices, load_prices, usage_cost


def test_the_shipped_table_is_dated_and_prices_the_default_models() -> None:
    table = default_prices()
    assert table.as_of == "2026-12-01" and table.currency == "USD"
    for model in ("gpt-4.1-mini", "claude-sonnet-4-6"):
        assert table.price(model) is not None
    assert table.label == "harness defaults (prices as of 2026-12-01)"


def test_a_dated_snapshot_uses_its_family_price() -> None:
    table = default_prices()
    assert table.price("gpt-4.1-mini-2025-04-14") == table.price("gpt-4.1-mini")
    assert table.price("gpt-4.1-2025-04-14") == table.price("gpt-4.1")
    assert table.price("no-such-model") is None


@pytest.mark.parametrize("suffix", [".json", ".yaml"], ids=["json", "yaml"])
def test_a_user_file_overrides_and_adds_models(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"prices{suffix}"
    if suffix == ".json":
        text = '{"as_of": "2027-01-01", "models": {"gpt-4.1-mini": {"input": 1, "output": 2},'
        text += ' "my-model": {"input": 0.5, "output": 0.5}}}'
    else:
        text = "as_of: '2027-01-01'\nmodels:\n  gpt-4.1-mini: {input: 1, output: 2}\n"
        text += "  my-model: {input: 0.5, output: 0.5}\n"
    path.write_text(text, "utf-8")
    table = load_prices({"HARNESS_PRICES": str(path)})
    assert table.price("gpt-4.1-mini") == ModelPrice(input=1, output=2)
    assert table.price("my-model") is not None
    assert table.price("claude-sonnet-4-6") == default_prices().price("claude-sonnet-4-6")
    assert table.label == f"{path} (prices as of 2027-01-01)"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "is not valid JSON/YAML"),
        ('["a"]', "must be a mapping with 'as_of' and 'models', got list"),
        ('{"models": {}}', "as_of: Field required"),
        ('{"as_of": "x", "models": {"m": {"input": -1, "output": 1}}}', "models.m.input"),
        ('{"as_of": "x", "models": {"m": {"input": 1}}}', "models.m.output: Field required"),
        ('{"as_of": "x", "models": {"m": {"input": 1, "output": 1, "inpt": 2}}}', "inpt"),
    ],
    ids=["not-json", "not-a-mapping", "no-date", "negative", "no-output", "typo"],
)
def test_a_malformed_user_file_is_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "prices.json"
    path.write_text(text, "utf-8")
    with pytest.raises(ConfigurationError, match=r"price file .*prices\.json") as caught:
        load_prices({"HARNESS_PRICES": str(path)})
    assert message in str(caught.value)


def test_a_missing_user_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"cannot be read.*fix HARNESS_PRICES"):
        load_prices({"HARNESS_PRICES": str(tmp_path / "nope.yaml")})
    bad_yaml = tmp_path / "p.yaml"
    bad_yaml.write_text("as_of: [\n", "utf-8")
    with pytest.raises(ConfigurationError, match="not valid"):
        load_prices({"HARNESS_PRICES": str(bad_yaml)})


def test_cache_reads_and_writes_are_priced_apart() -> None:
    price = ModelPrice(input=3.0, output=15.0, cached_input=0.3, cache_write_input=3.75)
    # 1M prompt tokens of which 600k cache reads and 100k cache writes, plus 10k out.
    usage = TokenUsage(1_000_000, 10_000, 600_000, 100_000)
    assert usage_cost(usage, price) == pytest.approx(0.3 * 3.0 + 0.6 * 0.3 + 0.1 * 3.75 + 0.15)
    plain = ModelPrice(input=2.0, output=8.0)  # no cache prices: the input price
    assert usage_cost(usage, plain) == pytest.approx(2.0 + 0.08)


@given(
    st.integers(0, 10**7),
    st.integers(0, 10**7),
    st.integers(0, 10**7),
    st.integers(0, 10**7),
)
def test_cost_is_never_negative_and_grows_with_output(
    prompt: int, out: int, cached: int, written: int
) -> None:
    price = ModelPrice(input=3.0, output=15.0, cached_input=0.3, cache_write_input=3.75)
    usage = TokenUsage(prompt, out, cached, written)
    cost = usage_cost(usage, price)
    assert cost >= 0
    assert usage_cost(TokenUsage(prompt, out + 1, cached, written), price) > cost


def test_reasoning_models_are_priced_and_reasoning_tokens_cost_as_output() -> None:
    from harness.core import Usage
    from harness.evals import model_cost

    table = default_prices()
    price = table.price("gpt-5-mini-2025-08-07")
    assert price is not None and price == table.price("gpt-5-mini") != table.price("gpt-5")
    # The Responses adapter reports reasoning inside output_tokens (H10: 9 of 288).
    usage = Usage(input_tokens=44, output_tokens=288, reasoning_tokens=9)
    row = TokenUsage(usage.input_tokens, usage.output_tokens, usage.cached_input_tokens)
    without = TokenUsage(44, 288 - 9)
    cost, cheaper = model_cost(row, "gpt-5-mini", table), model_cost(without, "gpt-5-mini", table)
    assert cost is not None and cheaper is not None
    assert cost - cheaper == pytest.approx(9 * price.output / 1_000_000)


def test_genai_prices_prices_the_models_harness_does_not_list() -> None:
    from harness.evals.prices import genai_price

    table = default_prices()
    assert "gpt-4o" not in table.models and "claude-opus-4-1" not in table.models
    found = genai_price("gpt-4o")
    assert found is not None and table.price("gpt-4o") == found[1]
    assert table.price("gpt-4o") == ModelPrice(input=2.5, output=10.0, cached_input=1.25)
    # o3-mini is its own model, not a dated o3: genai-prices prices it, not o3's family.
    assert table.price("o3-mini") == genai_price("o3-mini")[1]  # type: ignore[index]
    assert table.price("o3-mini") != table.price("o3")
    # A tiered price (Gemini Pro over 200k tokens of context) is taken at its base tier.
    assert table.price("gemini-2.5-pro") == ModelPrice(input=1.25, output=10.0, cached_input=0.125)
    assert genai_price("no-such-model") is None


def test_the_baseline_models_are_pinned_at_genai_prices_list_price() -> None:
    # The committed cassettes and baselines price these; harness's table pins them so
    # a genai-prices update cannot move committed cost figures. Pinned at its price:
    # if genai-prices changes one, decide (re-pin, or keep and say why in prices.json).
    from harness.evals.prices import genai_price

    root = Path(__file__).resolve().parents[2]
    models = set()
    for baseline in (root / "evals" / "baselines").glob("*.json"):
        models |= {row["model"] for row in json.loads(baseline.read_text("utf-8"))["rows"]}
    table = default_prices()
    assert models and models <= set(table.models)
    for model in table.models:
        found = genai_price(model)
        assert found is not None and found[1] == table.models[model], model


def test_harness_prices_beats_genai_prices_for_a_model_and_its_snapshots(
    tmp_path: Path,
) -> None:
    path = tmp_path / "prices.json"
    path.write_text(
        '{"as_of": "2027-01-01", "models": {"gpt-4o": {"input": 9, "output": 9},'
        ' "gpt-4.1": {"input": 7, "output": 7}}}',
        "utf-8",
    )
    table = load_prices({"HARNESS_PRICES": str(path)})
    mine = ModelPrice(input=9, output=9)
    assert table.price("gpt-4o") == table.price("gpt-4o-2024-08-06") == mine
    # Another model whose name starts with an overridden one keeps its own price.
    assert table.price("gpt-4.1-nano") == default_prices().price("gpt-4.1-nano")
    assert table.price("gpt-4.1-nano") != ModelPrice(input=7, output=7)


@given(
    st.sampled_from(sorted(default_prices().models)),
    st.dates(dt.date(2000, 1, 1), dt.date(2099, 12, 31)),
    st.sampled_from(["-%Y-%m-%d", "-%Y%m%d"]),
)
def test_a_dated_snapshot_of_a_listed_model_has_its_price(
    model: str, day: dt.date, form: str
) -> None:
    table = default_prices()
    assert table.price(model + day.strftime(form)) == table.models[model]
