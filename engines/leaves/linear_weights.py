"""Linear-trained weights on disk: a weights directory's ``N_TERMS`` float64 weights, checked.

The weights of a ``linear-trained:PATH`` leaf (the fair leaf's terms, in
points), written by the linear learner as any weights
(:mod:`engines.weights_files`); loading checks they are linear, of the fair
leaf's length and finite.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.leaves.kinds import N_TERMS
from engines.weights_files import WeightsError, open_array, read_manifest


def load_linear(directory: Path, verify: bool = True) -> tuple[np.ndarray, dict]:
    """Load ``linear-trained`` weights: ``(float64[N_TERMS] in points, manifest)``."""
    manifest = read_manifest(directory)
    if manifest.get("kind") != "linear" or manifest.get("layout") != "linear":
        raise WeightsError(f"{directory}: holds {manifest.get('kind')!r} weights, not linear")
    if manifest.get("shape") != [N_TERMS] or manifest.get("dtype") != "float64":
        raise WeightsError(f"{directory}: linear weights must be float64[{N_TERMS}]")
    weights = np.array(open_array(directory, manifest, verify), dtype=np.float64)
    if not np.all(np.isfinite(weights)):
        raise WeightsError(f"{directory}: non-finite weights")
    return weights, manifest
