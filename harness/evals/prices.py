"""The price table: what a million tokens of each model cost, and since when.

harness ships a dated default (``prices.json`` next to this module); a user file
named by ``HARNESS_PRICES`` (JSON or YAML, same shape) replaces the models it
lists. A malformed file is a ``ConfigurationError`` naming the file and field.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.core.errors import ConfigurationError

__all__ = ["PRICES_VARIABLE", "ModelPrice", "PriceTable", "default_prices", "load_prices"]

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

    def price(self, model: str) -> ModelPrice | None:
        """The model's price; a dated snapshot (``gpt-4.1-mini-2025-04-14``) uses its family's."""
        if model in self.models:
            return self.models[model]
        family = [name for name in self.models if model.startswith(name + "-")]
        return self.models[max(family, key=len)] if family else None

    @property
    def label(self) -> str:
        return f"{self.source} (prices as of {self.as_of})"

    def merged(self, override: PriceTable) -> PriceTable:
        return override.model_copy(update={"models": {**self.models, **override.models}})


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
    """The table shipped with harness."""
    return _read(_DEFAULT_FILE, "harness defaults")


def load_prices(environ: dict[str, str] | None = None) -> PriceTable:
    """The shipped table, with the models of ``HARNESS_PRICES`` (if set) replacing its own."""
    env = os.environ if environ is None else environ
    override = env.get(PRICES_VARIABLE, "").strip()
    if not override:
        return default_prices()
    path = Path(override).expanduser()
    return default_prices().merged(_read(path, str(path)))
