"""``--harness-mutants``: every recorded eval runs once per mutant of its cassette.

How it stays robust under pytest-xdist: mutants are ordinary parametrised items
(``test_x[openai-drop_call.2]``). Collection reads the cassettes, which every
worker sees alike, so all workers collect the same items. Each item builds its
own ``PositionalProvider`` from the cassette, and its outcome rides to the
controller in ``user_properties``, like eval rows do.

An eval qualifies when it is marked ``eval`` and reaches the ``provider``
fixture (directly or through ``harness_app`` / ``make_harness_app``). Every
eval keeps its ``original`` control item; one that cannot be mutated (scripted
provider, no cassette, no provider fixture) keeps only that item, which skips
and is reported ``not mutated``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from harness.evals.mutant_results import CONTROL
from harness.evals.provenance import Source
from harness.testing.naming import is_streaming, test_name
from harness.testing.options import HarnessOptions
from harness.testing.runlog import RunLog

if TYPE_CHECKING:
    from harness.evals.mutants import PositionalProvider

__all__ = [
    "MUTANT_PARAM",
    "PHASES_KEY",
    "SKIP_KEY",
    "STATE_KEY",
    "MutantState",
    "base_nodeid",
    "candidate_ids",
    "cassette_for",
    "mutant_id",
    "qualifies",
    "select_items",
    "serve_mutant",
]

MUTANT_PARAM = "harness_mutant"
RECORDED_PROVIDERS = ("openai", "openai-responses", "anthropic")
_PROVIDER_FIXTURES = frozenset({"provider", "harness_app", "make_harness_app"})
STATE_KEY = pytest.StashKey["MutantState"]()
SKIP_KEY = pytest.StashKey[str]()
PHASES_KEY = pytest.StashKey[dict[str, tuple[str, str]]]()


@dataclass(slots=True)
class MutantState:
    """What the ``provider`` fixture built for one mutant item."""

    mutant: str
    operator: str
    order: int
    description: str
    provider: PositionalProvider
    source: Source
    model: str


def qualifies(fixturenames: list[str] | tuple[str, ...]) -> bool:
    """Whether a test reaches the ``provider`` fixture, so mutants can be served to it."""
    return bool(_PROVIDER_FIXTURES & set(fixturenames))


def mutant_id(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    value = callspec.params.get(MUTANT_PARAM) if callspec is not None else None
    return str(value) if value is not None else None


def base_nodeid(item: pytest.Item) -> str:
    """The item's node id without the mutant id (mutant ids hold no ``-``)."""
    nodeid, mid = item.nodeid, mutant_id(item)
    if mid is None or not nodeid.endswith("]"):
        return nodeid
    head, _, inside = nodeid[:-1].rpartition("[")
    parts = inside.split("-")
    if mid in parts:
        parts.reverse()
        parts.remove(mid)
        parts.reverse()
    return f"{head}[{'-'.join(parts)}]" if parts else head


def _relative_file(path: Path, options: HarnessOptions) -> Path:
    try:
        return path.relative_to(options.rootdir)
    except ValueError:
        return Path(path.name)


def candidate_ids(function_name: str, path: Path, options: HarnessOptions) -> list[str]:
    """The control plus every mutant id of any cassette this test function may use."""
    from harness.core.errors import HarnessError
    from harness.evals.mutants import cassette_mutants

    folder = _relative_file(path, options).with_suffix("")
    ids = [CONTROL]
    for provider in RECORDED_PROVIDERS:
        for cassette in sorted((options.cassette_dir / provider).glob(f"*/{folder}/*")):
            if not cassette.name.startswith(function_name) or cassette.suffix not in (
                ".yaml",
                ".yml",
                ".json",
            ):
                continue
            try:
                mutants = cassette_mutants(cassette, provider)
            except HarnessError:
                continue  # reported on the item itself, where the path is exact
            ids += [m.id for m in mutants if m.id not in ids]
    return ids


