"""Weights trained to their end by one job: no validation search, no gates, one plan for all.

A learner registered with ``frozen`` (:class:`engines.learners.registry.LearnerKind`) is
trained by one job (its registered ``drop7`` command, resuming what a killed job left) into
its training directory, whose frozen weights and record (their SHA-256) the registration
names.  What reads them is the registration's ``plays``: a kf arm's ``weights: NAME`` (kf-q's
six weights, a weight search's of target kf), a q arm's (ridge-q's fit), or an arm's
``leaf: {weights: NAME}`` (a weight search's linear vector, nnue-distil's and nnue-evolve's
networks).  The arm's games wait for the record, its SHA-256 enters the ledger opener's hashes
(:attr:`protocol.plan_model.ClaimPlan.opener_records`) and the estimate prices the training
by the learner's ``seconds``.  A start that names weights this claim trains
(``start: {weights: NAME}``: nnue-evolve's network, a weight search's vector) waits for their
record too, and the learner reads them from the record's directory, checked against it.  A
profile shrinks the learner's ``budget`` (the cap ``shrink.<shrink>`` or
``claims.<id>.weights.<name>.<budget>``), its ``sizes`` (``claims.<id>.weights.<name>.<key>``),
its checkpoint spacing (``shrink.checkpoints`` or ``claims.<id>.weights.<name>.every``) and the
searches its declaration names (``policies``, ``searches``), as it shrinks arms'; each shrink is
listed on the page (docs/training.md, "Learners").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engines.filters.kf_weights import KF_WEIGHTS
from engines.learners import get_learner
from engines.learners.registry import LearnerKind
from engines.leaves.kinds import LeafSpec
from protocol.claim import Claim, direct_weights
from protocol.commands import train
from protocol.parts.base import KeyCheck, ProfileSettings, dtag, moves_text, names_of
from protocol.parts.pins import Pinned, plan_pinned
from protocol.paths import Paths

#: the curve's games at every checkpoint of kf-q weights (the same for every claim)
CURVE_GAMES = 64


def _played_by(w: Mapping[str, Any]) -> str | None:
    return get_learner(w["train"]["learner"]).played_by(w["train"])


def played_as(doc: Mapping[str, Any], play: str) -> dict[str, Any]:
    """The weights this claim trains by one job whose frozen output an arm of kind ``play``
    (``kf``, ``q``; a pruning prior reads the same) plays."""
    return {n: w for n, w in direct_weights(doc).items() if _played_by(w) == play}


def direct_files(claim: Claim, name: str, paths: Paths) -> tuple[str, str]:
    """The frozen weights and record of weights ``name`` this claim trains by one job."""
    t = claim.direct[name]["train"]
    frozen = get_learner(t["learner"]).frozen_files(t)
    directory = paths.path("train", claim=claim.id, weights=name)
    return f"{directory}/{frozen[0]}", f"{directory}/{frozen[1]}"


def check_direct(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Each trained weights' name (a kf arm's not a named vector's), every arm that names
    weights as a string (a kf arm's a named vector or kf weights this claim trains, another
    arm's weights this claim trains for its kind), and every ``start: {weights: NAME}``
    (weights this claim trains of the learner's leaf, no cycle)."""
    from protocol.arms import play_kind

    learned = direct_weights(doc)
    for name, w in learned.items():
        if _played_by(w) == "kf" and name in KF_WEIGHTS:
            chk.fail(f"weights.{name}", f"{name!r} is a named KF vector "
                     "(engines/filters/kf_weights.py): give the trained weights another name")
    for name, arm in doc["arms"].items():
        w, play = arm.get("weights"), arm["play"]
        if not isinstance(w, str) or (play == "kf" and w in KF_WEIGHTS):
            continue
        kind = play_kind(play)
        if "weights" not in kind.takes or kind.weights is not None:
            continue  # no weights, or a form protocol.arms checks: refused there
        mine = played_as(doc, play)
        if w in mine:
            continue
        if play == "kf":
            chk.fail(f"arms.{name}.weights", f"{w!r} is neither a named vector "
                     f"({', '.join(KF_WEIGHTS)}) nor kf weights this claim trains "
                     f"({names_of(mine)})")
        chk.fail(f"arms.{name}.weights", f"{w!r} is not weights this claim trains for a "
                 f"{play} arm ({names_of(mine)})")
    _check_starts(learned, chk)


def _check_starts(learned: Mapping[str, Any], chk: KeyCheck) -> None:
    """A ``start: {weights: NAME}`` names weights this claim trains by one job whose frozen
    vector is the learner's own (:meth:`~engines.learners.registry.LearnerKind.vector_of`: a
    weight search's target, kf-q's six KF weights, a network), and the starts form no
    cycle."""
    edges = {}
    for name, w in learned.items():
        start = w["train"].get("start")
        if not isinstance(start, Mapping) or "weights" not in start:
            continue
        key, other = f"weights.{name}.train.start.weights", start["weights"]
        want = get_learner(w["train"]["learner"]).vector_of(w["train"])
        if other not in learned:
            chk.fail(key, f"{other!r} is not weights this claim trains by one job "
                     f"({names_of(learned)})")
        theirs = get_learner(learned[other]["train"]["learner"])
        have = theirs.vector_of(learned[other]["train"])
        if have != want:
            chk.fail(key, f"{other!r} are {theirs.name} weights ({theirs.produces}, vector "
                     f"{have}), not the {want} vector this learner starts from")
        edges[name] = other
    for name in edges:
        seen, at = [name], edges[name]
        while at in edges and at not in seen:
            seen.append(at)
            at = edges[at]
        if at in seen:
            chk.fail(f"weights.{name}.train.start.weights", "the starts form a cycle ("
                     f"{' -> '.join([*seen[seen.index(at):], at])})")


