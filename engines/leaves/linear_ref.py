"""The frozen fair leaf ``linear``, written to read like the spec.

This readable twin works on a 7x7 grid (row 0 on top, as the replay format
writes boards) and states each of the 18 terms the way the feature table of
``docs/leaf.md`` does.  The fast numba twin in
:mod:`engines.leaves.linear` must agree with it bit for bit; to make that
possible, every float sum below runs in row-major order (row 0 first, left to
right), the order the research's reference leaf used.  ``docs/leaf.md`` lists
the decisions taken where the spec leaves room.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SIZE = 7
EMPTY, SOLID, CRACKED = 0, 8, 9

Grid = Sequence[Sequence[int]]


def ready(k: int) -> float:
    """``ready(k) = 2^(1-k)`` for k >= 1, else 0."""
    return 2.0 ** (1 - k) if k >= 1 else 0.0


def union(a: float, b: float) -> float:
    """``union(a, b) = 1 - (1-a)(1-b)``: the chance that either of two events happens."""
    return 1.0 - (1.0 - a) * (1.0 - b)


def elevation(row: int) -> int:
    """``e = 7 - row``: the bottom row is 1, the top row 7."""
    return SIZE - row


def is_numbered(code: int) -> bool:
    """Numbered discs are 1..7 (greys 8 and 9 are occupied but not numbered)."""
    return 1 <= code <= 7


def is_grey(code: int) -> bool:
    """Solid (8) or cracked (9) grey."""
    return code in (SOLID, CRACKED)


def heights(grid: Grid) -> list[int]:
    """Height of each column: its number of occupied cells (columns are bottom-packed)."""
    return [sum(1 for r in range(SIZE) if grid[r][c] != EMPTY) for c in range(SIZE)]


def row_run(grid: Grid, r: int, c: int) -> tuple[int, int]:
    """First and last column of the maximal run of occupied cells through (r, c) in its row."""
    start = c
    while start > 0 and grid[r][start - 1] != EMPTY:
        start -= 1
    end = c
    while end < SIZE - 1 and grid[r][end + 1] != EMPTY:
        end += 1
    return start, end


def column_run(grid: Grid, r: int, c: int) -> tuple[int, int]:
    """First and last row of the maximal run of occupied cells through (r, c) in its column."""
    top = r
    while top > 0 and grid[top - 1][c] != EMPTY:
        top -= 1
    bottom = r
    while bottom < SIZE - 1 and grid[bottom + 1][c] != EMPTY:
        bottom += 1
    return top, bottom


def vadd(grid: Grid, h: list[int], r: int, c: int) -> float:
    """``ready(v - h_c)`` if v > h_c, else 0: discs still to drop on the column."""
    v = grid[r][c]
    return ready(v - h[c]) if v > h[c] else 0.0


def hadd(grid: Grid, h: list[int], r: int, c: int) -> float:
    """Readiness of the cheapest way to stretch the disc's row run to exactly v.

    0 if v <= L.  Otherwise every window of v consecutive columns that
    contains the run is tried, skipping a window whose left or right
    neighbouring column already reaches the disc's elevation (the run would
    then be longer than v); a window costs the discs still missing under or
    at elevation e in its columns.  ``ready(least positive cost)``.
    """
    v = grid[r][c]
    e = elevation(r)
    run_start, run_end = row_run(grid, r, c)
    if v <= run_end - run_start + 1:
        return 0.0
    costs = []
    for a in range(max(run_end - v + 1, 0), min(run_start, SIZE - v) + 1):
        b = a + v - 1
        if a - 1 >= 0 and h[a - 1] >= e:
            continue
        if b + 1 < SIZE and h[b + 1] >= e:
            continue
        cost = sum(max(0, e - h[j]) for j in range(a, b + 1))
        if cost > 0:
            costs.append(cost)
    return ready(min(costs)) if costs else 0.0


def release(excess: int, other_adds: list[float]) -> float:
    """The excess-th largest add among the run's other numbered discs, times ready(excess)."""
    if excess <= 0 or len(other_adds) < excess:
        return 0.0
    return sorted(other_adds, reverse=True)[excess - 1] * ready(excess)


@dataclass
class Disc:
    """What the leaf knows about one numbered disc."""

    v: int
    hadd: float
    vadd: float
    add: float
    hrel: float = 0.0
    vrel: float = 0.0
    rel: float = 0.0


def disc_table(grid: Grid) -> dict[tuple[int, int], Disc]:
    """``add`` and ``rel`` (with their parts) of every numbered disc, keyed by (row, col)."""
    h = heights(grid)
    discs: dict[tuple[int, int], Disc] = {}
    for r in range(SIZE):
        for c in range(SIZE):
            if is_numbered(grid[r][c]):
                ha, va = hadd(grid, h, r, c), vadd(grid, h, r, c)
                discs[(r, c)] = Disc(grid[r][c], ha, va, union(ha, va))
    for (r, c), d in discs.items():
        start, end = row_run(grid, r, c)
        row_others = [discs[(r, j)].add for j in range(start, end + 1)
                      if j != c and (r, j) in discs]
        d.hrel = release(end - start + 1 - d.v, row_others)
        top, bottom = column_run(grid, r, c)
        col_others = [discs[(i, c)].add for i in range(top, bottom + 1)
                      if i != r and (i, c) in discs]
        d.vrel = release(bottom - top + 1 - d.v, col_others)
        d.rel = union(d.hrel, d.vrel)
    return discs


