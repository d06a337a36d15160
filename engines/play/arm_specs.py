"""The typed arm specs: one frozen dataclass per arm kind, each with its one spelling.

A parsed policy (:mod:`engines.play.policy_grammar`) is a :class:`PolicySpec`:
:class:`BaselineSpec`, :class:`SearchSpec` (``search`` and ``direct``),
:class:`ExternalSpec`, :class:`KfSpec` or :class:`QSpec`; its ``format()`` writes the
canonical policy string, which the grammar reads back to an equal spec.  An
:class:`Arm` is a name and a spec, its policy string formatted once.  The protocol
builds specs from a claim's declaration and never parses a string back; the player
of a spec is built by :func:`engines.play.policy.load_policy`.  No numba: the
protocol and the command line read this for nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from engines.filters.kf_weights import TRAINED
from engines.leaves.kinds import LeafSpec
from engines.search.prune_kinds import PruneSpec

#: the register's policy seed (its ``decide`` binary's): ``sampling=register`` plays with it
REGISTER_POLICY_SEED = 0xD7075EED
REGISTER = "register"
#: the engine's baselines (numba kernels: engines.drop7.baselines)
BASELINE_NAMES = ("random", "centre-first", "lowest-column")
DEFAULT_DEPTH = 3
DEFAULT_STRATA = 7
EXTERNAL = "external"
KF = "kf"
Q = "q"
#: milliseconds an external program may take beyond ``movetime`` before its decision is
#: a time-out (with no ``movetime``, the whole limit)
DEFAULT_GRACE_MS = 10_000


class PolicyError(ValueError):
    """A policy string that does not parse, or a policy that cannot load."""


@dataclass(frozen=True)
class PolicySpec:
    """A parsed policy; ``kind`` names its arm kind
    (:class:`engines.play.policy_grammar.ArmKind`), ``format()`` its one spelling."""

    kind: ClassVar[str]

    def format(self) -> str:
        """The canonical policy string."""
        raise NotImplementedError

    def __str__(self) -> str:
        return self.format()


@dataclass(frozen=True)
class BaselineSpec(PolicySpec):
    """One of the engine's baselines (``random``, ``centre-first``, ``lowest-column``)."""

    name: str
    kind: ClassVar[str] = "baseline"

    def format(self) -> str:
        return self.name


@dataclass(frozen=True)
class SearchSpec(PolicySpec):
    """``search`` (``dDsS`` expectimax over a leaf) or ``direct`` (the same at depth 1);
    ``reveals``: the factored chance node's reveal samples per disc stratum (None: not
    declared, the plain chance node); ``filter``: the root filter (None: every legal column
    is ranked); ``sampling``: the register's policy seed when the chance samples are drawn
    as the register draws them (None: our own, docs/search.md); ``prune``: the pruned search
    (None: full width, docs/search.md "Pruned search"; search only)."""

    name: str  # search | direct
    leaf: LeafSpec
    depth: int = DEFAULT_DEPTH
    strata: int = DEFAULT_STRATA
    reveals: int | None = None
    filter: str | None = None
    sampling: int | None = None
    prune: PruneSpec | None = None

    @property
    def kind(self) -> str:  # type: ignore[override]
        return self.name

    def format(self) -> str:
        text = f"{self.name}:leaf={self.leaf.format()}"
        if self.name == "search":
            text = f"{text},d={self.depth},s={self.strata}"
        elif self.strata != DEFAULT_STRATA:
            text = f"{text},s={self.strata}"
        if self.reveals is not None:
            text = f"{text},r={self.reveals}"
        if self.filter is not None:
            text = f"{text},f={self.filter}"
        if self.sampling is not None:
            text = f"{text},sampling={format_sampling(self.sampling)}"
        if self.prune is not None:
            text = f"{text},{self.prune.format()}"
        return text


