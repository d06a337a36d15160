"""The Armitage-McPherson-Rowe recursion for sequential z statistics, on a Simpson grid.

With ``theta`` the mean delta in per-game sd units, the z statistic after
``n`` games is ``Z ~ N(theta sqrt(n), 1)`` and increments between looks are
independent (``corr(Z_i, Z_j) = sqrt(n_i / n_j)``).  :class:`Walk` carries the
sub-density of ``Z`` on the continuation region from look to look (a normal
convolution integrated with Simpson's rule, step :data:`GRID_STEP`, cut to
``theta sqrt(n) +- GRID_HALF_WIDTH``); a crossing probability is the grid sum
of the next increment's normal tail.  docs/statistics.md gives the accuracy.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import special

#: Simpson grid step (z units) and half-width (sd of Z_k) of the recursion
GRID_STEP = 0.05
GRID_HALF_WIDTH = 8.0


def _simpson(lo: float, hi: float) -> tuple[np.ndarray, np.ndarray]:
    m = max(3, 2 * math.ceil((hi - lo) / (2 * GRID_STEP)) + 1)
    z = np.linspace(lo, hi, m)
    w = np.ones(m)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return z, w * (hi - lo) / (m - 1) / 3.0


class Walk:
    """The sub-density of the z statistic on the continuation region, look by look.

    ``z``/``mass``: grid nodes at the current look and density times Simpson
    weight (the probability of having continued so far, spread on the nodes).
    Before look 1 it is a point mass at 0 with ``n = 0``.
    """

    def __init__(self, theta: float) -> None:
        self.theta, self.n = theta, 0
        self.z, self.mass = np.zeros(1), np.ones(1)

    def _arg(self, n: int, z: np.ndarray | float) -> np.ndarray:
        dn = n - self.n
        zz = np.asarray(z, dtype=np.float64)
        return ((zz[..., None] * math.sqrt(n) - self.z * math.sqrt(self.n) - self.theta * dn)
                / math.sqrt(dn))

    def above(self, n: int, c: float) -> float:
        """P(continued so far and Z at ``n`` games >= c)."""
        if not np.isfinite(c):
            return float(self.mass.sum()) if c < 0 else 0.0
        return float(special.ndtr(-self._arg(n, c)) @ self.mass)

    def below(self, n: int, a: float) -> float:
        """P(continued so far and Z at ``n`` games <= a)."""
        if not np.isfinite(a):
            return float(self.mass.sum()) if a > 0 else 0.0
        return float(special.ndtr(self._arg(n, a)) @ self.mass)

    def advance(self, n: int, lower: float, upper: float) -> None:
        """Move to the look at ``n`` games, keeping paths with ``lower < Z < upper``."""
        centre = self.theta * math.sqrt(n)
        lo, hi = max(lower, centre - GRID_HALF_WIDTH), min(upper, centre + GRID_HALF_WIDTH)
        if not lo < hi or self.mass.sum() == 0.0:
            self.z, self.mass, self.n = np.zeros(1), np.zeros(1), n
            return
        z, w = _simpson(lo, hi)
        x = self._arg(n, z)
        dens = np.exp(-0.5 * x * x) @ self.mass * math.sqrt(n / (n - self.n) / (2 * math.pi))
        self.z, self.mass, self.n = z, dens * w, n


def stage_probabilities(looks: Sequence[int], upper: Sequence[float], lower: Sequence[float],
                        theta: float) -> tuple[np.ndarray, np.ndarray]:
    """P(first stop at look k above ``upper[k]``), P(... below ``lower[k]``), per look.

    ``theta``: the mean delta in per-game sd units (Z_k ~ N(theta sqrt(n_k), 1)).
    Bounds may be +-inf.  Paths continue while ``lower[k] < Z_k < upper[k]``.
    """
    walk = Walk(theta)
    up, down = np.zeros(len(looks)), np.zeros(len(looks))
    for k, n in enumerate(looks):
        up[k], down[k] = walk.above(n, upper[k]), walk.below(n, lower[k])
        if k + 1 < len(looks):
            walk.advance(n, lower[k], upper[k])
    return up, down
