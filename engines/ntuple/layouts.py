"""N-tuple layouts A-E as data, and the ``spec`` descriptor the kernels read.

A *tuple* is a fixed set of board cells with its own table (absolute
position, no weight sharing): 10 cell states, so a 7-cell line has ``10^7``
patterns and a 6-cell window ``10^6``.  Every board the kernels see is first
mirror-canonicalised (:func:`engines.drop7.chance.canonicalise`).

The 74 *slots* (every tuple a layout may use), in this fixed order:

====== ======= =========================================================
slots  family  cells, pattern digit order (digit ``i`` weighs ``10^i``)
====== ======= =========================================================
0-6    rows    row ``r`` (0 = top): the cell of column ``c`` is digit ``c``
7-13   cols    column ``c``: the cell at height ``k`` (0 = bottom) is digit ``k``
14-43  win23   2 wide x 3 tall, placement ``(c0, k0)`` = left column and
               bottom height, slot ``14 + 5 c0 + k0`` (c0 0..5, k0 0..4);
               cell ``(c0 + dc, k0 + dk)`` is digit ``dk + 3 dc``
44-73  win32   3 wide x 2 tall, slot ``44 + 6 c0 + k0`` (c0 0..4, k0 0..5);
               cell ``(c0 + dc, k0 + dk)`` is digit ``dk + 2 dc``
====== ======= =========================================================

A layout picks families and which of them are conditioned on the phase
``clamp(moves_remaining, 1, 5) - 1``; a phased tuple owns five consecutive
tables, one per phase.  Tables are concatenated in slot order.  (Keeping the
five phase values of a pattern side by side was measured too: no gain on
layout A, so the simpler phase-major order stays.)

``spec`` (``int64``) is what the numba kernels read::

    spec[0] = SPEC_MAGIC, spec[1] = n (active tuples), spec[2] = entries
    spec[3 + 3 j : 6 + 3 j] = (slot, first entry, phase stride) of tuple j

and the entry of tuple ``j`` is ``first + phase * stride + pattern(slot)``
(``stride`` is 0 for an unphased tuple).

A layout may be *fill-bucketed* (``A+occ5``: layout A keyed on a fill rule of
:data:`FILL_RULES`): the whole unbucketed array is repeated once per bucket,
bucket-major, and a board of bucket ``b`` reads ``b * stride`` further on.  The
spec then carries a tail after the tuples::

    spec[t] = FILL_CELLS | FILL_TALLEST, spec[t + 1] = stride (entries of one copy),
    spec[t + 2] = m (cuts), spec[t + 3 : t + 3 + m] = the cuts      (t = 3 + 3 n)

and the bucket of a board is the number of cuts at or below its occupied
cells (``cells``) or its tallest column's height (``tallest``); both are the
same for a board and its mirror.  An unbucketed spec has no tail (kernels read
the tail only when the spec is longer than its tuples).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FAMILIES: dict[str, tuple[int, int, int]] = {
    # family: (first slot, number of tuples, patterns per table)
    "rows": (0, 7, 10**7),
    "cols": (7, 7, 10**7),
    "win23": (14, 30, 10**6),
    "win32": (44, 30, 10**6),
}
N_SLOTS = 74
N_PHASES = 5
SPEC_MAGIC = 0x4E54_5550_4C45  # "NTUPLE"
SPEC_HEADER = 3
SPEC_FIELDS = 3
#: An unseen state is worth this many rises: each entry starts at INITIAL_VALUE / n.
INITIAL_VALUE = 20.0
#: the fill measure of a bucketed spec's tail (``spec[t]``)
FILL_CELLS, FILL_TALLEST = 1, 2
FILL_BY = {"cells": FILL_CELLS, "tallest": FILL_TALLEST}
#: the largest fill measure: 49 occupied cells, or a column seven high
FILL_MAX = {"cells": 49, "tallest": 7}


@dataclass(frozen=True)
class FillRule:
    """Buckets of the board's fill: ``by`` (occupied ``cells`` or the ``tallest`` column's
    height) and the ascending ``cuts`` (bucket ``b`` starts at ``cuts[b - 1]``)."""

    by: str
    cuts: tuple[int, ...]

    def __post_init__(self) -> None:
        top = FILL_MAX.get(self.by)
        if top is None or not self.cuts or list(self.cuts) != sorted(set(self.cuts)) \
                or not self.cuts[0] > 0 or self.cuts[-1] > top:
            raise ValueError(f"fill rule {self.by}/{self.cuts}: cuts must rise strictly "
                             f"within 1..{top}")

    @property
    def buckets(self) -> int:
        """Number of buckets (one more than the cuts)."""
        return len(self.cuts) + 1

    def bucket(self, measure: int) -> int:
        """The bucket of a board whose fill measure is ``measure``."""
        return sum(1 for cut in self.cuts if measure >= cut)

    def describe(self) -> dict:
        """Plain facts for manifests (a table file is refused when they differ)."""
        return {"by": self.by, "cuts": list(self.cuts), "buckets": self.buckets}


#: The register's two fill rules (EX-20260906-ntuple-fill-conditioned-continuation-a9e5cbd3):
#: occupied cells 0-13 / 14-20 / 21-27 / 28-34 / 35-49, the tallest column 0-3 / 4 / 5 / 6 / 7;
#: and occ5 coarsened to two buckets, 0-20 / 21-49 (its cut nearest the register's mean
#: occupied cells, 23.1 in its prior's d3s7 games), which a profile may train in its place
#: when five copies of the tables do not fit the machine (docs/training.md)
FILL_RULES: dict[str, FillRule] = {
    "occ5": FillRule("cells", (14, 21, 28, 35)),
    "hgt5": FillRule("tallest", (4, 5, 6, 7)),
    "occ2": FillRule("cells", (21,)),
}
#: a bucketed layout's name: the base layout, this separator, the fill rule (``A+occ5``)
FILL_SEP = "+"


@dataclass(frozen=True)
class Layout:
    """A set of tuples with their tables' places in one flat value array."""

    name: str
    families: tuple[str, ...]
    phased: tuple[str, ...] = ()
    slots: tuple[int, ...] | None = None  # restrict to these slots (small test layouts)
    fill: FillRule | None = None  # fill buckets: the tables once per bucket
    spec: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        unknown = [f for f in self.families + self.phased if f not in FAMILIES]
        if unknown or not set(self.phased) <= set(self.families):
            raise ValueError(f"layout {self.name}: bad families {self.families}/{self.phased}")
        rows: list[tuple[int, int, int]] = []
        first = 0
        for fam in FAMILIES:
            if fam not in self.families:
                continue
            start, count, size = FAMILIES[fam]
            phases = N_PHASES if fam in self.phased else 1
            for slot in range(start, start + count):
                if self.slots is not None and slot not in self.slots:
                    continue
                rows.append((slot, first, size if phases > 1 else 0))
                first += size * phases
        tail = [] if self.fill is None else [FILL_BY[self.fill.by], first,
                                             len(self.fill.cuts), *self.fill.cuts]
        t = SPEC_HEADER + SPEC_FIELDS * len(rows)
        spec = np.zeros(t + len(tail), dtype=np.int64)
        spec[0], spec[1] = SPEC_MAGIC, len(rows)
        spec[2] = first * (1 if self.fill is None else self.fill.buckets)
        spec[SPEC_HEADER:t] = np.array(rows, dtype=np.int64).reshape(-1)
        spec[t:] = tail
        spec.setflags(write=False)
        object.__setattr__(self, "spec", spec)

    @property
    def entries(self) -> int:
        """Number of table entries (float32 values)."""
        return int(self.spec[2])

    @property
    def buckets(self) -> int:
        """Copies of the tables, one per fill bucket (1 unbucketed)."""
        return 1 if self.fill is None else self.fill.buckets

    @property
    def base(self) -> str:
        """The unbucketed layout's name (``A`` for ``A+occ5``; itself when unbucketed)."""
        return self.name.split(FILL_SEP)[0]

    @property
    def n_active(self) -> int:
        """Active entries per state: the N of ``20 / N`` and ``delta / N``."""
        return int(self.spec[1])

    @property
    def initial_entry(self) -> float:
        """The starting value of every entry, ``20 / N`` rises."""
        return INITIAL_VALUE / self.n_active

    def describe(self) -> dict:
        """Plain facts for manifests and docs."""
        out = {"layout": self.name, "families": list(self.families),
               "phased": list(self.phased), "entries": self.entries,
               "n_active": self.n_active,
               "slots": None if self.slots is None else list(self.slots)}
        return out if self.fill is None else {**out, "fill": self.fill.describe()}