@dataclass(frozen=True)
class DirectTraining:
    """One trained weights of a learner that sets ``frozen`` at this profile's budget: its
    planned recipe, directory, estimated seconds and the weights its start waits for."""

    claim: str
    name: str
    learner: str
    planned: dict[str, Any]
    dir: str
    seconds: float
    #: this claim's weights whose record the job waits for (a ``start: {weights: NAME}``)
    after: tuple[str, ...] = ()
    #: a pinned start file (checked before any job, as every pinned file is)
    pin: Pinned | None = None
    #: what this profile shrank of it (its lines of the claim's ``shrunk``)
    shrinks: tuple[str, ...] = ()

    @property
    def kind(self) -> LearnerKind:
        """The learner's registration."""
        return get_learner(self.learner)

    @property
    def size(self) -> int:
        """The planned budget (games, generations, epochs)."""
        return self.planned[self.kind.budget]

    @property
    def frozen(self) -> tuple[str, str]:
        """The frozen weights and their record, relative to :attr:`dir`."""
        return self.kind.frozen_files(self.planned)

    @property
    def weights_file(self) -> str:
        """The frozen weights (a file or a weights directory, as the learner writes them)."""
        return f"{self.dir}/{self.frozen[0]}"

    @property
    def record(self) -> str:
        """The frozen weights' record (their SHA-256)."""
        return f"{self.dir}/{self.frozen[1]}"

    @property
    def plays(self) -> str | None:
        """What reads the frozen weights: an arm's play kind, or ``leaf``."""
        return self.kind.played_by(self.planned)

    def leaf(self) -> LeafSpec:
        """The leaf that plays the frozen weights (a learner whose weights are a leaf)."""
        return self.kind.leaf_spec(self.weights_file)

    @property
    def curve(self) -> str | None:
        """The file of the learner's curve: kf-q's checkpoints, a weight search's or
        nnue-evolve's generations, nnue-distil's epochs (None: ridge-q's one fit)."""
        from engines.learners.distil import SUMMARY
        from engines.learners.kf_q_train import CURVE as KF_CURVE
        from engines.learners.weight_search import CURVE

        name = {"kf-q": KF_CURVE, "search": CURVE, "distil": SUMMARY}.get(self.kind.curve)
        return None if name is None else f"{self.dir}/{name}"

    def command(self) -> str:
        """The ``drop7`` line that trains (or resumes) these weights to their end."""
        return train(self.learner, self.recipe(), self.size, self.dir, 1)

    def recipe(self) -> dict[str, Any]:
        """What determines the weights, with the checkpoint spacing."""
        extra = {"validation_games": CURVE_GAMES} if self.kind.curve == "kf-q" else {}
        return {**self.planned, **extra}

    def describe(self) -> dict[str, Any]:
        """JSON-ready, for the page and the readings of a learner's figures: the learner, its
        planned recipe and what this profile shrank of it, its files, its curve's kind and the
        figures it gives (:mod:`contracts.learner_figures`)."""
        return {"name": self.name, "learner": self.learner, "produces": self.kind.produces,
                "recipe": self.recipe(), "shrunk": list(self.shrinks),
                "record": self.record, "curve": self.curve, "curve_kind": self.kind.curve,
                "figures": list(self.kind.figures_of(self.planned))}


def _search(prof: ProfileSettings, name: str, depth: int, strata: int) -> tuple[int, int]:
    """A learner's search at this profile: ``claims.<id>.weights.<name>.search`` key by key in
    place of the claim's search settings and the caps, as an arm's is shrunk."""
    over = prof.over.get("weights", {}).get(name, {}).get("search")
    if over is None:
        return prof.search(depth, strata)
    shrink = {**prof.caps, **prof.over.get("search", {}), **over}
    return max(1, depth + shrink.get("depth_shift", 0)), min(strata, shrink.get("strata", strata))


def _shrunk_policy(prof: ProfileSettings, name: str, text: str) -> str:
    """A policy's text with its search shrunk as an arm's is (unchanged when not a search)."""
    from engines.play.arm_specs import SearchSpec
    from engines.play.policy_grammar import parse_policy

    spec = parse_policy(text)
    if not isinstance(spec, SearchSpec):
        return text
    depth, strata = _search(prof, name, spec.depth, spec.strata)
    return replace(spec, depth=depth, strata=strata, reveals=prof.reveals(spec.reveals)).format()


