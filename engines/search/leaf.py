"""Leaf dispatch for the search: one compiled kernel serves every leaf.

A leaf is a function of the public state at a search frontier: the board
(the search hands the linear leaf the mirror-canonical board; the n-tuple
leaf canonicalises itself), the moves remaining and the next disc.  It is
split in two so a chance node with no reveals can share work across its
samples:

* :func:`leaf_base` - the part that does not depend on the next disc;
* :func:`leaf_disc` - the next-disc part (0 for leaves without one).

The value is ``leaf_base + leaf_disc`` (points).  Kernel kinds:

* ``LEAF_ZERO``: 0 everywhere (search by points alone);
* ``LEAF_LINEAR``: the ``N_TERMS``-feature linear leaf with a weight vector
  (frozen ``FAIR_WEIGHTS`` for ``linear``, fitted ones for ``linear-trained``,
  a pinned file's for ``linear-file``) and an intercept (0 but for a pinned
  vector that has one), held after the weights as ``weights[N_TERMS]``;
* ``LEAF_NTUPLE``: an n-tuple value function (units of one rise) times
  17,000; it ignores the next disc (a chance-state value);
* ``LEAF_LINEAR_TERMS``: the linear leaf with extra terms (a pinned
  ``linear-file[TERM]``, :mod:`engines.leaves.linear_extra`): its weights
  hold the 18, the intercept and one slot per registered term; the plain
  linear kind never computes an extra term, so its arithmetic is unchanged;
* ``LEAF_NNUE``: the sparse network (:mod:`engines.leaves.nnue`; ``tables`` its flat
  float32 parameters, ``spec`` its ``[hidden, mid]``): its next disc is an input of the
  first layer, not a term added after, so its value is one ``joint`` function of board,
  moves remaining and disc (:func:`leaf_joint`), neither part alone.

Each kernel kind is one :class:`KernelKind` in :data:`KERNEL_KINDS`, with
the facts the search reads of it (:func:`has_fact` of :data:`BASE_PART`,
:data:`DISC_PART`, :data:`CANONICAL`, :data:`CACHED`, :data:`BY_DIFFERENCE`, :data:`JOINT`;
docs/search.md, "Leaf kernel kinds"):
the search branches on facts, never on a kind, so a leaf of new arithmetic is
its module, its :class:`KernelKind` and its branch in :func:`leaf_base`
(and :func:`leaf_disc` when it has a next-disc part; or in :func:`leaf_joint`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from engines.drop7.board import LEVEL_BONUS
from engines.leaves.extra_terms import EXTRA_TERMS, N_EXTRA
from engines.leaves.kinds import LEAF_KINDS, N_TERMS, NEXT_DISC_TERM, LeafSpec, parse_leaf
from engines.leaves.linear import linear_value_no_disc, next_disc_term
from engines.leaves.linear_extra import EXTRA_SLOT, linear_extra_value_no_disc
from engines.leaves.nnue import nnue_samples
from engines.ntuple.value import ntuple_value
from engines.search.ntuple_delta import child_value

LEAF_ZERO, LEAF_LINEAR, LEAF_NTUPLE, LEAF_LINEAR_TERMS, LEAF_NNUE = 0, 1, 2, 3, 4

#: n-tuple values are in units of one rise; the search works in points.
NTUPLE_SCALE = np.float64(LEVEL_BONUS)


@dataclass(frozen=True)
class KernelKind:
    """A leaf kernel kind (the ``kind`` a :class:`Leaf` hands the search) and the facts the
    search may rely on:

    * ``base_part``: its value has a disc-free part (:func:`leaf_base` is not 0; without
      either part the leaf is 0 and costs nothing);
    * ``disc_part``: its value has a next-disc part (:func:`leaf_disc` is not 0), so a chance
      node draws each sample's next disc even at the frontier;
    * ``canonical``: it reads the mirror-canonical board, which the search makes for it
      (false: a constant leaf, or one that canonicalises itself);
    * ``cached``: its disc-free part is a function of the canonical board and the moves
      remaining alone, and dear enough to keep in the search's leaf cache (exact reuse);
    * ``by_difference``: at the frontier it is evaluated by difference from the node's frame
      (:func:`leaf_by_difference`), not by :func:`leaf_base`;
    * ``joint``: its value is not a disc-free part plus a disc part but one function of the
      board, the moves remaining and the next disc, evaluated by :func:`leaf_joint` for a
      chance node's samples at once (a leaf with ``joint`` has ``disc_part`` and neither
      part function).
    """

    code: int
    name: str
    base_part: bool = False
    disc_part: bool = False
    canonical: bool = False
    cached: bool = False
    by_difference: bool = False
    joint: bool = False

    def __post_init__(self) -> None:
        if self.joint and (not self.disc_part or self.base_part or self.cached
                           or self.by_difference):
            raise ValueError(f"kernel kind {self.name}: a joint leaf has a next disc and no "
                             "separate disc-free part (so no cache, no difference)")
        if self.by_difference and (self.disc_part or self.cached):
            raise ValueError(f"kernel kind {self.name}: a leaf evaluated by difference has no "
                             "next-disc part and no cache")
        if self.cached and not self.canonical:
            raise ValueError(f"kernel kind {self.name}: the leaf cache keys canonical boards")
        if (self.cached or self.by_difference) and not self.base_part:
            raise ValueError(f"kernel kind {self.name}: only a disc-free part is cached or "
                             "evaluated by difference")


#: every kernel kind, indexed by its code
KERNEL_KINDS: tuple[KernelKind, ...] = (
    KernelKind(LEAF_ZERO, "zero"),
    KernelKind(LEAF_LINEAR, "linear", base_part=True, disc_part=True, canonical=True,
               cached=True),
    KernelKind(LEAF_NTUPLE, "ntuple", base_part=True, by_difference=True),
    KernelKind(LEAF_LINEAR_TERMS, "linear-terms", base_part=True, disc_part=True,
               canonical=True, cached=True),
    KernelKind(LEAF_NNUE, "nnue", disc_part=True, canonical=True, joint=True),
)
assert all(k.code == i for i, k in enumerate(KERNEL_KINDS))


def _mask(fact: str) -> int:
    """The kernel kinds that have ``fact``, one bit each (bit ``code``)."""
    return sum(1 << k.code for k in KERNEL_KINDS if getattr(k, fact))


#: each fact as a bit mask over the kernel kinds: compiled kernels read these as constants
#: (a global integer is frozen into the compiled code, so a test of a fact is arithmetic on
#: the kind, which the compiler hoists out of the search's loops as it did a test of a kind)
BASE_PART, DISC_PART, CANONICAL, CACHED, BY_DIFFERENCE, JOINT = (
    _mask(fact) for fact in ("base_part", "disc_part", "canonical", "cached", "by_difference",
                             "joint"))


@njit(cache=True, inline="always")
def has_fact(mask: int, kind: np.int64) -> bool:
    """Whether kernel kind ``kind`` has the fact of ``mask`` (:data:`DISC_PART`, ...)."""
    return (mask >> kind) & 1 != 0


@njit(cache=True, inline="always")
def has_disc_part(kind: np.int64) -> bool:
    """True when the leaf depends on the next disc."""
    return has_fact(DISC_PART, kind)


@njit(cache=True)
def leaf_base(kind, cols, moves_remaining, weights, tables, spec) -> np.float64:
    """The disc-free part of the leaf value (points)."""
    if kind == LEAF_LINEAR:
        return linear_value_no_disc(cols, moves_remaining, weights) + weights[N_TERMS]
    if kind == LEAF_NTUPLE:
        return NTUPLE_SCALE * ntuple_value(cols, moves_remaining, tables, spec)
    if kind == LEAF_LINEAR_TERMS:
        return linear_extra_value_no_disc(cols, moves_remaining, weights) + weights[N_TERMS]
    return 0.0


@njit(cache=True)
def leaf_disc(kind, cols, disc, weights) -> np.float64:
    """The next-disc part of the leaf value (points)."""
    if kind in (LEAF_LINEAR, LEAF_LINEAR_TERMS):
        return weights[NEXT_DISC_TERM] * next_disc_term(cols, disc)
    return 0.0


@njit(cache=True)
def leaf_joint(kind, board, mr, src, key, strata, one_sample, s, tables, spec) -> np.float64:
    """The value (points) of a ``joint`` leaf at a chance sample's board: for sample ``s``'s
    next disc with ``one_sample``, else the mean over the ``strata`` samples' discs (drawn
    from ``src`` and ``key`` as the search draws them)."""
    if kind == LEAF_NNUE:
        return nnue_samples(board, mr, src, key, strata, one_sample, s, tables, spec)
    return 0.0


@njit(cache=True, inline="always")
def leaf_by_difference(kind, child, mr2, frame, tables, spec, slot_j, nt_i, nt_f) -> np.float64:
    """The value (points) of a ``by_difference`` leaf at a resolved child of a frontier node,
    from the node's ``frame`` (:mod:`engines.search.ntuple_delta`)."""
    if kind == LEAF_NTUPLE:
        return NTUPLE_SCALE * child_value(child, mr2, frame, tables, spec, slot_j, nt_i, nt_f)
    return 0.0


