"""What a weight search searches: a declared vector, its shipped start, its scale, its player.

Three targets (:data:`TARGETS`):

* ``leaf``: the fair leaf's 18 weights and an intercept (19 values, in
  points), played as a ``linear-file`` leaf inside a declared search;
* ``leaf-weights``: the 18 weights alone (the intercept stays 0), as the
  register's depth-native search tuned them;
* ``kf``: the six Klein-Friedmann weights (:mod:`engines.filters.kf`),
  played as the one-ply KF policy (``kf:w=SHA256:PATH``).

The optimizer works in scaled coordinates, ``x = w / scale``: each weight
over the magnitude of its shipped value (the intercept's scale is the mean
magnitude of the 18), so one step size moves every weight by the same
fraction of its own size, as the register's sign-normalised coordinates do.
A search starts from the shipped weights, from zeros (:data:`STARTS`), from
a pinned file, or from weights the same claim trained (``trained:DIR``, checked against
their record: :func:`read_trained_start`).  A candidate is written as a JSON list
(:func:`write_vector`), the format a pinned vector takes, and played by its SHA-256 like any
pinned file.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from contracts.hashing import file_sha256
from contracts.json_file import recorded_sha256, write_json
from contracts.weights_dir import MANIFEST
from engines.filters.kf_weights import KF_TRAINED_RECORD, KF_TRAINED_WEIGHTS, TRAINED


@dataclass(frozen=True)
class Target:
    """A searched vector: its name, length, shipped start, per-weight scale and the policy
    string that plays a vector file (``policy(path, sha256, depth, strata)``)."""

    name: str
    length: int
    shipped: Callable[[], np.ndarray]
    policy: Callable[[str, str, int, int], str]
    says: str

    def scale(self) -> np.ndarray:
        """The magnitude of each shipped weight (zeros: the mean of the others)."""
        mag = np.abs(self.shipped())
        return np.where(mag > 0, mag, mag[mag > 0].mean())


def _fair(intercept: bool) -> Callable[[], np.ndarray]:
    def shipped() -> np.ndarray:
        from engines.leaves.linear import FAIR_WEIGHTS

        return np.append(FAIR_WEIGHTS, 0.0) if intercept else np.array(FAIR_WEIGHTS)
    return shipped


def _leaf_policy(path: str, sha256: str, depth: int, strata: int) -> str:
    return f"search:leaf=linear-file:{sha256}:{path},d={depth},s={strata}"


def _kf_shipped() -> np.ndarray:
    from engines.filters.kf_weights import kf_weights

    return np.array(kf_weights("transplanted"))


def _kf_policy(path: str, sha256: str, depth: int, strata: int) -> str:
    return f"kf:w={sha256}:{path}"


#: every target by name
TARGETS: dict[str, Target] = {
    "leaf": Target("leaf", 19, _fair(True), _leaf_policy,
                   "the fair leaf's 18 weights and an intercept, as the leaf of the search"),
    "leaf-weights": Target("leaf-weights", 18, _fair(False), _leaf_policy,
                           "the fair leaf's 18 weights (no intercept), as the leaf of the "
                           "search"),
    "kf": Target("kf", 6, _kf_shipped, _kf_policy,
                 "the six Klein-Friedmann weights, as the one-ply KF policy"),
}


#: the named starts a search may begin from (else a pinned file): the target's shipped
#: weights, or the zero vector (the register's KF search drew its first generation around 0)
STARTS = ("shipped", "zero")


def start_word(begin: str | Mapping[str, str]) -> str:
    """``--start`` of a planned start: a named one, ``SHA256:PATH`` (a pinned file) or
    ``trained:DIR`` (weights this claim trains: the directory of their frozen record)."""
    if isinstance(begin, str):
        return begin
    if TRAINED in begin:
        return f"{TRAINED}:{begin[TRAINED]}"
    return f"{begin['sha256']}:{begin['path']}"


def named_start(target: Target, name: str) -> np.ndarray:
    """The start ``name`` (one of :data:`STARTS`) of ``target``."""
    if name == "zero":
        return np.zeros(target.length)
    if name == "shipped":
        return target.shipped()
    raise ValueError(f"start {name!r}: {', '.join(STARTS)} or a pinned file")


def read_start(target: Target, path: str, sha256: str) -> np.ndarray:
    """A start vector from a pinned file: a linear vector (``leaf``, ``leaf-weights``: 18
    weights, and an intercept for ``leaf``) or six KF weights (``kf``), its SHA-256 checked."""
    if target.name == "kf":
        from engines.filters.kf_weights import read_kf_file

        return np.array(read_kf_file(path, sha256))
    from engines.pinned_leaf import load_pinned

    _, weights, _, _ = load_pinned(path, sha256, True, "linear-file")
    assert weights is not None
    if target.name == "leaf-weights" and weights[18] != 0.0:
        raise ValueError(f"{path}: holds an intercept; the leaf-weights target searches the 18 "
                         "weights alone (use target leaf)")
    return np.array(weights[:target.length])


def read_trained_start(target: Target, directory: str) -> tuple[np.ndarray, str]:
    """The start vector a claim trained by one job (``trained:DIR``: the directory of its frozen
    record, a KF weights file's ``frozen.json`` for ``kf``, a linear weights directory's manifest
    otherwise), checked against the SHA-256 that record holds; and that SHA-256."""
    kf = target.name == "kf"
    sha = recorded_sha256(f"{directory}/{KF_TRAINED_RECORD if kf else MANIFEST}", "--start")
    return read_start(target, f"{directory}/{KF_TRAINED_WEIGHTS}" if kf else directory, sha), sha


def write_vector(vector: np.ndarray, path: Path) -> str:
    """Write ``vector`` as a JSON list of numbers (exact float64 round trip); its SHA-256."""
    write_json(path, [float(v) for v in vector], indent=None)
    return file_sha256(path)