def support(d: Disc) -> float:
    """A numbered neighbour's support of a grey: ``union(add, rel)``."""
    return union(d.add, d.rel)


def neighbours(r: int, c: int) -> list[tuple[int, int]]:
    """Orthogonal neighbours on the board: up, down, left, right."""
    out = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
    return [(i, j) for i, j in out if 0 <= i < SIZE and 0 <= j < SIZE]


def cells(grid: Grid):
    """Every occupied cell ``(r, c, code)`` in row-major order (row 0 first)."""
    for r in range(SIZE):
        for c in range(SIZE):
            if grid[r][c] != EMPTY:
                yield r, c, grid[r][c]


def runs_of_twos(line: list[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive 2s in a line of codes, as (first index, length)."""
    runs, i = [], 0
    while i < len(line):
        if line[i] == 2:
            j = i
            while j < len(line) and line[j] == 2:
                j += 1
            runs.append((i, j - i))
            i = j
        else:
            i += 1
    return runs


def linear_terms(grid: Grid, moves_remaining: int, next_disc: int) -> list[float]:
    """The 18 terms of the table, in its order, for one public state."""
    h = heights(grid)
    discs = disc_table(grid)

    open_columns = sum(1 for c in range(SIZE) if grid[0][c] == EMPTY)
    height_load = sum(elevation(r) ** 2 for r, c, _ in cells(grid))
    solid_cells = sum(1 for _, _, x in cells(grid) if x == SOLID)
    cracked_cells = sum(1 for _, _, x in cells(grid) if x == CRACKED)
    numbered_cells = len(discs)
    high_low_numbers = sum(1 for (r, _), d in discs.items() if d.v <= 2 and elevation(r) >= 5)

    direct_potential = 0.0
    latent_chain_potential = 0.0
    for d in discs.values():  # dicts keep insertion order: row-major
        direct_potential += d.add
    for d in discs.values():
        latent_chain_potential += d.rel

    cracked_exposure = 0.0
    solid_exposure = 0.0
    for r, c, x in cells(grid):
        if not is_grey(x):
            continue
        s = sorted((support(discs[n]) for n in neighbours(r, c) if n in discs), reverse=True)
        if x == CRACKED:
            none_fires = 1.0
            for si in s:
                none_fires *= 1.0 - si
            cracked_exposure += 1.0 - none_fires
        else:
            s1 = s[0] * 0.35 if len(s) > 0 else 0.0
            s2 = s[1] * 0.65 if len(s) > 1 else 0.0
            solid_exposure += s1 + s2

    adjacent_ones = 0.0
    for (r, c), d in discs.items():
        if d.v != 1:
            continue
        right, below = discs.get((r, c + 1)), discs.get((r + 1, c))
        if right is not None and right.v == 1:  # side by side in a row: escape vertically
            adjacent_ones += 1.0 - max(union(d.vadd, d.vrel), union(right.vadd, right.vrel))
        if below is not None and below.v == 1:  # one above the other: escape horizontally
            adjacent_ones += 1.0 - max(union(d.hadd, d.hrel), union(below.hadd, below.hrel))

    triple_twos = 0.0
    for r in range(SIZE):
        for start, length in runs_of_twos([grid[r][c] for c in range(SIZE)]):
            if length >= 3:
                run = [discs[(r, c)] for c in range(start, start + length)]
                escape = max(union(d.vadd, d.vrel) for d in run)
                triple_twos += (length - 2) ** 2 * (1.0 - escape)
    for c in range(SIZE):
        for start, length in runs_of_twos([grid[r][c] for r in range(SIZE)]):
            if length >= 3:
                run = [discs[(r, c)] for r in range(start, start + length)]
                escape = max(union(d.hadd, d.hrel) for d in run)
                triple_twos += (length - 2) ** 2 * (1.0 - escape)

    dead_low_numbers = 0.0
    for (r, c), d in discs.items():
        row_start, row_end = row_run(grid, r, c)
        col_top, col_bottom = column_run(grid, r, c)
        if d.v <= 2 and row_end - row_start + 1 > d.v and col_bottom - col_top + 1 > d.v:
            dead_low_numbers += 1.0 - union(d.add, d.rel)

    covered_height_risk = 0.0
    for r, c, x in cells(grid):
        if is_grey(x):
            risk = float(elevation(r) ** 2) * (1.65 if c in (0, SIZE - 1) else 1.0)
            if x == CRACKED:
                risk *= 0.72
            covered_height_risk += risk

    low_number_height_risk = sum(max(0, elevation(r) - 2) ** 2
                                 for (r, _), d in discs.items() if d.v <= 2)
    danger_height_squared = max(0, max(h) - 4) ** 2
    rise_pressure = 0.0
    for hc in h:
        rise_pressure += hc**3 / moves_remaining
    next_disc_vertical_options = sum(1 for hc in h if hc < SIZE and hc + 1 == next_disc)

    terms = [open_columns, height_load, solid_cells, cracked_cells, numbered_cells,
             high_low_numbers, direct_potential, latent_chain_potential, cracked_exposure,
             solid_exposure, adjacent_ones, triple_twos, dead_low_numbers,
             covered_height_risk, low_number_height_risk, danger_height_squared,
             rise_pressure, next_disc_vertical_options]
    return [float(x) for x in terms]


def linear_value(terms: Sequence[float], weights: Sequence[float]) -> float:
    """``sum(weights[i] * terms[i])``, summed in table order from 0.0."""
    value = 0.0
    for w, x in zip(weights, terms, strict=True):
        value += w * x
    return value
