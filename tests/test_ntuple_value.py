"""N-tuple layouts and values: entry counts, slots, mirror invariance, phases, twins."""

from __future__ import annotations

import numpy as np
import pytest
from engine_cases import random_grid

from engines.drop7 import core
from engines.drop7.board import pack
from engines.ntuple.layouts import (
    FAMILIES,
    LAYOUTS,
    SPEC_FIELDS,
    SPEC_HEADER,
    get_layout,
)
from engines.ntuple.value import (
    NO_SLOT,
    board_entries,
    board_patterns,
    cell_map,
    entry_indices,
    ntuple_value,
    ntuple_value_py,
    phase_of,
    slot_offsets,
)
from engines.weights_files import alloc_zeroed


def test_entry_counts_and_active_tuples() -> None:
    expected = {"A": (480_000_000, 74), "B": (200_000_000, 74), "C": (1_000_000_000, 74),
                "D": (420_000_000, 14), "E": (60_000_000, 60)}
    assert {k: (v.entries, v.n_active) for k, v in LAYOUTS.items()} == expected
    assert get_layout("A").initial_entry == pytest.approx(20 / 74)
    assert get_layout("E").initial_entry == pytest.approx(20 / 60)


def test_unknown_layout_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown layout"):
        get_layout("F")


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_tables_tile_the_array(name: str) -> None:
    """Every tuple's tables (5 when phased) are disjoint and cover 0..entries exactly."""
    layout = get_layout(name)
    spec = layout.spec
    spans = []
    for j in range(layout.n_active):
        slot, first, stride = spec[SPEC_HEADER + SPEC_FIELDS * j:][:3]
        size = next(s for (start, count, s) in FAMILIES.values() if start <= slot < start + count)
        phases = 5 if stride else 1
        assert stride in (0, size)
        spans.append((int(first), int(first) + size * phases))
    spans.sort()
    assert spans[0][0] == 0 and spans[-1][1] == layout.entries
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:], strict=False))
    phased = {f for f in FAMILIES if any(
        FAMILIES[f][0] <= spec[SPEC_HEADER + SPEC_FIELDS * j] < FAMILIES[f][0] + FAMILIES[f][1]
        and spec[SPEC_HEADER + SPEC_FIELDS * j + 2] for j in range(layout.n_active))}
    assert phased == set(layout.phased)


def test_phase_bucket() -> None:
    assert [phase_of(m) for m in range(-1, 8)] == [0, 0, 0, 1, 2, 3, 4, 4, 4]


def _boards(n: int, seed: int = 5) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [pack(np.array(random_grid(rng), dtype=np.int8)) for _ in range(n)]


def _fill_touched(tables: np.ndarray, spec: np.ndarray, boards, rng) -> None:
    """Give every entry the boards touch (any phase, both orientations) a random value."""
    pat = np.zeros(74, dtype=np.int64)
    idx = np.zeros(74, dtype=np.int64)
    for b in boards:
        for cols in (b, b[::-1].copy()):
            for mr in range(1, 6):
                n = entry_indices(cols, mr, spec, pat, idx)
                tables[idx[:n]] = rng.standard_normal(n).astype(np.float32)


@pytest.mark.parametrize("name", ["T3", "A", "D"])
def test_kernel_matches_readable_twin_and_is_mirror_invariant(name: str) -> None:
    layout = get_layout(name)
    rng = np.random.default_rng(11)
    boards = _boards(60)
    tables = alloc_zeroed((layout.entries,))  # untouched pages stay unallocated
    _fill_touched(tables, layout.spec, boards, rng)
    for b in boards:
        mirror = b[::-1].copy()
        for mr in (1, 3, 5):
            u = ntuple_value(b, mr, tables, layout.spec)
            assert u == pytest.approx(ntuple_value_py(b, mr, tables, layout.spec), abs=1e-9)
            assert ntuple_value(mirror, mr, tables, layout.spec) == u
    assert any(ntuple_value(b, 3, tables, layout.spec) != 0.0 for b in boards)


