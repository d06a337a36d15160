"""``linear-trained``: the fair leaf's 18 features with weights fitted by TC-TD(0).

The features are exactly those of the frozen leaf
(:func:`engines.leaves.linear.linear_terms` over the public state: board,
moves remaining, next disc).  Training plays as the n-tuple trainer does
(:mod:`engines.train.kernel`: greedy one ply, 7 chance strata, centre-first
ties, the same seeds and TD(0) targets in rises), with two differences that
follow from the leaf being a function of the *decision* state:

* the value of a sample is ``V(board, moves remaining, disc)`` with the
  sample's next disc (``s + 1`` of stratum ``s``; a column whose samples
  collapse to one board averages ``V`` over the 7 discs), as search does;
* ``s`` and ``s'`` are decision states (board after the move, its moves
  remaining and the next disc the game reveals).

Scale.  ``V = sum_i theta_i * g_i`` in rises with ``g = phi / SCALES``:
each term is divided by its root mean square over the states of 900
baseline games (random, centre-first and lowest-column on 300 probe seeds),
so every scaled feature is of order one and one step size suits all.  The
update is TC-TD(0) per weight: ``theta_i += alpha * beta_i * delta * g_i``
with ``beta_i = |E_i| / A_i`` (1 while ``A_i = 0``), then
``E_i += delta * g_i``, ``A_i += |delta * g_i|``; ``delta`` is clamped to
+-30 rises.  Weights start at 0 and ``alpha`` defaults to 0.001.

Why not the n-tuple rule ``delta / N`` (normalised by ``sum(g^2)``): with 18
dense features and greedy play it diverged in a pilot (every delta clamped
at +30 within 20,000 moves, weights growing without bound), while the plain
rule at alpha 0.001 settled (mean |delta| about 0.5 rises after 3e5 moves,
from zero or from the fair weights alike).

Saved weights are in points per raw term (``17000 * theta / SCALES``), so a
``linear-trained:PATH`` leaf is ``sum(w_i * term_i)`` exactly like the
frozen leaf (see :func:`engines.leaves.linear_weights.load_linear`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.drop7.board import TERMINAL_UTILITY
from engines.drop7.chance import canonicalise
from engines.drop7.core import (
    OUT_POINTS,
    ST_GAME_OVER,
    ST_MOVES_REMAINING,
    ST_NEXT_DISC,
    ST_SCORE,
    advance,
    finished,
    new_game,
)
from engines.drop7.game_loop import game_arrays
from engines.leaves.kinds import N_TERMS
from engines.leaves.linear import linear_terms, next_disc_term
from engines.ntuple.layouts import get_layout
from engines.train import kernel as kern

#: Root mean square of each term over 24,340 states of baseline play (see module doc).
SCALES = np.array([6.8, 310.0, 18.0, 3.3, 6.3, 2.0, 2.4, 0.8, 1.2, 0.66, 0.8, 0.23, 2.6,
                   200.0, 29.0, 3.8, 390.0, 2.0], dtype=np.float64)
_RISE = kern.RISE
#: a game-ending sample's value in the choice, in rises: the search's (see module doc)
_DEATH = TERMINAL_UTILITY / _RISE
_NULL_SPEC = get_layout("null").spec
_NO_TABLE = np.zeros(1, dtype=np.float32)


@njit(cache=True)
def _value(wr, board, mr, disc, t) -> float:
    """``V`` in rises of one decision state (``wr`` = weights per raw term, in rises)."""
    linear_terms(board, mr, disc, t)
    v = 0.0
    for i in range(N_TERMS):
        v += wr[i] * t[i]
    return v


@njit(cache=True)
def _sample_values(wr, work, t) -> None:
    """``sval[r]`` = V of every sample (collapsed columns: mean over discs; game over: death)."""
    sboard, sinfo, sval, scount = (work[kern.W_SBOARD], work[kern.W_SINFO], work[kern.W_SVAL],
                                   work[kern.W_SCOUNT])
    last = N_TERMS - 1
    for c in range(7):
        ns = scount[c]
        for s in range(ns):
            r = kern.STRATA * c + s
            if sinfo[r, kern.SI_MR] < 0:
                sval[r] = _DEATH
                continue
            board = sboard[r]
            if ns > 1:
                sval[r] = _value(wr, board, sinfo[r, kern.SI_MR], s + 1, t)
                continue
            linear_terms(board, sinfo[r, kern.SI_MR], 1, t)
            v = 0.0
            for i in range(last):
                v += wr[i] * t[i]
            acc = 0.0
            for d in range(1, 8):
                acc += next_disc_term(board, d)
            sval[r] = v + wr[last] * (acc / 7.0)


@njit(cache=True)
def linear_train_moves(theta, e_acc, a_acc, scales, alpha, seed_start, seed_count, carry,
                       state, cols, n_moves, learn, fstats) -> np.int64:
    """Play (and if ``learn``, train on) ``n_moves`` moves; like ``kernel.train_moves``."""
    work = kern.new_work(_NULL_SPEC)
    wr = np.zeros(N_TERMS)
    t = np.zeros(N_TERMS)
    g = np.zeros(N_TERMS)
    canon = np.zeros(7, dtype=np.int64)
    _, _, scratch, out = game_arrays()
    done = 0
    while done < n_moves:
        for i in range(N_TERMS):
            wr[i] = theta[i] / scales[i]
        seed = np.uint64(seed_start) + np.uint64(carry[kern.C_GAME] % seed_count)
        if not carry[kern.C_IN_GAME]:
            new_game(seed, state, cols)
            carry[kern.C_IN_GAME] = 1
        canonicalise(cols, canon)
        linear_terms(canon, state[ST_MOVES_REMAINING], state[ST_NEXT_DISC], g)
        for i in range(N_TERMS):
            g[i] /= scales[i]
        kern.play_samples(_NO_TABLE, _NULL_SPEC, cols, state[ST_MOVES_REMAINING],
                          state[ST_NEXT_DISC], work)
        _sample_values(wr, work, t)
        c, _ = kern.best_column(work)
        advance(seed, c, state, cols, scratch, out)
        target = out[OUT_POINTS] / _RISE
        if state[ST_GAME_OVER] == 0:
            canonicalise(cols, canon)
            target += _value(wr, canon, state[ST_MOVES_REMAINING], state[ST_NEXT_DISC], t)
        if learn:
            pred = 0.0
            for i in range(N_TERMS):
                pred += theta[i] * g[i]
            delta = target - pred
            if delta > kern.DELTA_CLAMP:
                delta = kern.DELTA_CLAMP
            elif delta < -kern.DELTA_CLAMP:
                delta = -kern.DELTA_CLAMP
            for i in range(N_TERMS):
                dg = delta * g[i]
                beta = abs(e_acc[i]) / a_acc[i] if a_acc[i] > 0.0 else 1.0
                theta[i] += alpha * beta * dg
                e_acc[i] += dg
                a_acc[i] += abs(dg)
            fstats[kern.F_ABS_DELTA] += abs(delta)
            fstats[kern.F_STEPS] += 1.0
            if abs(delta) >= kern.DELTA_CLAMP:
                fstats[kern.F_CLAMPED] += 1.0
        done += 1
        carry[kern.C_MOVES] += 1
        if finished(state):
            carry[kern.C_IN_GAME] = 0
            carry[kern.C_GAME] += 1
            carry[kern.C_GAMES_DONE] += 1
            carry[kern.C_SCORE_SUM] += state[ST_SCORE]
    return done


@njit(cache=True)
def play_linear_greedy(weights, seeds, results) -> None:
    """Whole games of greedy one-ply play with linear weights in points (no learning)."""
    wr = weights / _RISE
    work = kern.new_work(_NULL_SPEC)
    t = np.zeros(N_TERMS)
    state, cols, scratch, out = game_arrays()
    for k in range(seeds.shape[0]):
        new_game(seeds[k], state, cols)
        while not finished(state):
            kern.play_samples(_NO_TABLE, _NULL_SPEC, cols, state[ST_MOVES_REMAINING],
                          state[ST_NEXT_DISC], work)
            _sample_values(wr, work, t)
            c, _ = kern.best_column(work)
            advance(seeds[k], c, state, cols, scratch, out)
        results[k, :] = state


class LinearLearner:
    """TC-TD(0) weights of the 18 fair-leaf features (``--layout linear``)."""

    kind = "linear"
    name = "linear"
    lanes = 1  # one game at a time (``drop7 train`` refuses --lanes > 1 for linear)

    def __init__(self, alpha: float = 0.001) -> None:
        self.alpha = kern.check_alpha(alpha)
        self.theta = np.zeros(N_TERMS)
        self.e_acc = np.zeros(N_TERMS)
        self.a_acc = np.zeros(N_TERMS)
        self.init: dict | None = None  # a warm start: {"path", "sha256"}

    def warm_start(self, path: str, sha256: str, load: bool = True) -> None:
        """Start from the pinned linear weights ``path`` (points per raw term; no intercept,
        which this learner does not fit), with fresh accumulators (the register's promotion
        rule).  ``load`` false sets only the config.  Another kind or hash, or an intercept,
        is a ``WeightsError``."""
        from engines.pinned_leaf import LINEAR_FILE, PinnedError, load_pinned
        from engines.weights_files import WeightsError

        try:
            _, weights, _, _ = load_pinned(path, sha256, True, LINEAR_FILE)
        except PinnedError as exc:
            raise WeightsError(str(exc)) from None
        if weights[N_TERMS] != 0.0:
            raise WeightsError(f"{path}: has an intercept ({weights[N_TERMS]:g}); the linear "
                               "learner fits the 18 weights only")
        if load:
            self.theta[:] = weights[:N_TERMS] * SCALES / _RISE
        self.e_acc[:] = 0.0
        self.a_acc[:] = 0.0
        self.init = {"path": str(path), "sha256": sha256}

    def config(self) -> dict:
        """What determines the weights besides the seeds (a warm start's hash, not its path)."""
        init = "zero" if self.init is None else {"sha256": self.init["sha256"],
                                                 "accumulators": "fresh"}
        return {"kind": self.kind, "layout": "linear", "features": int(N_TERMS),
                "scales": [float(s) for s in SCALES], "alpha": self.alpha, "init": init,
                "delta_clamp": kern.DELTA_CLAMP, "strata": kern.STRATA,
                "game_over_in_choice": float(TERMINAL_UTILITY)}

    def play(self, seeds, carry, state, cols, moves: int, fstats) -> int:
        """Train ``moves`` moves."""
        return int(linear_train_moves(self.theta, self.e_acc, self.a_acc, SCALES, self.alpha,
                                      np.uint64(seeds.start), seeds.count, carry, state, cols,
                                      moves, True, fstats))

    def weights(self) -> np.ndarray:
        """Weights in points per raw term (what ``linear-trained:PATH`` loads)."""
        return _RISE * self.theta / SCALES

    def export(self):
        """Shape, dtype and chunks of the saved weights."""
        w = np.ascontiguousarray(self.weights(), dtype=np.float64)
        return (N_TERMS,), np.dtype(np.float64), iter([memoryview(w).cast("B")])

    def resume_arrays(self) -> dict[str, np.ndarray]:
        """Arrays a resume state holds."""
        return {"theta": self.theta, "e": self.e_acc, "a": self.a_acc}