def _readonly(arr: np.ndarray, dtype: type) -> np.ndarray:
    """A C-contiguous read-only view (every leaf passes the same array types)."""
    out = np.ascontiguousarray(arr, dtype=dtype)
    out = out.view()
    out.setflags(write=False)
    return out


class Leaf:
    """A loaded leaf: its kind and the arrays the kernel needs.

    ``weights`` is float64[N_TERMS + 1], the weights and the intercept (unused by
    non-linear kinds; given N_TERMS values, the intercept is 0), or for
    ``LEAF_LINEAR_TERMS`` float64[N_TERMS + 1 + N_EXTRA] (:func:`terms_weights`), ``tables`` the
    float32 n-tuple values (possibly memory-mapped) and ``spec`` the int64
    layout descriptor; unused arrays are length-1 placeholders, and all three
    are read-only, so every leaf shares one compiled kernel.
    """

    def __init__(self, kind: int, name: str, weights: np.ndarray | None = None,
                 tables: np.ndarray | None = None, spec: np.ndarray | None = None) -> None:
        if not 0 <= int(kind) < len(KERNEL_KINDS):
            raise ValueError(f"leaf {name}: kernel kind {kind} is not one of KERNEL_KINDS "
                             "(engines.search.leaf)")
        self.kind = int(kind)
        self.name = name
        w = np.zeros(N_TERMS + 1)
        if weights is not None and kind == LEAF_LINEAR_TERMS:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != (EXTRA_SLOT + N_EXTRA,):
                raise ValueError(f"leaf {name}: expected {EXTRA_SLOT + N_EXTRA} weights (the "
                                 f"18, the intercept, one per extra term), got {w.shape}")
        elif weights is not None:
            given = np.asarray(weights, dtype=np.float64)
            if given.shape not in ((N_TERMS,), (N_TERMS + 1,)):
                raise ValueError(f"leaf {name}: expected {N_TERMS} weights (and an optional "
                                 f"intercept), got {given.shape}")
            w[:given.shape[0]] = given
        self.weights = _readonly(w, np.float64)
        self.tables = _readonly(np.zeros(1) if tables is None else tables, np.float32)
        self.spec = _readonly(np.zeros(1) if spec is None else spec, np.int64)
        if self.tables.ndim != 1:
            raise ValueError(f"leaf {name}: tables must be one flat float32 array")

    def __repr__(self) -> str:
        return f"Leaf({self.name})"


