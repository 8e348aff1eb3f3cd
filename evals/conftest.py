"""Shared pieces of the scenario evals."""

from __future__ import annotations

PROVIDERS = ("openai", "anthropic")
