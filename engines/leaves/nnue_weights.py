"""Network leaf weights on disk, checked: a weights directory (:mod:`engines.weights_files`)
whose manifest says ``"kind": "nnue"`` and whose array is the network's flat float32
parameters (docs/leaf.md, The network leaf ``nnue``, Weights files).

Loading refuses, in one line naming the directory, a manifest of another kind, layer sizes
outside the kernel's (:func:`engines.leaves.nnue_class.check_sizes`), a feature count other
than the class's, an array whose length is not the one its sizes need (a mismatched layer
size), a damaged or re-hashed array (:func:`engines.weights_files.open_array`), a NaN or an
infinity, and weights whose float32 sums could overflow (:func:`check_network_bound`).
:func:`random_network` is a seeded initialisation for tests and benchmarks.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.leaves.nnue_class import (
    ACTIVE,
    FEATURES,
    HIDDEN,
    MID,
    SUM_LIMIT,
    VALUE_SCALE,
    Sizes,
    check_sizes,
)
from engines.weights_files import (
    WeightsError,
    array_chunks,
    open_array,
    read_manifest,
    save_weights,
)

KIND = "nnue"
#: the register's layer sizes
CLASS_SIZES = Sizes(HIDDEN, MID)
#: the seed of the benches' network (``drop7 bench leaf --leaf nnue``, ``drop7 bench search
#: --leaf nnue``): its cost is that of any network of its sizes, whatever the weights
BENCH_SEED = 7


def network_bound(params: np.ndarray, sizes: Sizes) -> float:
    """The largest magnitude any float32 partial sum of the network can reach (float64):
    the accumulator (its bias and at most ``ACTIVE`` rows), each middle unit, the output."""
    p = np.abs(np.asarray(params, dtype=np.float64))
    h, m = sizes.hidden, sizes.mid
    with np.errstate(over="ignore", invalid="ignore"):
        acc = float(np.max(p[sizes.ft_bias:sizes.w1]) + ACTIVE * np.max(p[:sizes.ft_bias]))
        mids = p[sizes.b1:sizes.w2] + p[sizes.w1:sizes.b1].reshape(h, m).sum(axis=0) * acc
        mid = float(np.max(mids))
        return max(acc, mid, float(p[sizes.b2] + np.sum(p[sizes.w2:sizes.b2]) * mid))


def check_network_bound(params: np.ndarray, sizes: Sizes, where: str) -> None:
    """Refuse (``WeightsError`` naming ``where``) finite weights whose float32 sums could pass
    :data:`~engines.leaves.nnue_class.SUM_LIMIT` (and so overflow or lose the leaf)."""
    bound = network_bound(params, sizes)
    if not bound <= SUM_LIMIT:
        raise WeightsError(f"{where}: network weights whose float32 sums can reach "
                           f"{bound:.3g}, over {SUM_LIMIT:.0e} (docs/leaf.md, The network "
                           "leaf nnue)")


def manifest_sizes(manifest: dict, where: str) -> Sizes:
    """The layer sizes a network manifest declares, checked against its array's shape."""
    if manifest.get("kind") != KIND:
        raise WeightsError(f"{where}: holds {manifest.get('kind')!r} weights, not a network "
                           "(nnue)")
    try:
        sizes = check_sizes(manifest.get("hidden"), manifest.get("mid"))
    except ValueError as exc:
        raise WeightsError(f"{where}: key {exc}") from None
    if manifest.get("features") != FEATURES:
        raise WeightsError(f"{where}: key features: {manifest.get('features')!r}, the class "
                           f"has {FEATURES}")
    if manifest.get("dtype") != "float32" or manifest.get("shape") != [sizes.parameters]:
        raise WeightsError(f"{where}: key shape: hidden {sizes.hidden} and mid {sizes.mid} "
                           f"need float32[{sizes.parameters}], the manifest says "
                           f"{manifest.get('dtype')}{manifest.get('shape')}")
    return sizes


def load_nnue(directory: Path, verify: bool = True) -> tuple[np.ndarray, Sizes, dict]:
    """A network's ``(flat float32 parameters, read-only; sizes; manifest)``, checked."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    sizes = manifest_sizes(manifest, str(directory))
    params = open_array(directory, manifest, verify)
    if not np.isfinite(params).all():
        bad = int(np.flatnonzero(~np.isfinite(params))[0])
        raise WeightsError(f"{directory}: non-finite parameter {bad} ({params[bad]})")
    check_network_bound(params, sizes, str(directory))
    return params, sizes, manifest


def save_nnue(directory: Path, params: np.ndarray, sizes: Sizes, extra: dict | None = None,
              replace: bool = False) -> dict:
    """Write a network as a weights directory; returns its manifest (``sha256`` is its pin)."""
    flat = np.ascontiguousarray(params, dtype=np.float32)
    if flat.shape != (sizes.parameters,):
        raise ValueError(f"{directory}: hidden {sizes.hidden}, mid {sizes.mid} need "
                         f"{sizes.parameters} parameters, got {flat.shape}")
    manifest = {"kind": KIND, "layout": KIND, "hidden": sizes.hidden, "mid": sizes.mid,
                "features": FEATURES, "active": ACTIVE, "value_scale": VALUE_SCALE,
                "entries": sizes.parameters, **(extra or {})}
    return save_weights(Path(directory), flat.shape, np.dtype(np.float32), array_chunks(flat),
                        manifest, replace)


def random_network(seed: int, sizes: Sizes = CLASS_SIZES) -> np.ndarray:
    """Seeded Gaussian parameters (tests and benchmarks, never a claim's start): first-layer
    rows of sd 0.02 (135 of them sum to about unit scale), the middle layer sd
    ``sqrt(2 / hidden)``, the output sd 0.05, biases sd 0.01 (not 0: a misplaced bias shows)."""
    rng = np.random.default_rng(seed)
    p = np.empty(sizes.parameters, dtype=np.float32)
    p[:sizes.ft_bias] = rng.normal(0.0, 0.02, sizes.ft_bias)
    p[sizes.ft_bias:sizes.w1] = rng.normal(0.0, 0.01, sizes.hidden)
    p[sizes.w1:sizes.b1] = rng.normal(0.0, np.sqrt(2.0 / sizes.hidden), sizes.mid * sizes.hidden)
    p[sizes.b1:sizes.w2] = rng.normal(0.0, 0.01, sizes.mid)
    p[sizes.w2:sizes.b2] = rng.normal(0.0, 0.05, sizes.mid)
    p[sizes.b2] = rng.normal(0.0, 0.01)
    return p


def write_random_network(directory: Path, seed: int, sizes: Sizes = CLASS_SIZES,
                         replace: bool = False) -> dict:
    """:func:`random_network` written as a weights directory (its manifest records the seed)."""
    return save_nnue(directory, random_network(seed, sizes), sizes, {"init_seed": seed},
                     replace)
