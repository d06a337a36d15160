"""Panel readings: how well a ranker orders the legal columns of held-out roots.

A panel table (:mod:`contracts.panel_table`) gives, at every root, the
reference's value of each legal column and each ranker's choice (and, when
it offers them, its values).  Every figure is a per-root number averaged
over the roots where it is defined:

``top1``
    1 when the reference values the ranker's choice as highly as its best
    column (a tie for the reference's best counts: any best column agrees),
    else 0.  So ``top1`` is 1 exactly when ``regret`` is 0.
``regret`` / ``regret_frac``
    the reference value lost by the choice, ``max - v[choice]``, in the
    reference's units (points), and as a fraction of the root's spread,
    ``(max - v[choice]) / (max - min)``, 0 when every legal column is worth
    the same (the register's normalised regret).
``recall@k`` (values needed)
    1 when one of the reference's best columns is among the ranker's first
    ``k`` columns: the ranker's values sorted high to low, ties in
    :data:`~contracts.panel_table.TIE_ORDER` (as the searches break them).
``pairwise`` (values needed)
    over the pairs of legal columns the reference orders (its ties are left
    out: there is no order to reproduce), the fraction the ranker orders the
    same way, a ranker tie counting one half; undefined at a root where the
    reference ties every pair.
``tau`` (values needed)
    Kendall's tau-b of the ranker's values against the reference's over the
    legal columns (scipy's ``kendalltau``); undefined at a root with fewer
    than two legal columns or where either side ties everything.
``work``
    the ranker's work per root; ``work_ratio`` is its total over the
    reference's (a ratio of means, as the register reports it).

Each figure's bounds and halves resample games (:mod:`analysis.panel_bootstrap`); the
criteria that read them are :mod:`analysis.panel_criteria`.

Every figure above is read under ``conventions`` (:mod:`analysis.panel_conventions`): the
rules stated here are ``harness``'s; under ``register`` the pick is the first best of the
ranker's values, top-1 asks for the reference's first best column, a ranker tie scores 0 in
pairwise, roots with fewer than two legal columns are left out, and the halves split the games
by a hash of their seed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau

from analysis.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from analysis.panel_bootstrap import Figure, figure
from analysis.panel_conventions import DEFAULT, rules
from analysis.panel_faults import faulted
from contracts.panel_table import N_COLUMNS, TIE_ORDER, VALUE_COLUMNS

#: figures that need the ranker's values (a ranker giving its choice alone has the others)
VALUE_FIGURES = ("pairwise", "tau")
CHOICE_FIGURES = ("top1", "regret", "regret_frac")
#: the ``k`` of ``recall@k`` a panel reports unless it declares others
DEFAULT_KS = (2, 3)


def figure_names(recall: Sequence[int] = DEFAULT_KS) -> tuple[str, ...]:
    """The names of every figure :func:`read_ranker` gives a panel reporting ``recall@k`` for
    each ``k`` of ``recall``, in its order: the one list of the figures a reading may name."""
    return (*CHOICE_FIGURES, *(f"recall@{k}" for k in recall), *VALUE_FIGURES, "work",
            "work_ratio")


class PanelError(ValueError):
    """A panel table that cannot be read as the reference and a ranker at the same roots."""


@dataclass(frozen=True)
class PanelRoots:
    """One ranker at every root of the panel, aligned with the reference (root order:
    game seed, then root number)."""

    games: np.ndarray  #: uint64 game seed of each root
    reference: np.ndarray  #: (n, 7) reference values, NaN for an illegal column
    choice: np.ndarray  #: (n,) the ranker's column
    values: np.ndarray | None  #: (n, 7) ranker values (NaN illegal); None: choice alone
    work: np.ndarray  #: (n,) the ranker's work (NaN where not reported)
    reference_work: np.ndarray  #: (n,) the reference's work (NaN where not reported)


def _float(text: str) -> float:
    return float(text) if text else math.nan


def panel_roots(rows: Sequence[Mapping[str, str]], reference: str, ranker: str) -> PanelRoots:
    """The ranker's and the reference's rows of a panel table (text, as
    :func:`contracts.panel_table.read_rows` gives them), aligned by root.

    Refused (:class:`PanelError`, one line): no row of either; a reference root
    without values; a reference root the ranker did not rank or the other way
    round; a ranker choosing a column the reference says is illegal; a ranker
    valuing other columns than the reference's legal ones; a ranker giving
    values at some roots and not at others.

    A root where the reference has a fault (:func:`analysis.panel_faults.faulted`) is left
    out, for every ranker alike; a ranker's faulted root has its centre-first choice and no
    values (its value figures are undefined there), and does not count as a root without
    values.  Faults are counted by :mod:`analysis.panel_faults`, and make the verdict
    invalid.
    """
    by: dict[str, dict[tuple[int, int], Mapping[str, str]]] = {reference: {}, ranker: {}}
    for row in rows:
        if row["ranker"] in by:
            by[row["ranker"]][(int(row["game"]), int(row["root"]))] = row
    for name in (reference, ranker):
        if not by[name]:
            raise PanelError(f"no row of ranker {name!r}")
    ref, mine = by[reference], by[ranker]
    for a, b, what in ((ref, mine, ranker), (mine, ref, reference)):
        missing = sorted(set(a) - set(b))
        if missing:
            g, r = missing[0]
            raise PanelError(f"{what} has no row at game {g} root {r} ({len(missing)} roots "
                             "missing)")
    keys = sorted(k for k in ref if not faulted(ref[k]))
    if not keys:
        raise PanelError(f"reference {reference!r} has a fault at every root")
    n = len(keys)
    refv, vals = np.full((n, N_COLUMNS), np.nan), np.full((n, N_COLUMNS), np.nan)
    choice = np.empty(n, dtype=np.int64)
    work, ref_work = np.empty(n), np.empty(n)
    valued = set()
    for i, key in enumerate(keys):
        r, m = ref[key], mine[key]
        refv[i] = [_float(r[k]) for k in VALUE_COLUMNS]
        vals[i] = [_float(m[k]) for k in VALUE_COLUMNS]
        where = f"game {key[0]} root {key[1]}"
        legal = ~np.isnan(refv[i])
        if not legal.any():
            raise PanelError(f"reference {reference!r} gives no value at {where}")
        choice[i] = int(m["choice"])
        if not legal[choice[i]]:
            raise PanelError(f"{ranker} chooses column {choice[i]} at {where}, illegal for "
                             f"the reference")
        given = ~np.isnan(vals[i])
        if faulted(m):
            valued.add(i)  # no values at a fault: not a ranker without values
        elif given.any():
            valued.add(i)
            if not np.array_equal(given, legal):
                raise PanelError(f"{ranker} values columns {np.flatnonzero(given).tolist()} "
                                 f"at {where}, the legal ones are "
                                 f"{np.flatnonzero(legal).tolist()}")
        work[i], ref_work[i] = _float(m["work"]), _float(r["work"])
    valued_roots = [i for i in valued if not faulted(mine[keys[i]])]
    if valued_roots and len(valued) != n:
        raise PanelError(f"{ranker} gives values at {len(valued)} of {n} roots: a ranker "
                         "gives them at every root or at none")
    if not valued_roots:
        valued = set()
    games = np.array([k[0] for k in keys], dtype=np.uint64)
    return PanelRoots(games, refv, choice, vals if valued else None, work, ref_work)


def ranking_order(values: np.ndarray) -> list[int]:
    """The legal columns (non-NaN) of one root from the highest value down, ties in
    :data:`TIE_ORDER`."""
    place = {c: i for i, c in enumerate(TIE_ORDER)}
    legal = [c for c in range(N_COLUMNS) if not math.isnan(values[c])]
    return sorted(legal, key=lambda c: (-values[c], place[c]))


def picks(roots: PanelRoots, conventions: str = DEFAULT) -> np.ndarray:
    """The column each root's figures read as the ranker's: its played choice, or under a
    convention that picks by values the first column of its highest value (its choice where
    it gives none: a ranker without values, a faulted root)."""
    pick = roots.choice.copy()
    if rules(conventions).pick_by_values and roots.values is not None:
        valued = ~np.isnan(roots.values).all(axis=1)
        pick[valued] = np.nanargmax(roots.values[valued], axis=1)  # first of equals
    return pick


def per_root(roots: PanelRoots, ks: Sequence[int] = DEFAULT_KS,
             conventions: str = DEFAULT) -> dict[str, np.ndarray]:
    """Every figure at every root under ``conventions`` (NaN where undefined, for a value
    figure of a ranker that gives its choice alone, and for every figure but work at a root
    the convention leaves out)."""
    rule = rules(conventions)
    ref = roots.reference
    n = ref.shape[0]
    best, worst = np.nanmax(ref, axis=1), np.nanmin(ref, axis=1)
    pick = picks(roots, conventions)
    chosen = ref[np.arange(n), pick]
    regret = best - chosen
    spread = best - worst
    top1 = (np.nanargmax(ref, axis=1) == pick) if rule.pick_by_values else (chosen == best)
    out = {"top1": top1.astype(np.float64), "regret": regret,
           "regret_frac": np.divide(regret, spread, out=np.zeros(n), where=spread > 0)}
    for k in ks:
        out[f"recall@{k}"] = np.full(n, np.nan)
    for name in VALUE_FIGURES:
        out[name] = np.full(n, np.nan)
    if roots.values is not None:
        for i in range(n):
            r, v = ref[i], roots.values[i]
            if np.isnan(v).all():  # a fault: no values at this root
                continue
            legal = np.flatnonzero(~np.isnan(r))
            order = ranking_order(v)
            tops = {c for c in legal if r[c] == best[i]}
            for k in ks:
                out[f"recall@{k}"][i] = float(bool(tops & set(order[:k])))
            out["pairwise"][i] = _pairwise(r[legal], v[legal], rule.tie_credit)
            if legal.size >= 2 and np.ptp(r[legal]) > 0 and np.ptp(v[legal]) > 0:
                out["tau"][i] = kendalltau(r[legal], v[legal]).statistic
    left_out = (~np.isnan(ref)).sum(axis=1) < rule.min_legal
    for x in out.values():
        x[left_out] = np.nan
    out["work"] = roots.work.astype(np.float64)
    return out


def _pairwise(ref: np.ndarray, mine: np.ndarray, tie_credit: float) -> float:
    """Fraction of the reference's ordered pairs the ranker orders alike (a pair it ties
    scores ``tie_credit``; two columns a pruned root left out, both ``-inf``, are a tie)."""
    dr = np.sign(ref[:, None] - ref[None, :])
    with np.errstate(invalid="ignore"):  # -inf - -inf: NaN, a tie
        dm = np.nan_to_num(np.sign(mine[:, None] - mine[None, :]), nan=0.0)
    upper = np.triu(np.ones_like(dr, dtype=bool), 1) & (dr != 0)
    pairs = int(upper.sum())
    if pairs == 0:
        return math.nan
    agree = (dr == dm) & upper
    ties = (dm == 0) & upper
    return float((agree.sum() + tie_credit * ties.sum()) / pairs)


def read_ranker(roots: PanelRoots, ks: Sequence[int] = DEFAULT_KS,
                n_resamples: int = BOOTSTRAP_RESAMPLES,
                seed: int = BOOTSTRAP_SEED, conventions: str = DEFAULT) -> dict[str, Figure]:
    """Every figure of one ranker against the reference under ``conventions``; a figure the
    ranker cannot have (values it does not give, work it does not report) has no roots."""
    rows = per_root(roots, ks, conventions)
    out = {name: figure(roots.games, x, None, n_resamples, seed, conventions=conventions)
           for name, x in rows.items()}
    out["work_ratio"] = figure(roots.games, roots.work, roots.reference_work, n_resamples,
                               seed, conventions=conventions)
    return out


def difference(a: PanelRoots, b: PanelRoots, name: str, ks: Sequence[int] = DEFAULT_KS,
               n_resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED,
               conventions: str = DEFAULT) -> Figure:
    """Ranker ``a``'s figure minus ranker ``b``'s on the same roots, paired by root and
    resampled by game (roots where either is undefined are left out); ``work_ratio``'s is
    ``sum(work_a - work_b) / sum(reference work)``, the difference of the two ratios."""
    if not np.array_equal(a.games, b.games) or not np.array_equal(a.reference, b.reference,
                                                                  equal_nan=True):
        raise PanelError("the two rankers are not read on the same roots")
    if name == "work_ratio":
        return figure(a.games, a.work - b.work, a.reference_work, n_resamples, seed,
                      conventions=conventions)
    return figure(a.games, per_root(a, ks, conventions)[name]
                  - per_root(b, ks, conventions)[name], None, n_resamples, seed,
                  conventions=conventions)


def choice_agreement(rows: Sequence[Mapping[str, str]], rankers: Sequence[str]) -> np.ndarray:
    """``(r, r)`` matrix: the fraction of the panel's roots at which ranker ``i`` and ranker
    ``j`` choose the same column (every ranker must rank every root of the first one)."""
    choices: dict[str, dict[tuple[int, int], int]] = {name: {} for name in rankers}
    for row in rows:
        if row["ranker"] in choices:
            choices[row["ranker"]][(int(row["game"]), int(row["root"]))] = int(row["choice"])
    keys = sorted(choices[rankers[0]])
    for name in rankers:
        if not choices[name] or sorted(choices[name]) != keys:
            raise PanelError(f"{name} does not rank the same roots as {rankers[0]}")
    c = np.array([[choices[name][k] for k in keys] for name in rankers])
    return (c[:, None, :] == c[None, :, :]).mean(axis=2)
