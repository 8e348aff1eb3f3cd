"""Rows that replay through the same SDK run side by side.

Importing an SDK is the dearest thing a process does for a replayed row (on this
2-core machine about 3 s for ``anthropic``, 1.3 s for ``openai``), and every
pytest-xdist worker pays it for each SDK its rows touch. The case runner
parametrizes each case over the providers, so in collection order every
worker's share holds every SDK. Grouping the rows of a module (or class) by SDK
lets a worker's share hold fewer: measured on 1,002 replayed rows over two
workers, 3 s less CPU and 1.5 s less wall time.

Under xdist's ``load`` mode the controller also hands a worker the rows of the
SDK it has loaded (:mod:`harness._speed.sdk_schedule`); ``worksteal``, which
``harness eval -n`` picks, splits the grouped order into contiguous shares.

Only pytest-xdist workers reorder (each the same way, so their collections
still agree); a serial run keeps its order, as it imports every SDK anyway (and
ran 4% slower grouped, 1,002 rows, alternated four times). Items move only
within their parent (module or class), and the sort is stable: the order a
plugin gave (pytest-randomly's shuffle) holds within each SDK, and fixtures of
module or class scope are set up as often as before.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import pytest

__all__ = ["group_rows_by_sdk", "sdk_of"]

PROVIDER_PARAM = "provider_name"


def sdk_of(item: pytest.Item) -> str | None:
    """The SDK an item's recorded provider replays through, or None (no provider param)."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    name = params.get(PROVIDER_PARAM)
    if not isinstance(name, str):
        return None
    return "openai" if name.startswith("openai") else name


def group_rows_by_sdk(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: the rows under each parent grouped by SDK.

    Tests without a recorded provider go first, then the SDK groups, smallest
    first. pytest-xdist's ``worksteal`` hands each worker a contiguous share and
    later moves rows from the tail of a busy worker's share; the largest group,
    last, is the one most likely to span every share, so the rows moved need an
    SDK the thief has already loaded.
    """
    start = 0
    while start < len(items):
        end = start + 1
        parent = items[start].parent
        while end < len(items) and items[end].parent is parent:
            end += 1
        _group(items, start, end)
        start = end


def _group(items: list[pytest.Item], start: int, end: int) -> None:
    run: Sequence[pytest.Item] = items[start:end]
    sdks = [sdk_of(item) for item in run]
    sizes = Counter(sdk for sdk in sdks if sdk is not None)
    if len(sizes) < 2:
        return  # one SDK at most: nothing to gain
    rank = {sdk: (count, sdk) for sdk, count in sizes.items()}
    first = (-1, "")
    order = sorted(range(len(run)), key=lambda i: first if (s := sdks[i]) is None else rank[s])
    items[start:end] = [run[i] for i in order]
