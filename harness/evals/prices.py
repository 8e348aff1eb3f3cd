"""The price table: what a million tokens of each model cost, and since when.

Prices come from three layers, the first that knows a model winning: a user
file named by ``HARNESS_PRICES`` (JSON or YAML), harness's own dated table
(``prices.json`` next to this module: only models genai-prices lacks), then the
`genai-prices <https://github.com/pydantic/genai-prices>`_ data for every model
it knows. A malformed file is a ``ConfigurationError`` naming the file and field.
genai-prices is imported on the first model the two tables do not price: it
costs a few hundred milliseconds, and most runs price only the simulator's.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from harness.core.errors import ConfigurationError
from harness.settings import env_value

__all__ = [
    "PRICES_VARIABLE",
    "ModelPrice",
    "PriceTable",
    "default_prices",
    "genai_price",
    "load_prices",
]

PRICES_VARIABLE = "HARNESS_PRICES"
_DEFAULT_FILE = Path(__file__).with_name("prices.json")


class ModelPrice(BaseModel):
    """USD per million tokens. Cache prices default to the plain input price."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    cache_write_input: float | None = Field(default=None, ge=0)


class PriceTable(BaseModel):
    """Prices per model name, with the date they were taken and where from."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    as_of: str
    currency: str = "USD"
    unit: str = "per million tokens"
    note: str = ""
    source: str = "harness defaults"
    models: dict[str, ModelPrice]

    # Not read from a file: only the shipped table is backed by genai-prices.
    _genai_backed: bool = PrivateAttr(default=False)

    def price(self, model: str) -> ModelPrice | None:
        """The model's price; a dated snapshot (``gpt-4.1-mini-2025-04-14``) uses its family's.

        A name this table lists (or a dated snapshot of one) wins; then, for the
        shipped table, genai-prices (a listed name for the model genai-prices
        resolves it to still wins); then the longest listed family prefix.
        """
        if model in self.models:
            return self.models[model]
        dated = _DATED.sub("", model)
        if dated != model and dated in self.models:
            return self.models[dated]
        if self._genai_backed and (found := genai_price(model)) is not None:
            canonical, price = found
            return self.models.get(canonical, price)
        family = [name for name in self.models if model.startswith(name + "-")]
        return self.models[max(family, key=len)] if family else None

    @property
    def label(self) -> str:
        return f"{self.source} (prices as of {self.as_of})"

    def merged(self, override: PriceTable) -> PriceTable:
        table = override.model_copy(update={"models": {**self.models, **override.models}})
        table._genai_backed = self._genai_backed
        return table


# A dated snapshot's suffix: -2025-04-14 (OpenAI), -20250514 (Anthropic), -0613.
_DATED = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$")


@cache
def genai_price(model: str) -> tuple[str, ModelPrice] | None:
    """genai-prices' id for ``model`` and its current price per million tokens, or None.

    A tiered price (Gemini Pro, Claude over 200k tokens of context) is taken at
    its base tier: harness prices a row, not a request's context size.
    """
    from genai_prices import data_snapshot

    try:
        _, info = data_snapshot.get_snapshot().find_provider_model(model, None, None, None)
    except LookupError:
        return None
    prices = info.get_prices(datetime.now(UTC))

    def per_mtok(name: str) -> float | None:
        value = getattr(prices, name, None)
        value = getattr(value, "base", value)  # TieredPrices: the base tier
        return None if value is None else float(value)

    input_price, output_price = per_mtok("input_mtok"), per_mtok("output_mtok")
    if input_price is None or output_price is None:
        return None  # not a token-priced model (images, audio): harness cannot price it
    price = ModelPrice(
        input=input_price,
        output=output_price,
        cached_input=per_mtok("cache_read_mtok"),
        cache_write_input=per_mtok("cache_write_mtok"),
    )
    return info.id, price


def _parse(path: Path, text: str) -> dict[str, Any]:
    import yaml

    from harness.yamlload import DocumentBoundsError, load_yaml

    try:
        if path.suffix.lower() in (".yaml", ".yml"):
            data = load_yaml(text, source=f"price file {path}")
        else:
            data = json.loads(text)
    except (yaml.YAMLError, DocumentBoundsError) as exc:  # names the file (line, column)
        raise ConfigurationError(str(exc)) from None
    except ValueError as exc:
        raise ConfigurationError(f"price file {path} is not valid JSON/YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigurationError(
            f"price file {path} must be a mapping with 'as_of' and 'models', got "
            f"{type(data).__name__}"
        )
    return data


def _read(path: Path, source: str) -> PriceTable:
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise ConfigurationError(
            f"price file {path} cannot be read ({exc}); fix {PRICES_VARIABLE} or unset it"
        ) from None
    data = _parse(path, text)
    try:
        return PriceTable.model_validate({"source": source, **data})
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in exc.errors()
        )
        raise ConfigurationError(
            f"price file {path} is invalid ({problems}); each model needs 'input' and 'output' "
            "USD per million tokens, and the file an 'as_of' date"
        ) from None


@cache
def default_prices() -> PriceTable:
    """The table shipped with harness: its own models, then genai-prices' for the rest."""
    table = _read(_DEFAULT_FILE, "harness defaults")
    table._genai_backed = True
    return table


def load_prices(environ: dict[str, str] | None = None) -> PriceTable:
    """The shipped table, with the models of ``HARNESS_PRICES`` (if set) replacing its own."""
    override = env_value("prices", environ) or ""
    if not override:
        return default_prices()
    path = Path(override).expanduser()
    return default_prices().merged(_read(path, str(path)))
