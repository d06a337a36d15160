"""Named, parameterised policies: one string per player, everywhere.

Grammar (the same in ``drop7 play --policy``, config files, arm names in
reports and Python)::

    random | centre-first | lowest-column
    search:leaf=LEAF[,d=D][,s=S]      (defaults d=3, s=7)
    direct:leaf=LEAF[,s=S]            (default s=7; one ply)
    LEAF = linear | zero | linear-trained:PATH | ntuple:PATH   (engines.leaves.kinds)

Parameters may come in any order; :func:`format_policy` writes the canonical
form (``leaf`` first; ``search`` always shows ``d`` and ``s``; ``direct``
shows ``s`` only when it is not 7), and ``parse -> format`` round-trips.
PATH is kept as written (no resolution), so an arm's name does not depend on
the working directory; it may not contain ``,`` or ``=``.

:func:`parse_policy` checks the syntax only; :func:`load_policy` builds the
player, loading weights or tables (errors for a missing or bad PATH).  A
policy sees the public state only: its ``choose(state, cols)`` reads the
board, next disc and moves remaining; the game seed is never passed to it
(the ``random`` baseline gets its own coin, a separate seeded stream, through
``new_game``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.drop7 import core
from engines.drop7.board import opening_cols
from engines.leaves.kinds import LEAF_GRAMMAR, LeafError, LeafSpec, parse_leaf
from engines.search.expectimax import MAX_DEPTH, MAX_STRATA, Searcher

BASELINES = {
    "random": core.POLICY_RANDOM,
    "centre-first": core.POLICY_CENTRE_FIRST,
    "lowest-column": core.POLICY_LOWEST_COLUMN,
}
DEFAULT_DEPTH = 3
DEFAULT_STRATA = 7
_PARAMS = {"search": ("leaf", "d", "s"), "direct": ("leaf", "s")}
_GRAMMAR = ("random, centre-first, lowest-column, search:leaf=LEAF,d=D,s=S or "
            "direct:leaf=LEAF[,s=S]")


class PolicyError(ValueError):
    """A policy string that does not parse, or a policy that cannot load."""


@dataclass(frozen=True)
class PolicySpec:
    """A parsed policy: ``name`` plus, for search players, leaf, depth and strata."""

    name: str
    leaf: LeafSpec | None = None
    depth: int | None = None
    strata: int | None = None

    def format(self) -> str:
        """The canonical policy string."""
        return format_policy(self)

    def __str__(self) -> str:
        return format_policy(self)


def _int_param(policy: str, key: str, value: str, lo: int, hi: int) -> int:
    if not value.isascii() or not value.isdigit() or not lo <= int(value) <= hi:
        raise PolicyError(f"{policy}: {key} must be an integer {lo}..{hi}, got {value!r}")
    return int(value)


def parse_policy(text: str) -> PolicySpec:
    """Parse a policy string; raises :class:`PolicyError` with one clear line."""
    if not isinstance(text, str) or not text:
        raise PolicyError(f"empty policy (expected {_GRAMMAR})")
    if text in BASELINES:
        return PolicySpec(text)
    name, sep, rest = text.partition(":")
    if name in BASELINES:
        raise PolicyError(f"policy {name!r} takes no parameters (got {text!r})")
    if name not in _PARAMS:
        raise PolicyError(f"unknown policy {text!r} (expected {_GRAMMAR})")
    if not sep or not rest:
        raise PolicyError(f"policy {name!r} needs parameters: {name}:leaf=LEAF,...")
    allowed = _PARAMS[name]
    params: dict[str, str] = {}
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        if not eq:
            raise PolicyError(f"{name}: parameter {item!r} is not KEY=VALUE "
                              "(a path may not contain ',' or '=')")
        if key not in allowed:
            raise PolicyError(f"{name}: unknown parameter {key!r} (expected "
                              f"{', '.join(allowed)})")
        if key in params:
            raise PolicyError(f"{name}: parameter {key!r} given twice")
        params[key] = value
    if "leaf" not in params:
        raise PolicyError(f"{name}: missing parameter 'leaf' (leaf={LEAF_GRAMMAR})")
    try:
        leaf = parse_leaf(params["leaf"])
    except LeafError as exc:
        raise PolicyError(str(exc)) from None
    strata = (_int_param(name, "s", params["s"], 1, MAX_STRATA) if "s" in params
              else DEFAULT_STRATA)
    if name == "direct":
        return PolicySpec(name, leaf, 1, strata)
    depth = _int_param(name, "d", params["d"], 1, MAX_DEPTH) if "d" in params else DEFAULT_DEPTH
    return PolicySpec(name, leaf, depth, strata)


def format_policy(spec: PolicySpec) -> str:
    """The canonical string of a parsed policy."""
    if spec.name in BASELINES:
        return spec.name
    assert spec.leaf is not None
    text = f"{spec.name}:leaf={spec.leaf.format()}"
    if spec.name == "search":
        return f"{text},d={spec.depth},s={spec.strata}"
    return text if spec.strata == DEFAULT_STRATA else f"{text},s={spec.strata}"


def canonical_policy(text: str) -> str:
    """Parse and re-format: the one spelling of a policy."""
    return format_policy(parse_policy(text))


class Policy:
    """A player: ``new_game(seed)`` then ``choose(state, cols) -> column`` per move.

    ``state`` is the driver's ``int64[ST_LEN]`` array (public fields only) and
    ``cols`` the board; neither is modified.
    """

    spec: PolicySpec

    @property
    def name(self) -> str:
        """The canonical policy string."""
        return format_policy(self.spec)

    def new_game(self, seed: int) -> None:
        """Start a game (only a baseline's own coin depends on it)."""

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        """The column to play."""
        raise NotImplementedError

    def warm_up(self) -> None:
        """Load or compile the compiled code, so game wall times exclude it."""


class BaselinePolicy(Policy):
    """``random``, ``centre-first`` or ``lowest-column`` (numba baselines)."""

    def __init__(self, spec: PolicySpec) -> None:
        self.spec = spec
        self.policy_id = BASELINES[spec.name]
        self._coin = np.uint64(0)

    def new_game(self, seed: int) -> None:
        self._coin = np.uint64(seed)

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return int(core.baseline_choice(self.policy_id, self._coin, state, cols))

    def warm_up(self) -> None:
        core.play_baseline_games(np.ones(1, dtype=np.uint64), self.policy_id,
                                 np.zeros((1, core.ST_LEN), dtype=np.int64))


class SearchPolicy(Policy):
    """``search`` (``dDsS`` expectimax) or ``direct`` (the same kernel at depth 1)."""

    def __init__(self, spec: PolicySpec, searcher: Searcher) -> None:
        self.spec = spec
        self.searcher = searcher

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return self.searcher.choose(cols, int(state[core.ST_NEXT_DISC]),
                                    int(state[core.ST_MOVES_REMAINING]))

    def warm_up(self) -> None:
        self.searcher.choose(opening_cols(), 1, 5)
        self.searcher.stats[:] = 0


def load_policy(policy: str | PolicySpec, verify: bool = True) -> Policy:
    """Build the player for a policy string or spec (loads leaf weights/tables).

    Table files are memory-mapped and checked against their manifest, with
    their SHA-256 unless ``verify`` is false.
    """
    spec = parse_policy(policy) if isinstance(policy, str) else policy
    if spec.name in BASELINES:
        return BaselinePolicy(spec)
    from engines.search.leaf import load_leaf

    assert spec.leaf is not None and spec.depth is not None and spec.strata is not None
    try:
        leaf = load_leaf(spec.leaf, verify)
    except (OSError, ValueError) as exc:
        raise PolicyError(f"{format_policy(spec)}: {str(exc).splitlines()[0]}") from None
    return SearchPolicy(spec, Searcher(leaf, spec.depth, spec.strata))
