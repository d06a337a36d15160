"""The six-feature Klein-Friedmann policy's named weight vectors, with their source (no numba).

Each vector weighs the six features in the order of :data:`FEATURES`
(:mod:`engines.filters.kf`); the policy ranks columns by the weighted sum, so
only a vector's direction matters.  Both come from the research register
(repository keshavsaharia/drop7-bench), figures copied exactly:

* ``transplanted``: the authors' own Python-learned weights (their reproduction
  seed 10), played unchanged in the register's engine: result
  ``RS-20260902T084356Z-2488ecc7``, ``metrics.weights.transplant-py-seed10``.
* ``cem``: the register's cross-entropy optimum, frozen as a unit vector:
  result ``RS-20260902T084356Z-784ebf14``,
  ``metrics.search.chosen.frozenUnitWeights``.

The grammar (``kf:w=NAME``, :mod:`engines.play.policy_grammar`) and the declarations
(``weights: NAME``, :mod:`protocol.arms`) read this table: a new vector is one
entry here.  A vector of one's own is a file pinned by its SHA-256
(``kf:w=SHA256:PATH``): a JSON list of six finite numbers, in feature order
(:func:`read_kf_file`); weights a claim trains with the Q-learner are read from their
training directory (``kf:w=trained:DIR``, :func:`read_kf_trained`).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from contracts.hashing import file_sha256, hash_mismatch, sha256_problem

#: the six features, in the order every weight vector lists them
FEATURES = ("lowest-column", "row-detonations", "column-detonations", "tallest-column",
            "a-one-clears", "the-disc-clears")

#: every named weight vector: (its six weights, where the register records them)
KF_WEIGHTS: dict[str, tuple[tuple[float, ...], str]] = {
    "transplanted": (
        (175.67544967426653, 33.08923614095049, 123.97361476703807, 15.424699884446161,
         49.143686787500314, 138.66790457434547),
        "RS-20260902T084356Z-2488ecc7 metrics.weights.transplant-py-seed10"),
    "cem": (
        (0.42875630348507293, 0.2765872952340636, 0.14505719805708117, 0.0330060388696436,
         0.7363281566255506, 0.4187569184948516),
        "RS-20260902T084356Z-784ebf14 metrics.search.chosen.frozenUnitWeights"),
}


def kf_weights_problem(w: str) -> str | None:
    """What keeps ``w`` from naming KF weights, in words (None: a named vector of
    :data:`KF_WEIGHTS` or ``SHA256:PATH``, a pinned file)."""
    sha, colon, path = w.partition(":")
    if colon:
        problem = sha256_problem(sha)
        if problem or not path:
            return (f"SHA256:PATH needs a SHA-256 and a path, got {w!r}"
                    f"{f' ({problem})' if problem else ''}")
        return None
    if w not in KF_WEIGHTS:
        return (f"must name weights ({' or '.join(KF_WEIGHTS)}) or a pinned file "
                f"(SHA256:PATH), got {w!r}")
    return None


def kf_weights(name: str) -> tuple[float, ...]:
    """The six weights of a named vector (KeyError for an unknown name)."""
    return KF_WEIGHTS[name][0]


#: a pinned KF weights file's kind, as the declarations' plans and records name it
KF_FILE = "kf-file"
#: a trained directory's frozen weights (a KF weights file) and their record (``{"sha256"}``
#: and the run's facts), as ``drop7 kf-train`` writes them (:mod:`engines.learners.kf_q_train`)
KF_TRAINED_WEIGHTS = "weights.json"
KF_TRAINED_RECORD = "frozen.json"
#: weights a claim trains, named in a policy string by their directory (``trained:DIR``: a kf
#: arm's or prior's training directory, a q arm's or prior's frozen weights directory) or in a
#: learner's ``--start`` (nnue-evolve's network, a weight search's vector), each checked against
#: the SHA-256 its own record holds
TRAINED = "trained"


class KfWeightsError(ValueError):
    """A weights file that is missing, not six finite numbers, or not its pinned SHA-256."""


class KfHashError(KfWeightsError):
    """A weights file whose SHA-256 is not its pin."""


def read_kf_file(path: str | Path, sha256: str, verify: bool = True) -> tuple[float, ...]:
    """The six weights of a pinned file (a JSON list of six finite numbers, in the order of
    :data:`FEATURES`), its SHA-256 checked first unless ``verify`` is false; raises
    :class:`KfWeightsError` with one line naming the file."""
    try:
        if verify and (have := file_sha256(path)) != sha256:
            raise KfHashError(f"{path}: {hash_mismatch(have, sha256)}")
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise KfWeightsError(f"{path}: cannot read six KF weights ({exc})") from None
    if (not isinstance(data, list) or len(data) != len(FEATURES)
            or not all(isinstance(w, (int, float)) and not isinstance(w, bool)
                       and math.isfinite(w) for w in data)):
        raise KfWeightsError(f"{path}: KF weights must be a JSON list of {len(FEATURES)} "
                             f"finite numbers ({', '.join(FEATURES)})")
    return tuple(float(w) for w in data)


def read_kf_trained(directory: str | Path, verify: bool = True) -> tuple[float, ...]:
    """The frozen weights of a ``drop7 kf-train`` directory, checked against the SHA-256 its
    record holds (a claim's kf-q weights: ``kf:w=trained:DIR``); one line naming the file."""
    record = Path(directory) / KF_TRAINED_RECORD
    try:
        sha256 = json.loads(record.read_text(encoding="utf-8"))["sha256"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KfWeightsError(f"{record}: not a frozen KF weights record ({exc})") from None
    return read_kf_file(Path(directory) / KF_TRAINED_WEIGHTS, sha256, verify)