def _zero(spec: LeafSpec, verify: bool) -> Leaf:
    return Leaf(LEAF_ZERO, spec.format())


def _linear(spec: LeafSpec, verify: bool) -> Leaf:
    from engines.leaves.linear import FAIR_WEIGHTS

    return Leaf(LEAF_LINEAR, spec.format(), FAIR_WEIGHTS)


def _linear_trained(spec: LeafSpec, verify: bool) -> Leaf:
    from engines.leaves.linear_weights import load_linear

    weights, _ = load_linear(Path(str(spec.path)), verify)
    return Leaf(LEAF_LINEAR, spec.format(), weights)


def _ntuple(spec: LeafSpec, verify: bool) -> Leaf:
    from engines.ntuple.storage import load_ntuple

    tables, layout, _ = load_ntuple(Path(str(spec.path)), verify)
    return Leaf(LEAF_NTUPLE, spec.format(), tables=tables, spec=layout.spec)


def terms_weights(weights: np.ndarray, terms: tuple[str, ...]) -> np.ndarray:
    """A ``LEAF_LINEAR_TERMS`` vector from the 18 weights and intercept and the named terms'
    weights (in ``terms``' order): each in its term's slot, 0 in the others'."""
    out = np.zeros(EXTRA_SLOT + N_EXTRA)
    out[:EXTRA_SLOT] = weights[:EXTRA_SLOT]
    for name, w in zip(terms, weights[EXTRA_SLOT:], strict=True):
        out[EXTRA_SLOT + EXTRA_TERMS[name].code] = w
    return out