def test_phase_conditioning_picks_the_bucket() -> None:
    """Layout A: cols tables depend on the phase, rows and windows do not."""
    layout = get_layout("A")
    board = _boards(1, seed=2)[0]
    pat = np.zeros(74, dtype=np.int64)
    idx = {mr: np.zeros(74, dtype=np.int64) for mr in range(0, 8)}
    for mr, arr in idx.items():
        entry_indices(board, mr, layout.spec, pat, arr)
    for j in range(74):
        slot = layout.spec[SPEC_HEADER + SPEC_FIELDS * j]
        steps = [idx[mr][j] - idx[1][j] for mr in range(1, 6)]
        if 7 <= slot < 14:
            assert steps == [0, 10**7, 2 * 10**7, 3 * 10**7, 4 * 10**7]
        else:
            assert steps == [0] * 5
        assert idx[0][j] == idx[1][j] and idx[7][j] == idx[5][j]


def test_patterns_digit_order() -> None:
    """A hand board: digit weights of rows, columns and windows as documented."""
    grid = np.zeros((7, 7), dtype=np.int8)
    grid[6] = [8, 8, 8, 8, 8, 8, 9]      # bottom row (height 0)
    grid[5, 0], grid[5, 1] = 3, 5        # height 1
    grid[4, 0] = 7                       # height 2
    pat = np.zeros(74, dtype=np.int64)
    board_patterns(pack(grid), pat)
    assert pat[6] == 8888888 + 1000000   # row 6: column c is digit c, the 9 in column 6
    assert pat[5] == 3 + 50
    assert pat[7] == 8 + 30 + 700        # column 0: height k is digit k
    assert pat[14] == 8 + 30 + 700 + 1000 * (8 + 50)   # win23 (c0=0, k0=0)
    assert pat[44] == 8 + 30 + 100 * (8 + 50) + 10000 * 8   # win32 (c0=0, k0=0)


def test_cell_map_updates_indices_of_a_drop() -> None:
    """Indices after filling an empty top cell = indices before + disc * weights."""
    layout = get_layout("A")
    cj, cw, cn = cell_map(layout.spec)
    pat = np.zeros(74, dtype=np.int64)
    before = np.zeros(74, dtype=np.int64)
    after = np.zeros(74, dtype=np.int64)
    for b in _boards(40, seed=9):
        for c in range(7):
            h = core.col_height(b[c])
            if h == 7:
                continue
            dropped = b.copy()
            dropped[c] |= 4 << (4 * h)
            entry_indices(b, 3, layout.spec, pat, before)
            entry_indices(dropped, 3, layout.spec, pat, after)
            cell = 7 * c + h
            expect = before.copy()
            for q in range(cn[cell]):
                expect[cj[cell, q]] += 4 * cw[cell, q]
            assert np.array_equal(expect, after)
            assert (after != before).sum() == cn[cell]


@pytest.mark.parametrize("name", ["A", "E", "T3"])
def test_board_entries_are_entry_indices_by_slot(name: str) -> None:
    """One pass over a board gives every active tuple's entry at its slot; slots the
    layout lacks get negative entries (never read, never prefetched)."""
    layout = get_layout(name)
    soff = slot_offsets(layout.spec)
    slots = [int(layout.spec[SPEC_HEADER + SPEC_FIELDS * j]) for j in range(layout.n_active)]
    tab = np.zeros(1, dtype=np.float32)  # prefetches only: any address is harmless
    pat = np.zeros(74, dtype=np.int64)
    idx = np.zeros(74, dtype=np.int64)
    out = np.zeros((3, 74), dtype=np.int64)
    for b in _boards(30, seed=4):
        for mr in (1, 2, 5, 9):
            n = entry_indices(b, mr, layout.spec, pat, idx)
            board_entries(b, soff, phase_of(mr), out, 2, tab)
            assert out[2, slots].tolist() == idx[:n].tolist()
            lacking = [s for s in range(74) if s not in slots]
            assert all(out[2, s] < 0 for s in lacking)
    assert (soff == NO_SLOT).sum() == 5 * (74 - layout.n_active)
