"""Weights a claim trains with a learner whose weights an arm plays by name: one plan for all.

A learner registered with ``plays`` (:class:`engines.learners.registry.LearnerKind`: kf-q's
six weights play as a kf arm's, ridge-q's fit as a q arm's) has no validation search and no
gates: one job trains it (its registered ``drop7`` command) into its training directory, whose
frozen weights and record (their SHA-256) the registration names.  An arm reads them with
``weights: NAME``, the SHA-256 enters the ledger opener's hashes
(:attr:`protocol.plan_model.ClaimPlan.opener_records`) and the estimate prices the training
by the learner's ``seconds``.  A profile shrinks the learner's ``budget`` key (the cap
``shrink.<shrink>`` or ``claims.<id>.weights.<name>.<budget>``), its checkpoint spacing
(``shrink.checkpoints`` or ``claims.<id>.weights.<name>.every``) and the searches of the
policies its declaration names, as it shrinks arms'; each shrink is listed on the page.
(The module keeps its first learner's name; docs/training.md, "Learners".)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from engines.filters.kf_weights import KF_WEIGHTS
from engines.learners import LEARNERS, get_learner
from engines.learners.registry import LearnerKind
from protocol.claim import Claim, kf_q_weights
from protocol.commands import train
from protocol.parts.base import KeyCheck, ProfileSettings, moves_text, names_of
from protocol.paths import Paths

#: the curve's games at every checkpoint of kf-q weights (the same for every claim)
CURVE_GAMES = 64


def check_kf_q(doc: dict[str, Any], chk: KeyCheck) -> None:
    """Each kf-q weights' name (not a named vector's; its keys are its learner's check), and
    every arm that names weights as a string: a kf arm's a named vector or weights this
    claim trains for a kf arm, another arm's weights this claim trains for its kind."""
    learned = kf_q_weights(doc)
    for name, w in learned.items():
        if get_learner(w["train"]["learner"]).plays == "kf" and name in KF_WEIGHTS:
            chk.fail(f"weights.{name}", f"{name!r} is a named KF vector "
                     "(engines/filters/kf_weights.py): give the trained weights another name")
    for name, arm in doc["arms"].items():
        w, play = arm.get("weights"), arm["play"]
        if not isinstance(w, str) or (play == "kf" and w in KF_WEIGHTS):
            continue
        if play not in {k.plays for k in LEARNERS.values()}:
            continue  # an arm that takes no weights: refused as such (protocol.arms)
        mine = {n: x for n, x in learned.items()
                if get_learner(x["train"]["learner"]).plays == play}
        if w in mine:
            continue
        if play == "kf":
            chk.fail(f"arms.{name}.weights", f"{w!r} is neither a named vector "
                     f"({', '.join(KF_WEIGHTS)}) nor kf-q weights this claim trains "
                     f"({names_of(mine)})")
        chk.fail(f"arms.{name}.weights", f"{w!r} is not weights this claim trains for a "
                 f"{play} arm ({names_of(mine)})")


@dataclass(frozen=True)
class KfTraining:
    """One trained weights of a learner that ``plays`` (kf-q, ridge-q) at this profile's
    budget: its planned recipe, directory and estimated seconds."""

    claim: str
    name: str
    learner: str
    planned: dict[str, Any]
    dir: str
    seconds: float

    @property
    def kind(self) -> LearnerKind:
        """The learner's registration."""
        return get_learner(self.learner)

    @property
    def size(self) -> int:
        """The planned budget (kf-q's and ridge-q's games)."""
        return self.planned[self.kind.budget]

    @property
    def weights_file(self) -> str:
        """The frozen weights (a file or a weights directory, as the learner writes them)."""
        return f"{self.dir}/{self.kind.frozen[0]}"

    @property
    def record(self) -> str:
        """The frozen weights' record (their SHA-256)."""
        return f"{self.dir}/{self.kind.frozen[1]}"

    @property
    def curve(self) -> str | None:
        """kf-q's curve and health at every checkpoint (None: another learner's)."""
        if self.kind.curve != "kf-q":
            return None
        from engines.learners.kf_q_train import CURVE

        return f"{self.dir}/{CURVE}"

    def command(self) -> str:
        """The ``drop7`` line that trains (or resumes) these weights to their end."""
        return train(self.learner, self.recipe(), self.size, self.dir, 0)

    def recipe(self) -> dict[str, Any]:
        """What determines the weights, with the checkpoint spacing."""
        extra = {"validation_games": CURVE_GAMES} if self.kind.curve == "kf-q" else {}
        return {**self.planned, **extra}


def _shrunk_policy(prof: ProfileSettings, text: str) -> str:
    """A policy's text with its search shrunk as an arm's is (unchanged when not a search)."""
    from engines.play.spec import SearchSpec, parse_policy

    spec = parse_policy(text)
    if not isinstance(spec, SearchSpec):
        return text
    depth, strata = prof.search(spec.depth, spec.strata)
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


def plan_kf_training(claim: Claim, prof: ProfileSettings, paths: Paths,
                     shrunk: list[str]) -> dict[str, KfTraining]:
    """Every weights of a learner that ``plays`` at this profile's budget (each shrink listed
    in ``shrunk``)."""
    from protocol.arms import decision_seconds
    from protocol.costs import game_seconds

    def game(text: str) -> float:
        from engines.play.spec import parse_policy

        return game_seconds(decision_seconds(parse_policy(text)))

    out = {}
    for name, w in claim.kf_q.items():
        kind = get_learner(w["train"]["learner"])
        t = {**kind.defaults, **w["train"]}
        size = prof.size(("weights", name, kind.budget), kind.shrink, t[kind.budget])
        planned = {**t, kind.budget: size}
        if kind.spacing is not None:
            every = _spacing(claim, prof, name, kind, t[kind.spacing], size)
            planned[kind.spacing] = every
            if (size, every) != (t[kind.budget], t[kind.spacing]):
                shrunk.append(f"{name}: trained {moves_text(size)} {kind.budget}, a checkpoint "
                              f"every {moves_text(every)} (declared: "
                              f"{moves_text(t[kind.budget])} every "
                              f"{moves_text(t[kind.spacing])})")
        elif size != t[kind.budget]:
            shrunk.append(f"{name}: trained on {moves_text(size)} {kind.budget} (declared: "
                          f"{moves_text(t[kind.budget])})")
        for key in kind.policies:
            planned[key] = _shrunk_policy(prof, t[key])
            if planned[key] != t[key]:
                shrunk.append(f"{name}: its {key} {planned[key]} (declared: {t[key]})")
        out[name] = KfTraining(claim.id, name, kind.name, planned,
                               paths.path("train", claim=claim.id, weights=name),
                               kind.seconds(planned, game) if kind.seconds else 0.0)
    return out

