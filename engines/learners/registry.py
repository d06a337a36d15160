"""Learner kinds: the ``learner`` of a claim's trained weights, each registered once (no numba).

A claim trains weights with ``weights: {NAME: {train: {learner: KIND, ...}}}``.
Each kind is one :class:`LearnerKind` in :data:`LEARNERS`, registered by its
own module of :mod:`engines.learners`: the keys its declaration takes (a JSON
schema fragment, which :func:`protocol.declaration.claim_schema` composes
into the claim schema) and the checks across them a schema cannot say, what
it produces (the leaf kind that plays its weights, or a policy's weights),
how many checkpoints a declaration gives, the ``drop7`` command line that
trains one segment of it and the curve its training directory feeds.  The
protocol plans, checks, prices and runs every learner through this record,
so a new learner is its module and one registration
(docs/training.md, "Learners").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from contracts.learner_figures import FIGURES
from engines.leaves.kinds import LeafSpec

#: ``fail(key, message)``: refuse a declaration's key (below ``train``) in one line
Fail = Callable[[str, str], None]


def fair_search(depth: int, strata: int) -> str:
    """The policy text of the fair-leaf search ``dDsS``: a teacher's, a reference's, or what a
    leaf candidate plays in the cost model."""
    return f"search:leaf=linear,d={depth},s={strata}"


@dataclass(frozen=True)
class LearnerKind:
    """A learner kind (see the module docstring).

    ``keys`` are the JSON schema properties of its ``train`` mapping besides ``learner``
    (``required`` of them must be given); ``check(train, fail)`` refuses what the schema
    cannot; ``checkpoints(train)`` counts a declaration's checkpoints without listing them and
    ``is_checkpoint(train, step)`` says whether a step is one (a ``select.step``);
    ``entries(layout)`` is the length of its weights; ``command(recipe, end, out, start)`` the
    words of the ``drop7`` command that trains from ``start`` to ``end`` into ``out``;
    ``leaf`` the leaf kind that plays its weights and ``pinned`` the pinned-file kind a warm
    start of it reads (None when its weights are not a leaf's); ``produces`` what its weights
    are, as the page says; ``curve`` the curve its training feeds (``health``: every
    checkpoint one ply beside its start and random, :mod:`analysis.health`; ``search``: a
    weight search's best and mean score per generation; ``ridge-q``: one fit, its report in
    its manifest); ``recipe_keys`` the keys of its declaration (beyond the TC-TD recipe's) its
    training recipe carries, with their schema defaults, so its command sees them; ``move_cost``
    the CPU of one of its training moves in TC-TD moves (None: 1).

    A learner that sets ``frozen`` is trained to its end by one job, without a validation
    search or gates (:mod:`protocol.parts.direct_training`): ``plays`` says what reads its
    frozen weights (an arm's ``play`` kind, ``kf`` or ``q``, with ``weights: NAME``; or
    ``leaf``, an arm's ``leaf: {weights: NAME}`` played as the leaf kind ``leaf``), a
    function of the declaration when it depends on it; ``budget`` is its declaration's size
    key a profile shrinks (by the cap ``shrink`` or ``claims.<id>.weights.<name>.<budget>``),
    ``sizes`` further size keys a profile may shrink per claim (population, games),
    ``spacing`` the key of its checkpoint spacing (None: one fit), ``frozen`` the frozen
    weights and their record (``{"sha256"}``) in its training directory (a function of the
    declaration when they depend on it), ``seconds(recipe, game)`` its CPU seconds for the
    estimate (``game``: the protocol's estimated CPU seconds of one whole game of a policy
    text); ``policies`` the keys of its declaration that name policies and ``searches`` those
    that declare ``{depth, strata}``, whose searches a profile shrinks as it shrinks an arm's;
    ``defaults`` what its absent keys mean (filled by the plan); ``figures`` the figures its
    curve or record gives (:data:`contracts.learner_figures.FIGURES`: a figure that needs a
    key is given only when the declaration has it), which a ``learner-at-least`` or
    ``learner-at-most`` reading reads; ``vector`` what its frozen
    weights are as another learner's start reads them (a function of the declaration when it
    depends on it; None: no learner starts from them): a ``start: {weights: NAME}`` names
    weights of the starting learner's own vector."""

    name: str
    produces: str
    keys: Mapping[str, Any]
    required: tuple[str, ...]
    checkpoints: Callable[[Mapping[str, Any]], int]
    is_checkpoint: Callable[[Mapping[str, Any], int], bool]
    entries: Callable[[str | None], int]
    command: Callable[[Mapping[str, Any], int, str, int], list[object]]
    curve: str
    leaf: str | None = None
    pinned: str | None = None
    check: Callable[[Mapping[str, Any], Fail], None] | None = field(default=None)
    plays: str | Callable[[Mapping[str, Any]], str] | None = None
    budget: str | None = None
    shrink: str | None = None
    spacing: str | None = None
    frozen: tuple[str, str] | Callable[[Mapping[str, Any]], tuple[str, str]] | None = None
    seconds: Callable[[Mapping[str, Any], Callable[[str], float]], float] | None = None
    policies: tuple[str, ...] = ()
    searches: tuple[str, ...] = ()
    sizes: tuple[str, ...] = ()
    defaults: Mapping[str, Any] = field(default_factory=dict)
    #: whether the workflow plans its training (else a claim that trains it is refused at the
    #: plan: run its ``drop7`` command and pin what it writes)
    planned: bool = True
    recipe_keys: tuple[str, ...] = ()
    #: the CPU of one of its training moves in TC-TD moves (the cost model's training rates are
    #: TC-TD's, protocol/costs.py), given its declaration; None: 1
    move_cost: Callable[[Mapping[str, Any]], float] | None = None
    figures: tuple[str, ...] = ()
    vector: str | Callable[[Mapping[str, Any]], str] | None = None

    @property
    def direct(self) -> bool:
        """Whether one job trains its weights to their end (no validation, no gates)."""
        return self.frozen is not None

    def played_by(self, train: Mapping[str, Any]) -> str | None:
        """What reads the frozen weights of a declaration ``train``: an arm's play kind, or
        ``leaf`` (None: a learner validated as a leaf, not :attr:`direct`)."""
        return self.plays(train) if callable(self.plays) else self.plays

    def vector_of(self, train: Mapping[str, Any]) -> str | None:
        """The vector the frozen weights of a declaration ``train`` are (:attr:`vector`)."""
        return self.vector(train) if callable(self.vector) else self.vector

    def frozen_files(self, train: Mapping[str, Any]) -> tuple[str, str]:
        """The frozen weights and their record in the training directory, for ``train``."""
        if self.frozen is None:
            raise ValueError(f"learner {self.name!r} is not trained by one job")
        return self.frozen(train) if callable(self.frozen) else self.frozen

    def figures_of(self, train: Mapping[str, Any]) -> tuple[str, ...]:
        """The figures weights declared as ``train`` give (a figure that needs a key of the
        declaration only when it is declared)."""
        return tuple(f for f in self.figures
                     if FIGURES[f].needs is None or FIGURES[f].needs in train)

    def recipe_extra(self, train: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        """``(key, value)`` of each of :attr:`recipe_keys` as declared (else its default)."""
        return tuple((k, train.get(k, self.keys[k].get("default"))) for k in self.recipe_keys)

    def schema(self) -> dict[str, Any]:
        """The JSON schema of a ``train`` mapping of this kind."""
        return {"type": "object", "additionalProperties": False,
                "required": ["learner", *self.required],
                "properties": {"learner": {"const": self.name}, **self.keys}}

    def leaf_spec(self, path: str | None = None) -> LeafSpec:
        """The leaf that plays these weights (in ``path`` when given)."""
        if self.leaf is None:
            raise ValueError(f"learner {self.name!r} produces {self.produces}, not a leaf")
        return LeafSpec(self.leaf, path)


#: every learner kind by name, in registration order
LEARNERS: dict[str, LearnerKind] = {}


def register_learner(kind: LearnerKind) -> LearnerKind:
    """Add a learner kind (once: a name given twice is an error)."""
    if kind.name in LEARNERS:
        raise ValueError(f"learner {kind.name!r} is registered already")
    unknown = [f for f in kind.figures if f not in FIGURES]
    if unknown or (kind.figures and not kind.direct):
        raise ValueError(f"learner {kind.name!r}: figures {kind.figures} (known: "
                         f"{', '.join(FIGURES)}; only a learner trained by one job gives them)")
    LEARNERS[kind.name] = kind
    return kind


def get_learner(name: str) -> LearnerKind:
    """The learner kind ``name`` (``ValueError`` naming the registered ones)."""
    try:
        return LEARNERS[name]
    except KeyError:
        raise ValueError(f"unknown learner {name!r} (learners: {', '.join(LEARNERS)})") from None


def learner_leaf(learner: str, path: str | None = None) -> LeafSpec:
    """The leaf of a learner's weights (in ``path`` when given)."""
    return get_learner(learner).leaf_spec(path)


def train_schema() -> dict[str, Any]:
    """The JSON schema of a ``train`` mapping: a registered ``learner`` and that kind's keys."""
    return {"type": "object", "required": ["learner"],
            "properties": {"learner": {"enum": list(LEARNERS)}},
            "allOf": [{"if": {"properties": {"learner": {"const": k.name}},
                              "required": ["learner"]},
                       "then": k.schema()} for k in LEARNERS.values()]}
