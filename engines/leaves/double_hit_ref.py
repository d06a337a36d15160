"""The extra term ``aligned_double_hit``, written to read like its definition (docs/leaf.md).

The readable twin of :mod:`engines.leaves.double_hit`, on a 7x7 grid (row 0 on
top) with the fair leaf's per-disc ``add`` and ``rel`` from
:func:`engines.leaves.linear_ref.disc_table`.  Both twins agree bit for bit.
"""

from __future__ import annotations

from engines.leaves.linear_ref import (
    SIZE,
    SOLID,
    Grid,
    disc_table,
    elevation,
    heights,
    row_run,
    support,
)

Cell = tuple[int, int]


def column_fill(h: list[int], c: int, top: int) -> set[Cell]:
    """The empty cells of column c from its top up to row ``top`` (drops needed there)."""
    return {(r, c) for r in range(top, SIZE - h[c])}


def completion_path(grid: Grid, h: list[int], r: int, c: int) -> set[Cell]:
    """The empty cells completing the disc at (r, c) would fill.

    Vertically: the cells above its column up to elevation v, when v > h_c.
    Horizontally, when its row run is shorter than v: of every window of
    ``hadd`` (the same windows, skips and costs) with the least positive
    cost, the cells each of its columns still needs up to the disc's row.
    """
    v = grid[r][c]
    path: set[Cell] = column_fill(h, c, SIZE - v) if v > h[c] else set()
    start, end = row_run(grid, r, c)
    if v <= end - start + 1:
        return path
    e = elevation(r)
    windows: list[tuple[int, set[Cell]]] = []
    for a in range(max(end - v + 1, 0), min(start, SIZE - v) + 1):
        b = a + v - 1
        if (a - 1 >= 0 and h[a - 1] >= e) or (b + 1 < SIZE and h[b + 1] >= e):
            continue
        cost = sum(max(0, e - h[j]) for j in range(a, b + 1))
        if cost > 0:
            cells = set().union(*(column_fill(h, j, r) for j in range(a, b + 1) if h[j] < e))
            windows.append((cost, cells))
    if windows:
        least = min(cost for cost, _ in windows)
        for cost, cells in windows:
            if cost == least:
                path |= cells
    return path


def aligned_double_hit(grid: Grid) -> float:
    """Sum over solid greys (row-major) of the best same-wave pair of numbered neighbours."""
    h = heights(grid)
    discs = disc_table(grid)
    total = 0.0
    for r in range(SIZE):
        for c in range(SIZE):
            if grid[r][c] != SOLID:
                continue
            # up and down lie on the grey's column, left and right on its row
            sides = [("column", (r - 1, c)), ("column", (r + 1, c)),
                     ("row", (r, c - 1)), ("row", (r, c + 1))]
            near = [(axis, cell) for axis, cell in sides if cell in discs]
            best = 0.0
            for k, (axis_a, a) in enumerate(near):
                for axis_b, b in near[k + 1:]:
                    if axis_a == axis_b:
                        # one line through the grey: a disc waiting on its run-mates
                        # (release above add) pops in a later wave
                        if discs[a].rel > discs[a].add or discs[b].rel > discs[b].add:
                            continue
                    elif completion_path(grid, h, *a) & completion_path(grid, h, *b):
                        continue  # one drop would serve both: not two hits in one wave
                    best = max(best, support(discs[a]) * support(discs[b]))
            total += best
    return total


#: each extra term's readable definition, by name (engines.leaves.extra_terms)
REFERENCE_TERMS = {"aligned_double_hit": aligned_double_hit}


def extra_terms(grid: Grid, names: list[str] | tuple[str, ...]) -> list[float]:
    """The named extra terms of a grid, in the order given."""
    return [REFERENCE_TERMS[name](grid) for name in names]
