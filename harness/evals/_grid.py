"""Fixed-width text grids, shared by the eval and mutant tables."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["grid_lines"]


def grid_lines(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """The header, a dashed rule and one line per row, columns padded to fit."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)).rstrip()

    return [line(headers), "  ".join("-" * w for w in widths), *(line(r) for r in rows)]