def _spacing(claim: Claim, prof: ProfileSettings, name: str, kind: LearnerKind,
             declared: int, size: int) -> int:
    every = prof.over.get("weights", {}).get(name, {}).get(kind.spacing)
    if every is None:
        every = min(declared, size)
        cap = prof.caps.get("checkpoints")
        if cap and -(-size // every) > cap:
            every = -(-size // cap)
    elif every > size:
        prof.fail(f"claims.{claim.id}.weights.{name}.{kind.spacing}", f"{every:,} is larger "
                  f"than the {size:,} {kind.budget} trained")
    return every


def _check_overrides(claim: Claim, prof: ProfileSettings, name: str, kind: LearnerKind) -> None:
    """A profile's ``claims.<id>.weights.<name>`` keys are those this learner shrinks (its
    budget, spacing, sizes and, when it plays searches, ``search``): another (TC-TD's
    ``moves``, a weight search's ``every``) would be accepted and never read."""
    takes = {k for k in (kind.budget, kind.spacing, *kind.sizes) if k is not None}
    if kind.searches or kind.policies:
        takes.add("search")
    for key in prof.over.get("weights", {}).get(name, {}):
        if key not in takes:
            prof.fail(f"claims.{claim.id}.weights.{name}.{key}", f"learner {kind.name} has no "
                      f"{key} a profile shrinks (it shrinks: {', '.join(sorted(takes))})")


def _shrink_sizes(claim: Claim, prof: ProfileSettings, name: str, kind: LearnerKind,
                  t: dict[str, Any], planned: dict[str, Any], shrunk: list[str]) -> None:
    """The budget, the spacing, the further sizes and the searches at this profile."""
    _check_overrides(claim, prof, name, kind)
    size = prof.size(("weights", name, kind.budget), kind.shrink, t[kind.budget])
    planned[kind.budget] = size
    if kind.spacing is not None and kind.spacing in t:
        every = _spacing(claim, prof, name, kind, t[kind.spacing], size)
        planned[kind.spacing] = every
        if (size, every) != (t[kind.budget], t[kind.spacing]):
            shrunk.append(f"{name}: trained {moves_text(size)} {kind.budget}, a checkpoint "
                          f"every {moves_text(every)} (declared: {moves_text(t[kind.budget])} "
                          f"every {moves_text(t[kind.spacing])})")
    elif size != t[kind.budget]:
        shrunk.append(f"{name}: trained on {moves_text(size)} {kind.budget} (declared: "
                      f"{moves_text(t[kind.budget])})")
    for key in kind.sizes:
        if key in t:
            planned[key] = prof.size(("weights", name, key), None, t[key])
            if planned[key] != t[key]:
                shrunk.append(f"{name}: {key} {planned[key]:,} (declared: {t[key]:,})")
    for key in kind.policies:
        planned[key] = _shrunk_policy(prof, name, t[key])
        if planned[key] != t[key]:
            shrunk.append(f"{name}: its {key} {planned[key]} (declared: {t[key]})")
    for key in kind.searches:
        if key in t:
            depth, strata = _search(prof, name, t[key]["depth"], t[key]["strata"])
            planned[key] = {"depth": depth, "strata": strata}
            if (depth, strata) != (t[key]["depth"], t[key]["strata"]):
                shrunk.append(f"{name}: its {key} {dtag(depth, strata)} (declared: "
                              f"{dtag(t[key]['depth'], t[key]['strata'])})")


def plan_direct_training(claim: Claim, prof: ProfileSettings, paths: Paths,
                         shrunk: list[str]) -> dict[str, DirectTraining]:
    """Every weights trained by one job at this profile's budget (each shrink listed in
    ``shrunk``), a start named by weights before the weights that start from it."""
    from protocol.arms import decision_seconds
    from protocol.costs import game_seconds

    def game(text: str) -> float:
        from engines.play.policy_grammar import parse_policy

        return game_seconds(decision_seconds(parse_policy(text)))

    out: dict[str, DirectTraining] = {}
    dirs = {n: paths.path("train", claim=claim.id, weights=n) for n in claim.direct}
    for name, w in claim.direct.items():
        kind = get_learner(w["train"]["learner"])
        t = {**kind.defaults, **w["train"]}
        planned, mine = dict(t), []
        _shrink_sizes(claim, prof, name, kind, t, planned, mine)
        shrunk += mine
        after: tuple[str, ...] = ()
        pin = plan_pinned(claim, f"weights.{name}.train.start", t.get("start"))
        start = t.get("start")
        if isinstance(start, Mapping) and "weights" in start:
            # the directory of their frozen record: the start is read there and checked
            # against it, once the job this one waits for (``after``) has written it
            record = direct_files(claim, start["weights"], paths)[1]
            planned["start"] = {"trained": record.rpartition("/")[0]}
            after = (start["weights"],)
        elif pin is not None:
            planned["start"] = {"path": pin.path, "sha256": pin.sha256}
        out[name] = DirectTraining(claim.id, name, kind.name, planned, dirs[name],
                                   kind.seconds(planned, game) if kind.seconds else 0.0, after,
                                   pin, tuple(mine))
    return out
