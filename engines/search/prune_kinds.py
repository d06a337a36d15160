"""Pruning priors of the search, by name, and the pruning an arm declares (no numba).

A search arm may declare ``prune``: at a decision node with at least ``from``
plies remaining (the root only when ``root`` says so) and more than ``k`` legal
columns, a *prior* ranks the legal columns and only its top ``k`` are searched
(docs/search.md, "Pruned search").  Each prior is one :class:`PriorKind` in
:data:`PRIOR_KINDS`: the integer code the kernel dispatches on
(:func:`engines.search.prune.feature_prior`), the weights it reads and
whether it is the search's own one-ply value (work of the engine and the
leaf).  The grammar (``prune=PRIOR,k=K[,from=P][,root=pruned]``,
:mod:`engines.play.policy_grammar`) and the declarations (``prune: {prior, k, from,
root, weights}``, :mod:`protocol.arms`) read this table, so a new prior is one
entry here, its weights' loader in :func:`engines.search.prune.prior_weights`
and its branch in :func:`engines.search.prune.feature_prior`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from contracts.hashing import sha256_problem
from engines.filters.kf_weights import TRAINED, kf_weights_problem

#: the priors' kernel codes (``-1`` in a searcher's pruning array: no pruning)
PRIOR_OFF, PRIOR_ONEPLY, PRIOR_KF, PRIOR_Q = -1, 0, 1, 2
#: widest ``k``: seven columns, so ``k = 7`` keeps every column (full width)
MAX_K = 7
DEFAULT_FROM = 2
ROOT_PRUNED = "pruned"
#: a policy string's pruning parameters, in their canonical order
PRUNE_KEYS = ("prune", "k", "from", "root")


@dataclass(frozen=True)
class PriorKind:
    """A pruning prior: its kernel ``code``, its ``name``; ``searched``: its value of a
    column is the search's own one-ply value (it plays moves and calls the leaf, so its work
    is counted as the search's is, and it prunes nothing at one ply: ``from`` >= 2);
    ``weights``: what it reads (``None``: nothing; ``"kf"``: six Klein-Friedmann weights,
    named or pinned, as ``play: kf`` takes them; ``"file"``: a pinned file)."""

    code: int
    name: str
    searched: bool = False
    weights: str | None = None
    what: str = ""


#: every pruning prior by name
PRIOR_KINDS: dict[str, PriorKind] = {
    "oneply": PriorKind(PRIOR_ONEPLY, "oneply", searched=True,
                        what="the search's own one-ply value of each column (its chance "
                             "samples at that node, its leaf): the register's exact D1"),
    "kf": PriorKind(PRIOR_KF, "kf", weights="kf",
                    what="the six Klein-Friedmann features' weighted sum (engines.filters.kf)"),
    "q": PriorKind(PRIOR_Q, "q", weights="file",
                   what="a linear Q over 32 one-ply features, a frozen weights directory "
                        "(engines.filters.oneply_q)"),
}
assert len({p.code for p in PRIOR_KINDS.values()}) == len(PRIOR_KINDS)


class PruneError(ValueError):
    """A pruning declaration or policy value that does not parse or does not fit its arm."""


@dataclass(frozen=True)
class PruneSpec:
    """The pruning of a search arm: ``prior`` (a :data:`PRIOR_KINDS` name) and its
    ``weights`` (a named vector, ``SHA256:PATH`` or ``trained:DIR``; None for a prior without
    weights), the
    width ``k``, the fewest plies remaining ``from_`` at which a node is pruned, and
    ``root``: the root is pruned too (the register's experiment keeps it full width)."""

    prior: str
    k: int
    from_: int = DEFAULT_FROM
    root: bool = False
    weights: str | None = None

    @property
    def kind(self) -> PriorKind:
        return PRIOR_KINDS[self.prior]

    def prior_text(self) -> str:
        """The ``prune=`` value: the prior, then ``:WEIGHTS`` when it has any."""
        return self.prior if self.weights is None else f"{self.prior}:{self.weights}"

    def format(self) -> str:
        """``prune=PRIOR,k=K`` then ``from=P`` (when not 2) and ``root=pruned`` (when so)."""
        text = f"prune={self.prior_text()},k={self.k}"
        if self.from_ != DEFAULT_FROM:
            text = f"{text},from={self.from_}"
        return f"{text},root={ROOT_PRUNED}" if self.root else text

    def check(self, depth: int) -> None:
        """Refuse, in one line, a pruning that does not fit a search of ``depth`` plies."""
        if not 1 <= self.k <= MAX_K:
            raise PruneError(f"prune: k must be 1..{MAX_K}, got {self.k}")
        low = 2 if self.kind.searched else 1
        if not low <= self.from_ <= depth:
            why = (" (the one-ply prior's top column is the one-ply node's own value: it "
                   "would prune nothing)" if self.kind.searched and self.from_ < 2 else "")
            raise PruneError(f"prune: from must be {low}..{depth} (the search's depth), got "
                             f"{self.from_}{why}")


def parse_prior(text: str) -> tuple[str, str | None]:
    """``(prior, weights)`` of a ``prune=`` value: ``PRIOR`` or ``PRIOR:WEIGHTS``."""
    name, colon, weights = text.partition(":")
    kind = PRIOR_KINDS.get(name)
    if kind is None:
        raise PruneError(f"prune: unknown prior {name!r} (expected "
                         f"{' or '.join(PRIOR_KINDS)})")
    if kind.weights is None and colon:
        raise PruneError(f"prune: prior {name!r} takes no weights, got {text!r}")
    if kind.weights is not None and not (colon and weights):
        raise PruneError(f"prune: prior {name!r} needs weights ({name}:WEIGHTS), got {text!r}")
    return name, (weights if colon else None)


def prune_spec(prior: str, k: int, from_: int | None, root: bool, depth: int,
               weights: str | None = None) -> PruneSpec:
    """A checked pruning of a search of ``depth`` plies: ``prior`` as ``prune=`` writes it
    (``PRIOR`` or ``PRIOR:WEIGHTS``), or with ``weights`` apart (a claim's ``weights:``);
    raises :class:`PruneError` in one line."""
    name, inline = parse_prior(prior if weights is None else f"{prior}:{weights}")
    sha, colon, path = (inline or "").partition(":")
    if sha == TRAINED:
        if not path:
            raise PruneError(f"prune: prior {name}: weights {TRAINED}:DIR need the "
                             f"directory of the weights the claim trains, got {inline!r}")
    elif PRIOR_KINDS[name].weights == "kf" and (problem := kf_weights_problem(inline or "")):
        raise PruneError(f"prune: prior {name}: weights {problem}")
    elif PRIOR_KINDS[name].weights == "file" and (not colon or not path
                                                   or sha256_problem(sha)):
        raise PruneError(f"prune: prior {name}: weights must be SHA256:DIR (a frozen "
                         f"weights directory and its manifest's SHA-256) or {TRAINED}:DIR "
                         f"(weights the claim trains), got {inline!r}")
    spec = PruneSpec(name, k, DEFAULT_FROM if from_ is None else from_, root, inline)
    spec.check(depth)
    return spec


def _whole(key: str, value: str) -> int:
    if not value.isascii() or not value.isdigit():
        raise PruneError(f"prune: {key} must be a whole number, got {value!r}")
    return int(value)


def parse_prune(params: Mapping[str, str], depth: int) -> PruneSpec | None:
    """The pruning of a policy string's ``prune=PRIOR,k=K[,from=P][,root=pruned]``
    parameters (None when none is given); raises :class:`PruneError` in one line."""
    given = [k for k in PRUNE_KEYS if k in params]
    if not given:
        return None
    if "prune" not in params or "k" not in params:
        raise PruneError(f"a pruned search needs prune=PRIOR and k=K (PRIOR: "
                         f"{' or '.join(PRIOR_KINDS)})")
    root = params.get("root")
    if root is not None and root != ROOT_PRUNED:
        raise PruneError(f"prune: root must be {ROOT_PRUNED} (absent: the root is searched "
                         f"full width), got {root!r}")
    return prune_spec(params["prune"], _whole("k", params["k"]),
                      _whole("from", params["from"]) if "from" in params else None,
                      root is not None, depth)


def parse_prune_text(text: str, depth: int) -> PruneSpec:
    """A pruning written as a policy string writes it (``prune=oneply,k=3``)."""
    params = dict(item.partition("=")[::2] for item in text.split(","))
    if set(params) - set(PRUNE_KEYS) or not params.get("prune"):
        raise PruneError(f"{text!r}: expected prune=PRIOR,k=K[,from=P][,root=pruned]")
    spec = parse_prune(params, depth)
    assert spec is not None
    return spec
