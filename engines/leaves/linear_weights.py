"""Linear leaf weights, checked: a weights directory's ``N_TERMS`` float64 weights, and the
bound that keeps every leaf value of a weight vector finite.

The weights of a ``linear-trained:PATH`` leaf (the fair leaf's terms, in
points), written by the linear learner as any weights
(:mod:`engines.weights_files`); loading checks they are linear, of the fair
leaf's length and finite, and that no board can give a leaf value past
:data:`LEAF_LIMIT` (:func:`check_leaf_bound`, which a pinned vector passes too).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from engines.leaves.kinds import N_TERMS
from engines.weights_files import WeightsError, open_array, read_manifest

#: the largest magnitude each term of the fair leaf takes on a 7 x 7 board (docs/leaf.md,
#: "Bounds"), in the feature table's order; every term is >= 0.  Counts are of at most 49
#: cells; a sum of ``add``, ``rel`` or a support (each in [0, 1]) is at most one a cell;
#: ``adjacent_ones`` counts 84 pairs; ``triple_twos`` is at most 25 on each of 14 lines;
#: ``height_load`` is 7 columns of sum(e^2, e = 1..7) = 140, ``covered_height_risk`` that
#: times 1.65, ``low_number_height_risk`` 7 columns of sum((e - 2)^2, e = 3..7) = 55,
#: ``rise_pressure`` 7 columns of 7^3 over at least one move remaining
TERM_BOUNDS = np.array([7, 980, 49, 49, 49, 49, 49, 49, 49, 49, 84, 350, 49, 1617, 385, 9,
                        2401, 7], dtype=np.float64)
TERM_BOUNDS.setflags(write=False)
#: the largest leaf value (points) a weight vector may reach: a chance node sums at most
#: ``MAX_STRATA * MAX_REVEALS`` (768, :mod:`engines.search.limits`) sample values, each a
#: leaf plus a move's points, before it divides, so leaves below 1e300 keep every sum of the
#: search under 1e303, far from float64's 1.8e308 (a test holds the limits to it)
LEAF_LIMIT = 1e300


def leaf_bound(weights: np.ndarray, extra_bounds: Sequence[float] = ()) -> float:
    """The largest magnitude a leaf value of ``weights`` (``N_TERMS`` weights, then an
    optional intercept, then one weight per extra term, whose bounds are ``extra_bounds``)
    can take: ``sum(|w_i| bound_i) + |intercept|`` (every term is non-negative), in float64
    (inf when it is past float64's range)."""
    w = np.abs(np.asarray(weights, dtype=np.float64))
    with np.errstate(over="ignore"):
        total = float(np.sum(w[:N_TERMS] * TERM_BOUNDS))
        total += float(w[N_TERMS]) if w.shape[0] > N_TERMS else 0.0
        extra = w[N_TERMS + 1:N_TERMS + 1 + len(extra_bounds)]
        return total + float(np.sum(extra * np.asarray(extra_bounds, dtype=np.float64)))


def check_leaf_bound(weights: np.ndarray, where: str, extra_bounds: Sequence[float] = ()
                     ) -> None:
    """Refuse (``WeightsError`` naming ``where``) finite weights whose leaf values could pass
    :data:`LEAF_LIMIT`: 1e308 is a finite weight, and its leaf is not."""
    bound = leaf_bound(weights, extra_bounds)
    if not bound <= LEAF_LIMIT:
        reach = f"{bound:.3g} points" if math.isfinite(bound) else "past float64's range"
        raise WeightsError(f"{where}: weights whose leaf values can reach {reach}, over the "
                           f"bound {LEAF_LIMIT:.0e} that keeps the search finite (docs/leaf.md, "
                           "Bounds)")


def load_linear(directory: Path, verify: bool = True) -> tuple[np.ndarray, dict]:
    """Load ``linear-trained`` weights: ``(float64[N_TERMS] in points, then an optional
    intercept (a weight search's leaf target), manifest)``."""
    manifest = read_manifest(directory)
    if manifest.get("kind") != "linear" or manifest.get("layout") != "linear":
        raise WeightsError(f"{directory}: holds {manifest.get('kind')!r} weights, not linear")
    if manifest.get("shape") not in ([N_TERMS], [N_TERMS + 1]) or manifest.get(
            "dtype") != "float64":
        raise WeightsError(f"{directory}: linear weights must be float64[{N_TERMS}] (or "
                           f"[{N_TERMS + 1}] with an intercept)")
    weights = np.array(open_array(directory, manifest, verify), dtype=np.float64)
    if not np.all(np.isfinite(weights)):
        raise WeightsError(f"{directory}: non-finite weights")
    check_leaf_bound(weights, str(directory))
    return weights, manifest
