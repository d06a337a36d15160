"""Named, parameterised policies: one string per player, everywhere.

Grammar (the same in ``drop7 play --policy``, config files, arm names in
reports and Python)::

    random | centre-first | lowest-column
    search:leaf=LEAF[,d=D][,s=S][,r=M]   (defaults d=3, s=7; r: no factored node)
    direct:leaf=LEAF[,s=S][,r=M]         (default s=7; one ply)
    external[[PARAM=VALUE,...]]:COMMAND   (another program, docs/referee.md)
    LEAF = linear | zero | linear-trained:PATH | ntuple:PATH   (engines.leaves.kinds)
    PARAM = movetime (ms) | grace (ms, default 10000) | option.KEY (sent to the program)

Parameters may come in any order; :func:`format_policy` writes the canonical
form (``leaf`` first; ``search`` always shows ``d`` and ``s``; ``direct``
shows ``s`` only when it is not 7; ``r``, the reveal samples per disc stratum
of the factored chance node (docs/search.md), last and only when given), and
``parse -> format`` round-trips.
PATH is kept as written (no resolution), so an arm's name does not depend on
the working directory; it may not contain ``,`` or ``=``.  An external
COMMAND is words separated by spaces (no quoting, no shell: each word is
printable ASCII without quotes or backslashes), kept as written; its
canonical form joins the words with one space and writes ``movetime``,
``grace`` (when not the default) and the options sorted by key.

:func:`parse_policy` checks the syntax only; :func:`load_policy` builds the
player, loading weights or tables (errors for a missing or bad PATH).  A
policy sees the public state only: its ``choose(state, cols)`` reads the
board, next disc and moves remaining; the game seed is never passed to it
(the ``random`` baseline gets its own coin, a separate seeded stream, through
``new_game``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from engines.drop7 import baselines, core
from engines.drop7.board import opening_cols
from engines.leaves.kinds import LEAF_GRAMMAR, LeafError, LeafSpec, parse_leaf
from engines.search.expectimax import (
    MAX_DEPTH,
    MAX_REVEALS,
    MAX_STRATA,
    STAT_LEAVES,
    STAT_NODES,
    Searcher,
)

BASELINES = {
    "random": baselines.POLICY_RANDOM,
    "centre-first": baselines.POLICY_CENTRE_FIRST,
    "lowest-column": baselines.POLICY_LOWEST_COLUMN,
}
DEFAULT_DEPTH = 3
DEFAULT_STRATA = 7
_PARAMS = {"search": ("leaf", "d", "s", "r"), "direct": ("leaf", "s", "r")}
_GRAMMAR = ("random, centre-first, lowest-column, search:leaf=LEAF,d=D,s=S[,r=M], "
            "direct:leaf=LEAF[,s=S][,r=M] or external[PARAMS]:COMMAND")
EXTERNAL = "external"
#: milliseconds an external program may take beyond ``movetime`` before its decision is
#: a time-out (with no ``movetime``, the whole limit)
DEFAULT_GRACE_MS = 10_000
MAX_MS = 3_600_000
#: a command word: printable ASCII, no space, quote or backslash (the workflow passes the
#: policy inside single quotes)
_WORD = re.compile(r"[!#-&(-\[\]-_a-~]+")
OPTION_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
#: an option value: no space, comma, ``=``, ``]``, quote or backslash
OPTION_VALUE = re.compile(r"[A-Za-z0-9._+/:@%-]+")


class PolicyError(ValueError):
    """A policy string that does not parse, or a policy that cannot load."""


@dataclass(frozen=True)
class ExternalSpec:
    """An external program: its command, time limit and the options the harness sets."""

    command: tuple[str, ...]
    movetime_ms: int | None = None
    grace_ms: int = DEFAULT_GRACE_MS
    options: tuple[tuple[str, str], ...] = ()

    @property
    def limit_s(self) -> float:
        """Seconds a decision may take before it is a time-out: movetime plus grace."""
        return ((self.movetime_ms or 0) + self.grace_ms) / 1000


@dataclass(frozen=True)
class PolicySpec:
    """A parsed policy: ``name`` plus, for search players, leaf, depth, strata and the
    reveal samples per disc stratum (None: not declared, the plain chance node), and for
    an external program its :class:`ExternalSpec`."""

    name: str
    leaf: LeafSpec | None = None
    depth: int | None = None
    strata: int | None = None
    external: ExternalSpec | None = None
    reveals: int | None = None

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
    if text == EXTERNAL or text.startswith((f"{EXTERNAL}:", f"{EXTERNAL}[")):
        return PolicySpec(EXTERNAL, external=_parse_external(text))
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
    reveals = _int_param(name, "r", params["r"], 1, MAX_REVEALS) if "r" in params else None
    if name == "direct":
        return PolicySpec(name, leaf, 1, strata, reveals=reveals)
    depth = _int_param(name, "d", params["d"], 1, MAX_DEPTH) if "d" in params else DEFAULT_DEPTH
    return PolicySpec(name, leaf, depth, strata, reveals=reveals)


def _parse_external(text: str) -> ExternalSpec:
    """``external[PARAMS]:COMMAND`` (see the module's grammar)."""
    rest = text[len(EXTERNAL):]
    params = ""
    if rest.startswith("["):
        params, close, rest = rest[1:].partition("]")
        if not close:
            raise PolicyError(f"{EXTERNAL}: parameters {text!r} lack the closing ']'")
    if not rest.startswith(":") or not rest[1:].strip():
        raise PolicyError(f"{EXTERNAL}: expected {EXTERNAL}[PARAMS]:COMMAND, got {text!r}")
    command = tuple(rest[1:].split())
    for word in command:
        if not _WORD.fullmatch(word):
            raise PolicyError(f"{EXTERNAL}: command word {word!r} must be printable ASCII "
                              "without quotes or backslashes")
    movetime, grace, options = None, DEFAULT_GRACE_MS, {}
    seen: set[str] = set()
    for item in params.split(",") if params else ():
        key, eq, value = item.partition("=")
        if not eq:
            raise PolicyError(f"{EXTERNAL}: parameter {item!r} is not KEY=VALUE")
        if key in seen:
            raise PolicyError(f"{EXTERNAL}: parameter {key!r} given twice")
        seen.add(key)
        if key == "movetime":
            movetime = _int_param(EXTERNAL, key, value, 1, MAX_MS)
        elif key == "grace":
            grace = _int_param(EXTERNAL, key, value, 0, MAX_MS)
        elif key.startswith("option.") and OPTION_KEY.fullmatch(key[7:]):
            if not OPTION_VALUE.fullmatch(value):
                raise PolicyError(f"{EXTERNAL}: option {key[7:]!r}: value {value!r} must be "
                                  "letters, digits and ._+/:@%-")
            options[key[7:]] = value
        else:
            raise PolicyError(f"{EXTERNAL}: unknown parameter {key!r} (expected movetime, "
                              "grace or option.KEY with KEY letters, digits, _ and -)")
    return ExternalSpec(command, movetime, grace, tuple(sorted(options.items())))


def external_policy(command: list[str] | tuple[str, ...], options: dict | None = None,
                    movetime_ms: int | None = None, grace_ms: int | None = None) -> str:
    """The canonical policy string of an external program (as a claim's arm declares it)."""
    spec = ExternalSpec(tuple(command), movetime_ms,
                        DEFAULT_GRACE_MS if grace_ms is None else grace_ms,
                        tuple(sorted((str(k), str(v)) for k, v in (options or {}).items())))
    return canonical_policy(format_policy(PolicySpec(EXTERNAL, external=spec)))


def _format_external(ext: ExternalSpec) -> str:
    params = ([f"movetime={ext.movetime_ms}"] if ext.movetime_ms is not None else []) + (
        [f"grace={ext.grace_ms}"] if ext.grace_ms != DEFAULT_GRACE_MS else []) + [
        f"option.{k}={v}" for k, v in ext.options]
    head = f"{EXTERNAL}[{','.join(params)}]" if params else EXTERNAL
    return f"{head}:{' '.join(ext.command)}"


def format_policy(spec: PolicySpec) -> str:
    """The canonical string of a parsed policy."""
    if spec.name in BASELINES:
        return spec.name
    if spec.external is not None:
        return _format_external(spec.external)
    assert spec.leaf is not None
    text = f"{spec.name}:leaf={spec.leaf.format()}"
    if spec.name == "search":
        text = f"{text},d={spec.depth},s={spec.strata}"
    elif spec.strata != DEFAULT_STRATA:
        text = f"{text},s={spec.strata}"
    return text if spec.reveals is None else f"{text},r={spec.reveals}"


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

    def work(self) -> tuple[int | None, int | None]:
        """``(nodes, leaves)`` counted since the player was made: search nodes (moves applied
        inside the search, chance samples played) and leaf evaluations; None where the
        player does not report them (an external program)."""
        return None, None

    def close(self) -> None:
        """Release what the player holds (an external program is told to quit)."""


class BaselinePolicy(Policy):
    """``random``, ``centre-first`` or ``lowest-column`` (numba baselines)."""

    def __init__(self, spec: PolicySpec) -> None:
        self.spec = spec
        self.policy_id = BASELINES[spec.name]
        self._coin = np.uint64(0)

    def new_game(self, seed: int) -> None:
        self._coin = np.uint64(seed)

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return int(baselines.baseline_choice(self.policy_id, self._coin, state, cols))

    def work(self) -> tuple[int | None, int | None]:
        return 0, 0  # a baseline searches nothing and evaluates no leaf

    def warm_up(self) -> None:
        baselines.play_baseline_games(np.ones(1, dtype=np.uint64), self.policy_id,
                                 np.zeros((1, core.ST_LEN), dtype=np.int64))


class SearchPolicy(Policy):
    """``search`` (``dDsS`` expectimax) or ``direct`` (the same kernel at depth 1)."""

    def __init__(self, spec: PolicySpec, searcher: Searcher) -> None:
        self.spec = spec
        self.searcher = searcher

    def new_game(self, seed: int) -> None:
        self.searcher.reset()  # a game's node and leaf counts never depend on the one before

    def choose(self, state: np.ndarray, cols: np.ndarray) -> int:
        return self.searcher.choose(cols, int(state[core.ST_NEXT_DISC]),
                                    int(state[core.ST_MOVES_REMAINING]))

    def warm_up(self) -> None:
        self.searcher.choose(opening_cols(), 1, 5)
        self.searcher.stats[:] = 0

    def work(self) -> tuple[int | None, int | None]:
        return int(self.searcher.stats[STAT_NODES]), int(self.searcher.stats[STAT_LEAVES])


def load_policy(policy: str | PolicySpec, verify: bool = True) -> Policy:
    """Build the player for a policy string or spec (loads leaf weights/tables, or starts
    an external program: one that cannot start is a :class:`PolicyError`).

    Table files are memory-mapped and checked against their manifest, with
    their SHA-256 unless ``verify`` is false.
    """
    spec = parse_policy(policy) if isinstance(policy, str) else policy
    if spec.name in BASELINES:
        return BaselinePolicy(spec)
    if spec.external is not None:
        from engines.play.referee import ExternalPolicy

        return ExternalPolicy(spec)
    from engines.search.leaf import load_leaf

    assert spec.leaf is not None and spec.depth is not None and spec.strata is not None
    try:
        leaf = load_leaf(spec.leaf, verify)
    except (OSError, ValueError) as exc:
        raise PolicyError(f"{format_policy(spec)}: {str(exc).splitlines()[0]}") from None
    return SearchPolicy(spec, Searcher(leaf, spec.depth, spec.strata, reveals=spec.reveals))