def nnue_leaf(name: str, params: np.ndarray, hidden: int, mid: int) -> Leaf:
    """A network leaf of flat float32 ``params`` and its layer sizes (ValueError when the
    array is not the length the sizes need: the kernel reads it unchecked)."""
    from engines.leaves.nnue_class import check_sizes

    need = check_sizes(hidden, mid).parameters
    if np.shape(params) != (need,):
        raise ValueError(f"leaf {name}: hidden {hidden} and mid {mid} need {need} parameters, "
                         f"got {np.shape(params)}")
    return Leaf(LEAF_NNUE, name, tables=params, spec=np.array([hidden, mid], dtype=np.int64))


def _nnue(spec: LeafSpec, verify: bool) -> Leaf:
    from engines.leaves.nnue_weights import load_nnue

    params, sizes, _ = load_nnue(Path(str(spec.path)), verify)
    return nnue_leaf(spec.format(), params, sizes.hidden, sizes.mid)


def _pinned(spec: LeafSpec, verify: bool) -> Leaf:
    """A pinned file's leaf (``linear-file``, ``ntuple-file`` or ``nnue-file``,
    :mod:`engines.pinned_leaf`)."""
    from engines.pinned_leaf import NNUE_FILE, load_pinned

    assert spec.sha256 is not None
    kind, weights, tables, layout = load_pinned(str(spec.path), spec.sha256, verify, spec.kind,
                                                spec.terms)
    if kind == NNUE_FILE:
        return nnue_leaf(spec.format(), tables, layout.hidden, layout.mid)
    if weights is not None and spec.terms:
        return Leaf(LEAF_LINEAR_TERMS, spec.format(), terms_weights(weights, spec.terms))
    if weights is not None:
        return Leaf(LEAF_LINEAR, spec.format(), weights)
    return Leaf(LEAF_NTUPLE, spec.format(), tables=tables, spec=layout.spec)


#: a leaf kind (:data:`engines.leaves.kinds.LEAF_KINDS`) -> the function that loads it: its
#: kernel kind and arrays; a new kind that the kernels already evaluate (a linear leaf with
#: other weights, say) adds its loader here and nothing to the kernels
LOADERS: dict[str, Callable[[LeafSpec, bool], Leaf]] = {
    "zero": _zero, "linear": _linear, "linear-trained": _linear_trained, "ntuple": _ntuple,
    "linear-file": _pinned, "ntuple-file": _pinned, "nnue": _nnue, "nnue-file": _pinned}


def register_loader(kind: str, loader: Callable[[LeafSpec, bool], Leaf]) -> None:
    """Add the loader of a registered leaf kind (once)."""
    if kind not in LEAF_KINDS:
        raise ValueError(f"leaf kind {kind!r} is not registered (engines.leaves.kinds)")
    if kind in LOADERS:
        raise ValueError(f"leaf kind {kind!r} has a loader already")
    LOADERS[kind] = loader


def load_leaf(leaf: LeafSpec | str, verify: bool = True) -> Leaf:
    """Load a leaf named as in a policy string (:mod:`engines.leaves.kinds`).

    Table files are memory-mapped and checked against their manifest (the
    SHA-256 too unless ``verify`` is false); errors are ``ValueError``s.
    """
    spec = parse_leaf(leaf) if isinstance(leaf, str) else leaf
    loader = LOADERS.get(spec.kind)
    if loader is None:
        raise ValueError(f"leaf kind {spec.kind!r} has no loader (engines.search.leaf.LOADERS)")
    return loader(spec, verify)
