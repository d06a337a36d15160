"""TreeStrap for n-tuple tables: the fair search plays, every decision node of its tree is a target.

The register's recipe (theory ``ntuple-search-target-treestrap-leaf``), in our own code:

1. **Search.**  At the real decision (board, next disc, moves remaining) a fair
   ``dDsS`` expectimax over the current tables (:func:`_node`, the shape of
   :func:`engines.search.expectimax.node_value`: canonical board, columns centre
   first, a strictly greater utility replaces the best, ``S`` stratified samples
   keyed by :func:`engines.drop7.chance.chance_key`, the n-tuple leaf on the canonical
   child board) returns two values per decision node: the *utility* that picks the
   column (a sample that ends the game adds ``TERMINAL_UTILITY``) and the *score-only*
   value of the same choices (zero after death), both in rises.
2. **Targets.**  Every decision node the search visits (the root and, with
   ``targets: tree``, the nodes one to ``D - 1`` imagined moves below it) records its
   canonical board, moves remaining and score-only value.  The tables cannot see the
   next disc, so each node's board is trained toward its own disc's backup; with
   ``targets: root`` only the root is (the register's ``searchtd`` ablation).  The
   score-only value is the target because the tables hold expected remaining score,
   as one-ply TD's targets do; the utility's death penalty would be counted twice by a
   search that reads them.
3. **Learn.**  Each target is one TC-TD update of its board's entries
   (:func:`engines.train.kernel.td_update`: ``delta`` clamped to 30 rises,
   ``w += alpha * (|E| / A) * delta / N``).
4. **Play.**  The chosen column is played on the real game (seeded streams).

Lanes and determinism.  A round plays one move in each of ``lanes`` games: the
lanes search in parallel over tables no one writes during the phase (each lane its
own buffers), then the targets are applied lane by lane, node by node, in the
order the searches recorded them, on one thread.  So the tables after a round are
the same bits for any thread count, and a run cut into chunks or killed and resumed
(the position and the tables are the resume state's arrays) equals one
uninterrupted run.  Unlike the register's Hogwild workers, nothing races.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from engines.drop7.board import TERMINAL_UTILITY
from engines.drop7.chance import (
    RES_LEN,
    RES_MR,
    RES_OVER,
    RES_POINTS,
    STRATA_SCRATCH_LEN,
    canonicalise,
    chance_key,
    next_disc,
    play_strata_of,
)
from engines.drop7.core import (
    OUT_LEN,
    SCRATCH_LEN,
    SRC_STRATIFIED,
    ST_MOVES_REMAINING,
    ST_NEXT_DISC,
    ST_SCORE,
    advance,
    finished,
    new_game,
    quick_drop,
)
from engines.drop7.nibbles import CENTRE, is_legal
from engines.ntuple.layouts import N_SLOTS
from engines.ntuple.value import entry_indices, gather
from engines.train import kernel as kern
from engines.train.trainer import NtupleLearner

#: what the tables are trained toward: every decision node of the tree, or the root alone
TARGETS = ("tree", "root")
#: the search the actor runs unless the config says otherwise (the register's d3s7)
DEPTH, STRATA = 3, 7
#: most search depth and strata a TreeStrap run accepts (the target buffer grows as (7 S)^D)
MAX_DEPTH, MAX_STRATA = 3, 7
_TERM = TERMINAL_UTILITY / kern.RISE  # the death utility in rises


def max_nodes(depth: int, strata: int) -> int:
    """Decision nodes one search records at most: the root, 7 S below it, (7 S)^2 below those..."""
    return sum((7 * strata) ** k for k in range(depth))


@njit(cache=True)
def leaf_value(vals, bias, spec, board, mr, canon, pat, idx) -> float:
    """The tables' value (rises) of a resolved board: its canonical board's entries summed."""
    canonicalise(board, canon)
    n = entry_indices(canon, mr, spec, pat, idx)
    return gather(vals, bias, idx, n)


@njit(cache=True)
def _node(vals, bias, spec, cols, disc, mr, depth, strata, record, canon, work, boards, res,
          scratch, out, leafbuf, pat, idx, nb, nmr, nt, nn, colvals):
    """``(utility, score, canonical column)`` of a decision node searched ``depth`` moves deep.

    A recorded node (``record``: the root always, inner nodes when the run trains the tree)
    appends its canonical board, moves remaining and score-only value to ``nb, nmr, nt`` at
    ``nn[0]``, after its children (post-order).  ``colvals`` receives the root's column
    utilities (canonical columns; -inf when illegal) when ``depth`` is the top.
    """
    cn = canon[depth]
    canonicalise(cols, cn)
    wk = work[depth]
    bd = boards[depth]
    rd = res[depth]
    best_u = -np.inf
    best_s = 0.0
    best_c = -1
    for i in range(7):
        c = CENTRE[i]
        colvals[depth, c] = -np.inf
        if not is_legal(cn, c):
            continue
        for k in range(7):
            wk[k] = cn[k]
        quiet, mr2, pts, over = quick_drop(wk, c, disc, mr)
        key = chance_key(cn, disc, mr, c)
        if quiet:
            rows = 1
            for k in range(7):
                bd[0, k] = wk[k]
            rd[0, RES_MR] = mr2
            rd[0, RES_POINTS] = pts
            rd[0, RES_OVER] = over
        else:
            rows = play_strata_of(SRC_STRATIFIED, wk, c, disc, mr, key, strata, bd, rd, 0,
                                  scratch, out)
        shared = rows == 1
        n = 1 if shared and (rd[0, RES_OVER] != 0 or depth == 1) else strata
        acc_u = 0.0
        acc_s = 0.0
        for s in range(n):
            r = 0 if shared else s
            p = rd[r, RES_POINTS] / kern.RISE
            if rd[r, RES_OVER]:
                acc_u += p + _TERM
                acc_s += p
            elif depth == 1:
                v = leaf_value(vals, bias, spec, bd[r], rd[r, RES_MR], leafbuf, pat, idx)
                acc_u += p + v
                acc_s += p + v
            else:
                # the child plays its samples into boards[depth - 1]: bd[r] stays intact
                su, ss, _ = _node(vals, bias, spec, bd[r], next_disc(SRC_STRATIFIED, key, strata,
                                  s), rd[r, RES_MR], depth - 1, strata, record, canon, work,
                                  boards, res, scratch, out, leafbuf, pat, idx, nb, nmr, nt, nn,
                                  colvals)
                acc_u += p + su
                acc_s += p + ss
        u = acc_u / n
        colvals[depth, c] = u
        if u > best_u:
            best_u = u
            best_s = acc_s / n
            best_c = c
    if best_c >= 0 and record[depth]:
        j = nn[0]
        for k in range(7):
            nb[j, k] = cn[k]
        nmr[j] = mr
        nt[j] = best_s
        nn[0] = j + 1
    return best_u, best_s, best_c


@njit(cache=True)
def search_targets(vals, bias, spec, cols, disc, mr, depth, strata, tree, nb, nmr, nt, colvals):
    """Search one decision and record its targets; returns ``(column of cols, targets, mirrored)``.

    ``nb, nmr, nt`` take the targets (:func:`_node`), ``colvals[depth]`` the root's canonical
    column utilities.  ``tree`` false records the root alone."""
    record = np.zeros(depth + 1, dtype=np.bool_)
    for d in range(1, depth + 1):
        record[d] = tree or d == depth
    canon = np.zeros((depth + 1, 7), dtype=np.int64)
    work = np.zeros((depth + 1, 7), dtype=np.int64)
    boards = np.zeros((depth + 1, strata, 7), dtype=np.int64)
    res = np.zeros((depth + 1, strata, RES_LEN), dtype=np.int64)
    scratch = np.zeros(STRATA_SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(OUT_LEN, dtype=np.int64)
    leafbuf = np.zeros(7, dtype=np.int64)
    pat = np.zeros(N_SLOTS, dtype=np.int64)
    idx = np.zeros(max(spec[1], 1), dtype=np.int64)
    nn = np.zeros(1, dtype=np.int64)
    board = cols.copy()
    _, _, c = _node(vals, bias, spec, board, disc, mr, depth, strata, record, canon, work,
                    boards, res, scratch, out, leafbuf, pat, idx, nb, nmr, nt, nn, colvals)
    mirrored = canonicalise(cols, canon[0])
    if c >= 0 and mirrored:
        c = 6 - c
    return c, nn[0], mirrored


@njit(cache=True)
def apply_targets(vals, acc, bias, spec, alpha, nb, nmr, nt, count, fstats, sign) -> None:
    """One TC-TD update of each recorded board toward ``sign * target``, in recorded order.

    ``sign`` is 1 in training; tests pass -1 to show the learning curve catches a broken
    target."""
    n = spec[1]
    pat = np.zeros(N_SLOTS, dtype=np.int64)
    idx = np.zeros(max(n, 1), dtype=np.int64)
    canon = np.zeros(7, dtype=np.int64)
    for j in range(count):
        for k in range(7):
            canon[k] = nb[j, k]
        entry_indices(canon, nmr[j], spec, pat, idx)
        delta = kern.td_update(vals, acc, bias, idx, n, sign * nt[j], alpha)
        kern.count_delta(fstats, delta)


@njit(cache=True, parallel=True)
def train_rounds(vals, acc, bias, spec, alpha, seed_start, seed_count, carry, state, cols,
                 rounds, depth, strata, tree, nb, nmr, nt, ncount, fstats, sign) -> np.int64:
    """Play ``rounds`` rounds (one move per lane each), searching in parallel and learning in
    lane order (module docstring); ``carry, state, cols`` hold one row per lane and are
    updated in place.  ``nb, nmr, nt, ncount`` are per-lane target buffers.  Returns moves."""
    lanes = carry.shape[0]
    colvals = np.zeros((lanes, depth + 1, 7), dtype=np.float64)
    scratch = np.zeros((lanes, 2 * SCRATCH_LEN), dtype=np.int64)
    out = np.zeros((lanes, OUT_LEN), dtype=np.int64)
    done = 0
    for _ in range(rounds):
        for lane in prange(lanes):
            seed = np.uint64(seed_start) + np.uint64(carry[lane, kern.C_GAME] % seed_count)
            if not carry[lane, kern.C_IN_GAME]:
                new_game(seed, state[lane], cols[lane])
                carry[lane, kern.C_IN_GAME] = 1
            c, cnt, _ = search_targets(vals, bias, spec, cols[lane],
                                       state[lane, ST_NEXT_DISC],
                                       state[lane, ST_MOVES_REMAINING], depth, strata, tree,
                                       nb[lane], nmr[lane], nt[lane], colvals[lane])
            ncount[lane] = cnt
            advance(seed, c, state[lane], cols[lane], scratch[lane], out[lane])
        for lane in range(lanes):
            apply_targets(vals, acc, bias, spec, alpha, nb[lane], nmr[lane], nt[lane],
                          ncount[lane], fstats, sign)
            carry[lane, kern.C_MOVES] += 1
            if finished(state[lane]):
                carry[lane, kern.C_IN_GAME] = 0
                carry[lane, kern.C_GAME] += lanes
                carry[lane, kern.C_GAMES_DONE] += 1
                carry[lane, kern.C_SCORE_SUM] += state[lane, ST_SCORE]
        done += lanes
    return done


class TreestrapLearner(NtupleLearner):
    """n-tuple tables trained by TreeStrap (module docstring) in ``lanes`` games side by side;
    checkpoints, resume states, warm starts and exports are :class:`NtupleLearner`'s."""

    #: what the weights are (a checkpoint's manifest ``kind``: n-tuple tables, which every
    #: reader of tables accepts); the learner is named in the config
    kind = "ntuple"

    def __init__(self, layout, alpha: float = 1.0, lanes: int = 1, depth: int = DEPTH,
                 strata: int = STRATA, targets: str = "tree", sign: float = 1.0) -> None:
        super().__init__(layout, alpha, lanes)
        if not 1 <= depth <= MAX_DEPTH:
            raise ValueError(f"treestrap depth must be 1..{MAX_DEPTH}, got {depth}")
        if not 1 <= strata <= MAX_STRATA:
            raise ValueError(f"treestrap strata must be 1..{MAX_STRATA}, got {strata}")
        if targets not in TARGETS:
            raise ValueError(f"treestrap targets must be one of {', '.join(TARGETS)}, "
                             f"got {targets!r}")
        self.depth, self.strata, self.targets = int(depth), int(strata), targets
        self.sign = float(sign)  # -1 only in tests: a broken target the curve must catch
        size = max_nodes(self.depth, self.strata) if targets == "tree" else 1
        self.nb = np.zeros((self.lanes, size, 7), dtype=np.int64)
        self.nmr = np.zeros((self.lanes, size), dtype=np.int64)
        self.nt = np.zeros((self.lanes, size), dtype=np.float64)
        self.ncount = np.zeros(self.lanes, dtype=np.int64)
        self.targets_applied = 0

    def config(self) -> dict:
        """:meth:`NtupleLearner.config` with the search and the targets; the order in which a
        round's targets are applied is fixed (lane by lane), whatever the lanes."""
        config = {key: value for key, value in super().config().items()
                  if key != "shared_entry_step"}
        if self.lanes == 1:
            config.pop("lanes", None)
        config = {**config, "learner": "treestrap", "search": f"d{self.depth}s{self.strata}",
                  "targets": self.targets}
        if self.lanes > 1:
            config["lanes"] = self.lanes
        return config

    def play(self, seeds, carry, state, cols, moves: int, fstats) -> int:
        """Train ``moves`` moves: whole rounds of one move per lane, on every thread numba has."""
        if moves % self.lanes:
            raise ValueError(f"{moves} moves is not a whole number of {self.lanes}-lane rounds")
        rows = [a.reshape(self.lanes, -1) for a in (carry, state, cols)]
        before = fstats[kern.F_STEPS]
        done = int(train_rounds(self.vals, self.acc, self.bias, self.layout.spec, self.alpha,
                                np.uint64(seeds.start), seeds.count, *rows, moves // self.lanes,
                                self.depth, self.strata, self.targets == "tree", self.nb,
                                self.nmr, self.nt, self.ncount, fstats, self.sign))
        self.targets_applied += int(fstats[kern.F_STEPS] - before)
        return done