def parse_sampling(text: str) -> int:
    """The register's policy seed of a ``sampling`` value: ``register`` (its own seed) or
    ``register:SEED`` (a 32-bit seed, decimal or ``0x`` hex)."""
    head, sep, seed = text.partition(":")
    if head == REGISTER and not sep:
        return REGISTER_POLICY_SEED
    if head == REGISTER and re.fullmatch(r"[0-9]+|0x[0-9a-fA-F]+", seed):
        value = int(seed, 0)
        if value < 1 << 32:
            return value
    raise PolicyError(f"sampling must be {REGISTER} or {REGISTER}:SEED (a 32-bit seed), "
                      f"got {text!r}")


def format_sampling(seed: int) -> str:
    """The one spelling of a ``sampling`` value (:func:`parse_sampling` reads it back)."""
    return REGISTER if seed == REGISTER_POLICY_SEED else f"{REGISTER}:{seed}"


@dataclass(frozen=True)
class ExternalSpec(PolicySpec):
    """An external program: its command, time limit and the options the harness sets."""

    command: tuple[str, ...]
    movetime_ms: int | None = None
    grace_ms: int = DEFAULT_GRACE_MS
    options: tuple[tuple[str, str], ...] = ()
    #: ``(N, SHA-256)``: command word N names a file that must hash to it (sorted by N)
    pins: tuple[tuple[int, str], ...] = ()
    kind: ClassVar[str] = EXTERNAL
    name: ClassVar[str] = EXTERNAL

    @property
    def limit_s(self) -> float:
        """Seconds a decision may take before it is a time-out: movetime plus grace."""
        return ((self.movetime_ms or 0) + self.grace_ms) / 1000

    def format(self) -> str:
        params = ([f"movetime={self.movetime_ms}"] if self.movetime_ms is not None else []) + (
            [f"grace={self.grace_ms}"] if self.grace_ms != DEFAULT_GRACE_MS else []) + [
            f"option.{k}={v}" for k, v in self.options] + [
            f"sha256.{n}={sha}" for n, sha in self.pins]
        head = f"{EXTERNAL}[{','.join(params)}]" if params else EXTERNAL
        return f"{head}:{' '.join(self.command)}"


@dataclass(frozen=True)
class KfSpec(PolicySpec):
    """The six-feature Klein-Friedmann policy (one ply, greedy, deterministic: docs/search.md)
    with a named weight vector, or (``weights`` None) the pinned file ``path`` of SHA-256
    ``sha256``, or (``sha256`` None too) the frozen weights of the training directory
    ``path``, checked against the SHA-256 of its record."""

    weights: str | None
    sha256: str | None = None
    path: str | None = None
    kind: ClassVar[str] = KF
    name: ClassVar[str] = KF

    def format(self) -> str:
        w = (self.weights if self.weights is not None
             else f"{TRAINED}:{self.path}" if self.sha256 is None else f"{self.sha256}:{self.path}")
        return f"{KF}:w={w}"


@dataclass(frozen=True)
class QSpec(PolicySpec):
    """The one-ply linear Q (:mod:`engines.filters.oneply_q`): greedy over the fitted weights
    of the pinned weights directory ``path`` (SHA-256 ``sha256``: its manifest's; None: a fit
    the claim trained, ``w=trained:DIR``, checked against its own manifest), its features
    sampled with ``strata`` chance strata and ``reveals`` reveal samples per stratum."""

    sha256: str | None
    path: str
    strata: int = DEFAULT_STRATA
    reveals: int = 1
    kind: ClassVar[str] = Q
    name: ClassVar[str] = Q

    def format(self) -> str:
        text = f"{Q}:w={self.sha256 or TRAINED}:{self.path}"
        if self.strata != DEFAULT_STRATA:
            text = f"{text},s={self.strata}"
        return f"{text},r={self.reveals}" if self.reveals != 1 else text


@dataclass(frozen=True)
class Arm:
    """A named player: an arm's name and its typed spec; ``policy`` is the spec's canonical
    string, formatted once (the games table's ``policy`` column, the workflow's command
    line)."""

    name: str
    spec: PolicySpec
    policy: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "policy", self.spec.format())

    @property
    def kind(self) -> str:
        """The arm kind (``baseline``, ``search``, ``direct``, ``external``, ``kf``)."""
        return self.spec.kind