_ALL = ("rows", "cols", "win23", "win32")

#: The five layouts of the research pilot.
LAYOUTS: dict[str, Layout] = {
    "A": Layout("A", _ALL, ("cols",)),
    "B": Layout("B", _ALL),
    "C": Layout("C", _ALL, _ALL),
    "D": Layout("D", ("rows", "cols"), ("cols",)),
    "E": Layout("E", ("win23", "win32")),
}

#: Small layouts for tests only (a few windows: a few million entries), and
#: ``null`` (no tuples: U is the constant bias) for the engine-only benchmark.
TEST_LAYOUTS: dict[str, Layout] = {
    "null": Layout("null", ()),
    "T3": Layout("T3", ("win23", "win32"), ("win32",), slots=(14, 31, 44, 73)),
    "T1": Layout("T1", ("win32",), (), slots=(44, 60)),
}


def get_layout(name: str) -> Layout:
    """The layout called ``name`` (A-E, a test layout, or either with a fill rule:
    ``A+occ5``); ValueError if unknown."""
    base, sep, rule = name.partition(FILL_SEP)
    layout = LAYOUTS.get(base) or TEST_LAYOUTS.get(base)
    if layout is None or (sep and rule not in FILL_RULES):
        raise ValueError(f"unknown layout {name!r} (choose from {', '.join(LAYOUTS)}, each "
                         f"optionally with {FILL_SEP}{f' or {FILL_SEP}'.join(FILL_RULES)})")
    if not sep:
        return layout
    return _bucketed(layout, rule)


def coarsens(source: Layout, target: Layout) -> bool:
    """Whether ``target`` is ``source`` keyed on fewer fill buckets of the same measure, every
    cut of ``target`` one of ``source``'s (each of its buckets a union of ``source``'s)."""
    return (source.fill is not None and target.fill is not None and source.base == target.base
            and source.fill.by == target.fill.by
            and set(target.fill.cuts) < set(source.fill.cuts))


_BUCKETED: dict[tuple[str, str], Layout] = {}


def _bucketed(layout: Layout, rule: str) -> Layout:
    """``layout`` keyed on the fill rule ``rule`` (built once per pair)."""
    key = (layout.name, rule)
    if key not in _BUCKETED:
        _BUCKETED[key] = Layout(f"{layout.name}{FILL_SEP}{rule}", layout.families,
                                layout.phased, layout.slots, FILL_RULES[rule])
    return _BUCKETED[key]


def layout_names() -> list[str]:
    """Every layout a claim may train: A-E, and each with each fill rule."""
    return [*LAYOUTS, *(f"{n}{FILL_SEP}{r}" for n in LAYOUTS for r in FILL_RULES)]
