"""The one-ply Q's weights on disk: a weights directory like every learner's, pinned by SHA-256.

A fitted Q (:mod:`engines.play.oneply_q_fit`) is written by
:func:`engines.weights_files.save_weights`, the array file and manifest every
learner's weights share: ``tables.npy.zst`` holds the
:data:`~engines.filters.oneply_q.N_FEATURES` float64 weights in
:data:`~engines.filters.oneply_q.FEATURE_NAMES` order (in the features' raw
units: ``Q = sum(w_i * feature_i)``), and ``manifest.json`` says
``"kind": "oneply-q"``, lists ``"features"`` (the names, so a file of another
feature order is refused) and records the fit (``"fit"``: reference, roots,
lambda, target, agreement).  Its pin is the manifest's ``sha256``, the hash of
the array's ``.npy`` stream (``python -m engines.weights_files
DIR/tables.npy.zst``), so a frozen Q is named and checked as any frozen
trained weights are.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from contracts.hashing import hash_mismatch
from engines.filters.oneply_q import FEATURE_NAMES, N_FEATURES
from engines.pinned_leaf import locate
from engines.weights_files import (
    WeightsError,
    array_chunks,
    open_array,
    read_manifest,
    save_weights,
)

#: the manifest's ``kind`` of a one-ply Q
KIND = "oneply-q"


def save_q(directory: str | Path, weights: np.ndarray, fit: dict, replace: bool = False
           ) -> dict:
    """Write ``weights`` (``N_FEATURES`` finite float64) as a weights directory with the fit's
    record; returns the manifest (its ``sha256`` is the pin)."""
    w = np.ascontiguousarray(weights, dtype=np.float64)
    if w.shape != (N_FEATURES,) or not np.all(np.isfinite(w)):
        raise WeightsError(f"{directory}: a one-ply Q is {N_FEATURES} finite weights")
    manifest = {"kind": KIND, "features": list(FEATURE_NAMES), "fit": fit}
    return save_weights(Path(directory), w.shape, w.dtype, array_chunks(w), manifest,
                        replace=replace)


def read_q(directory: str | Path, sha256: str | None, verify: bool = True) -> np.ndarray:
    """The weights of a one-ply Q directory, checked: its manifest's kind and feature names,
    the array's shape, dtype and finiteness, and (unless ``verify`` is false) the array's
    hash against the manifest and the manifest's against the pin ``sha256`` (None: no pin).
    A relative path missing from the working directory is read from the repository, as a
    pinned leaf's is (:func:`engines.pinned_leaf.locate`: a shipped claim's pinned Q).
    Raises :class:`~engines.weights_files.WeightsError` with one line naming the path."""
    directory = locate(directory)
    manifest = read_manifest(directory)
    if manifest.get("kind") != KIND:
        raise WeightsError(f"{directory}: a {manifest.get('kind')!r} weights directory, not "
                           f"a one-ply Q ({KIND!r})")
    if manifest.get("features") != list(FEATURE_NAMES):
        raise WeightsError(f"{directory}: its features are not the one-ply Q's "
                           f"{N_FEATURES} (engines/filters/oneply_q.py FEATURE_NAMES)")
    if verify and sha256 is not None and manifest.get("sha256") != sha256:
        raise WeightsError(f"{directory}: {hash_mismatch(str(manifest.get('sha256')), sha256)}")
    w = open_array(directory, manifest, verify)
    if w.shape != (N_FEATURES,) or w.dtype != np.float64 or not np.all(np.isfinite(w)):
        raise WeightsError(f"{directory}: not {N_FEATURES} finite float64 weights")
    return np.array(w, dtype=np.float64)
