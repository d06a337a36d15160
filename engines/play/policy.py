"""The player of a policy: one factory per arm kind (:data:`FACTORIES`), :func:`load_policy`.

A policy string is parsed by :mod:`engines.play.policy_grammar` into its typed spec
(:mod:`engines.play.arm_specs`); the players live in :mod:`engines.play.players` and
:mod:`engines.play.external_policy` (an external program).  A new arm kind registers
its grammar in the grammar module and its factory here (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable

from engines.filters.kf_weights import KfWeightsError
from engines.play.arm_specs import KfSpec, PolicyError, PolicySpec, QSpec, SearchSpec
from engines.play.external_policy import ExternalPolicy
from engines.play.players import BaselinePolicy, KfPolicy, Policy, SearchPolicy
from engines.play.policy_grammar import ARM_KINDS, parse_policy
from engines.play.q_policy import QPolicy
from engines.search.leaf import load_leaf
from engines.search.searcher import Searcher


def _search(spec: SearchSpec, verify: bool) -> Policy:
    try:
        leaf = load_leaf(spec.leaf, verify)
        searcher = Searcher(leaf, spec.depth, spec.strata, reveals=spec.reveals,
                            register_seed=spec.sampling, prune=spec.prune, verify=verify)
    except (OSError, ValueError) as exc:
        raise PolicyError(f"{spec.format()}: {str(exc).splitlines()[0]}") from None
    return SearchPolicy(spec, searcher)


def _q(spec: QSpec, verify: bool) -> Policy:
    try:
        return QPolicy(spec, verify)
    except (OSError, ValueError) as exc:
        raise PolicyError(f"{spec.format()}: {str(exc).splitlines()[0]}") from None


def _kf(spec: KfSpec, verify: bool) -> Policy:
    try:
        return KfPolicy(spec, verify)
    except KfWeightsError as exc:
        raise PolicyError(f"{spec.format()}: {exc}") from None


#: an arm kind (:data:`engines.play.policy_grammar.ARM_KINDS`) -> the function that builds its
#: player
#: from its spec (``verify``: check table files' SHA-256)
FACTORIES: dict[str, Callable[..., Policy]] = {
    "baseline": lambda spec, verify: BaselinePolicy(spec),
    "search": _search,
    "direct": _search,
    "external": lambda spec, verify: ExternalPolicy(spec),
    "kf": _kf,
    "q": _q,
}


def register_factory(kind: str, factory: Callable[..., Policy]) -> None:
    """Add the player factory of a registered arm kind (once)."""
    if kind not in ARM_KINDS:
        raise ValueError(f"arm kind {kind!r} is not registered (engines.play.policy_grammar)")
    if kind in FACTORIES:
        raise ValueError(f"arm kind {kind!r} has a factory already")
    FACTORIES[kind] = factory


def load_policy(policy: str | PolicySpec, verify: bool = True) -> Policy:
    """Build the player for a policy spec (or a string, parsed once here): loads leaf weights
    or tables, or starts an external program (one that cannot start is a
    :class:`~engines.play.arm_specs.PolicyError`).

    Table files are memory-mapped and checked against their manifest, with
    their SHA-256 unless ``verify`` is false.
    """
    spec = parse_policy(policy) if isinstance(policy, str) else policy
    return FACTORIES[spec.kind](spec, verify)
