"""What a row's tokens cost, from normalised usage and the price table.

``input_tokens`` counts every prompt token (cache reads and writes included), so
the plain-priced part is what remains after taking the cached reads and the cache
writes out. Synthetic tokens (the simulator's estimate, scripted words) have no
real price: ``row_cost`` returns None for them unless asked for an estimate.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.evals.prices import ModelPrice, PriceTable

__all__ = ["TokenUsage", "model_cost", "render_cost", "usage_cost"]

_MILLION = 1_000_000


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Token counts of one row (or a sum of rows), normalised across providers."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_input_tokens: int = 0


def usage_cost(usage: TokenUsage, price: ModelPrice) -> float:
    """USD for ``usage`` at ``price``."""
    cached = min(usage.cached_input_tokens, usage.input_tokens)
    written = min(usage.cache_write_input_tokens, usage.input_tokens - cached)
    plain = usage.input_tokens - cached - written
    cached_price = price.input if price.cached_input is None else price.cached_input
    write_price = price.input if price.cache_write_input is None else price.cache_write_input
    total = (
        plain * price.input
        + cached * cached_price
        + written * write_price
        + usage.output_tokens * price.output
    )
    return total / _MILLION


def model_cost(usage: TokenUsage, model: str, table: PriceTable) -> float | None:
    """USD for ``usage`` on ``model``, or None when the table has no price for it."""
    price = table.price(model)
    return None if price is None else usage_cost(usage, price)


def render_cost(cost: float | None, *, synthetic: bool = False) -> str:
    """``$0.0123``; ``synthetic`` for unpriced synthetic tokens; ``–`` when unknown."""
    if cost is None:
        return "synthetic" if synthetic else "–"
    return f"${cost:.4f}" if cost < 100 else f"${cost:,.2f}"