def cassette_for(item: pytest.Item, options: HarnessOptions) -> tuple[str, str, Path] | None:
    """``(provider, model, cassette)`` the ``provider`` fixture would use, or None (scripted)."""
    from harness.testing.recorded import DEFAULT_MODELS, cassette_path

    callspec = getattr(item, "callspec", None)
    params = callspec.params if callspec is not None else {}
    name = str(params.get("provider_name") or options.provider or "scripted")
    if name not in RECORDED_PROVIDERS:
        return None
    model = options.model or DEFAULT_MODELS.get(name, name)
    test_file = _relative_file(Path(str(item.path)), options).as_posix()
    stem = test_name(item) + ("-stream" if is_streaming(item) else "")
    return name, model, cassette_path(options.cassette_dir, name, model, test_file, stem)


def _applicable(item: pytest.Item, options: HarnessOptions) -> tuple[set[str], str]:
    """The mutant ids this item's cassette has, or an empty set and why none."""
    from harness.core.errors import HarnessError
    from harness.evals.mutants import cassette_mutants

    if not qualifies(getattr(item, "fixturenames", ())):
        return set(), "the eval does not use the provider fixture, so no mutant can reach it"
    found = cassette_for(item, options)
    if found is None:
        return set(), "scripted provider: no cassette to derive mutants from"
    provider, _, path = found
    if not path.is_file():
        return set(), f"no cassette at {path}; record it first"
    try:
        return {m.id for m in cassette_mutants(path, provider)}, ""
    except HarnessError as exc:
        return set(), str(exc)


def select_items(items: list[pytest.Item], options: HarnessOptions) -> list[pytest.Item]:
    """Keep the items whose mutant exists for their cassette; return the others.

    Kept mutants are expected to fail (strict xfail on an assertion), so pytest's
    own summary reads killed as ``xfailed`` and a survivor as ``XPASS(strict)``.
    """
    from harness.evals.mutants import MutantExhaustedError

    dropped: list[pytest.Item] = []
    kept: list[pytest.Item] = []
    for item in items:
        mid = mutant_id(item)
        if mid is None:
            kept.append(item)
            continue
        ids, why = _applicable(item, options)
        if mid == CONTROL:
            if why:
                item.stash[SKIP_KEY] = why
            kept.append(item)
        elif mid in ids:
            item.add_marker(
                pytest.mark.xfail(
                    reason=f"mutant {mid}: the eval should fail",
                    strict=True,
                    raises=(AssertionError, pytest.fail.Exception, MutantExhaustedError),
                )
            )
            kept.append(item)
        else:
            dropped.append(item)
    items[:] = kept
    return dropped


@contextmanager
def serve_mutant(
    item: pytest.Item, options: HarnessOptions, run_log: RunLog
) -> Iterator[PositionalProvider]:
    """Yield the ``PositionalProvider`` for this item's mutant, with the network blocked."""
    from harness.core.errors import ConfigurationError
    from harness.evals.mutants import PositionalProvider, cassette_mutants
    from harness.evals.provenance import cassette_source
    from harness.recording import block_network

    found = cassette_for(item, options)
    mid = mutant_id(item)
    if found is None or mid is None:
        raise ConfigurationError(f"{item.nodeid} has no cassette to serve mutant {mid} from")
    provider, model, path = found
    mutants = cassette_mutants(path, provider)
    chosen = next(((i, m) for i, m in enumerate(mutants) if m.id == mid), None)
    if chosen is None:
        raise ConfigurationError(f"cassette {path} has no mutant {mid}; was it re-recorded?")
    order, mutant = chosen
    served = PositionalProvider(provider, model, mutant.responses)
    source = cassette_source(path)
    item.stash[STATE_KEY] = MutantState(
        mid, mutant.operator, order, mutant.description, served, source, model
    )
    run_log.provider, run_log.model, run_log.source = provider, model, source
    with block_network():
        yield served
