"""The figures of the weights a claim trains, for a result's ``metrics.training``.

A reader of the register must find in the result how every trained weights of
the claim was made and how healthy its training was, without the report page
(docs/records.md, "Metrics").  One entry per weights, by name, from the files
the report job reads: for weights trained in checkpointed segments (TC-TD,
TreeStrap: curve kind ``health``) the plan's recipe, the training health
(:class:`analysis.health.TrainingHealth`'s JSON) and the validation curve
(:func:`protocol.stages.validation_curve`'s); for a learner trained by one job
(:mod:`protocol.parts.direct_training`) its recipe, its curve file (kf-q's
checkpoints, a weight search's or nnue-evolve's generations, nnue-distil's
epochs; ridge-q has none) and its frozen record.  Each curve kind's figures are
named once here (:data:`KINDS`), in the register's camelCase; a figure the file
lacks is left out, as the page leaves out its column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from contracts.cli_numbers import seed_hex
from engines.learners import get_learner
from protocol.records.ids import RecordError
from protocol.records.metrics import CONTRAST_FIGURES, pick
from protocol.stages import POINT_KEYS

#: a validation curve point -> its key: the step, the checkpoint's arm, the margin and the
#: paired contrast's figures (named as a contrast's in ``metrics.contrasts``)
VALIDATION_POINT = {"step": "step", "arm": "arm", "margin": "margin",
                    **{out: key for out, key in CONTRAST_FIGURES.items() if key in POINT_KEYS},
                    "meanMovesCandidate": "mean_moves_candidate",
                    "meanMovesBaseline": "mean_moves_baseline"}
#: the training health's summary -> its key (``firstSeed`` is written as ``firstSeedHex``)
HEALTH_FIGURES = {"healthy": "healthy", "problems": "problems", "games": "games",
                  "alpha": "alpha", "zChange": "z_change"}
#: a checkpoint's health (:class:`analysis.health.HealthPoint`) -> its field
HEALTH_POINT = {"step": "step", "games": "games", "onePlyMean": "one_ply_mean",
                "onePlyCi95": "one_ply_ci95", "randomMean": "random_mean",
                "randomCi95": "random_ci95", "vsRandom": "vs_random",
                "vsRandomCi95": "vs_random_ci95", "startMean": "start_mean",
                "startCi95": "start_ci95", "baseline": "baseline", "lead": "lead",
                "leadLower95": "lead_lb", "leadUpper95": "lead_ub", "noLead": "no_lead",
                "worseThanRandom": "worse_than_random", "change": "change",
                "changeUpper": "change_ub", "changeLower": "change_lb", "fell": "fell",
                "trainGames": "train_games", "trainMeanScore": "train_mean_score"}
#: a segmented training's plan (the claim description's ``trained``) -> its key
PLAN_FIGURES = {"layout": "layout", "moves": "moves", "every": "every", "steps": "steps",
                "selection": "select", "init": "init"}


@dataclass(frozen=True)
class CurveKind:
    """The figures of one kind of a direct learner's curve file and frozen record, each
    ``figure -> key`` (a dotted key reads into a nested object)."""

    point: Mapping[str, str] = field(default_factory=dict)  # a curve point's
    points: str = "curve"  # the curve file's key of its points
    summary: Mapping[str, str] = field(default_factory=dict)  # the curve file's own
    record: Mapping[str, str] = field(default_factory=dict)  # the frozen record's


#: a direct learner's curve kind -> its figures
KINDS = {
    "kf-q": CurveKind(  # drop7 kf-train: curve.json and frozen.json
        points="points",
        point={"games": "games", "moves": "moves", "validationGames": "validation_games",
               "greedyMoves": "greedy_moves", "greedyScore": "greedy_score",
               "randomMoves": "random_moves", "deltaMoves": "delta_moves",
               "deltaSe": "delta_se", "winsTiesLosses": "wins_ties_losses",
               "trainGames": "health.games", "meanAbsError": "health.mean_abs_error",
               "trainMeanMoves": "health.mean_moves", "finite": "health.finite"},
        record={"games": "games", "moves": "moves", "weights": "weights",
                "startMoves": "start_moves", "finalMoves": "final_moves",
                "randomMoves": "random_moves", "configSha256": "config_sha256"}),
    "ridge-q": CurveKind(  # drop7 fit-q: one fit, its report in the manifest's fit
        record={"roots": "fit.roots", "rows": "fit.rows", "games": "fit.games",
                "lambda": "fit.lambda", "target": "fit.target",
                "top1InSample": "fit.top1_in_sample", "top1SplitHalf": "fit.top1_split_half",
                "reference": "fit.reference", "rootsPolicy": "fit.roots_policy",
                "seedRole": "fit.seed_role", "firstGame": "fit.first_game",
                "gamesPlayed": "fit.games_played", "every": "fit.every",
                "strata": "fit.strata", "reveals": "fit.reveals"}),
    "search": CurveKind(  # a weight search's or nnue-evolve's curve.json, per generation
        point={"generation": "generation", "best": "best", "mean": "mean",
               "control": "control", "frozenSha256": "frozen_sha256",
               "healthOnePly": "health_one_ply", "healthStart": "health_start",
               "healthRandom": "health_random"},
        summary={"generations": "generations", "fitness": "fitness",
                 "frozenRule": "frozen.rule", "configSha256": "config_sha256",
                 "selectionFinalists": "selection.finalists",
                 "selectionMeans": "selection.means", "selectionWinner": "selection.winner",
                 "selectionWinnerSha256": "selection.winner_sha256"},
        record={"hidden": "hidden", "mid": "mid", "entries": "entries"}),
    "distil": CurveKind(  # nnue-distil's distil.json, per epoch
        point={"epoch": "epoch", "trainLoss": "train_loss", "heldoutLoss": "heldout_loss",
               "heldoutTop1": "heldout_top1"},
        summary={"epochs": "epochs", "trainRoots": "roots.train",
                 "heldoutRoots": "roots.held_out", "heldoutTop1": "top1.network",
                 "heldoutTop1RandomStart": "top1.random_start",
                 "configSha256": "config_sha256"},
        record={"hidden": "hidden", "mid": "mid", "entries": "entries"}),
}


def health_metrics(health: Mapping[str, Any]) -> dict[str, Any]:
    """A segmented training's health: healthy, the problems, the games and first seed of its
    one-ply checks, the fall intervals' level and every checkpoint's figures."""
    first = health.get("first_seed")
    return {**pick(health, HEALTH_FIGURES),
            "firstSeedHex": None if first is None else seed_hex(int(first)),
            "points": [pick(p, HEALTH_POINT) for p in health["points"]]}


def segmented_entry(learner: str, plan: Mapping[str, Any], health: Mapping[str, Any],
                    curve: Mapping[str, Any]) -> dict[str, Any]:
    """The entry of weights trained in checkpointed segments: its learner, recipe, training
    health and validation curve (its comparator and every checkpoint's paired figures); the
    frozen SHA-256 is filled by :func:`with_frozen`."""
    return {"learner": learner, "curveKind": get_learner(learner).curve, "frozenSha256": None,
            **pick(plan, PLAN_FIGURES), "health": health_metrics(health),
            "validationCurve": {"comparator": curve["comparator"],
                                "points": [pick(p, VALIDATION_POINT) for p in curve["points"]]}}


def direct_entry(training: Mapping[str, Any], curve: Mapping[str, Any] | None,
                 record: Mapping[str, Any]) -> dict[str, Any]:
    """The entry of weights a learner trained by one job, from the plan's description
    (:meth:`protocol.parts.direct_training.DirectTraining.describe`), its curve file (None:
    ridge-q's) and its frozen record: the learner, what it produces, its recipe and what the
    profile shrank of it, the frozen SHA-256, the curve's points and figures, the record's."""
    kind = training["curve_kind"]
    if kind not in KINDS:
        raise RecordError(f"weights {training['name']}: curve kind {kind!r} has no figures "
                         f"for the records ({', '.join(KINDS)})")
    figures = KINDS[kind]
    out = {"learner": training["learner"], "curveKind": kind,
           "frozenSha256": record["sha256"], "produces": training["produces"],
           "recipe": dict(training["recipe"]), "shrunk": list(training["shrunk"])}
    if curve is not None:
        out.update(pick(curve, figures.summary))
        if figures.point:
            out["curve"] = [pick(p, figures.point) for p in curve[figures.points]]
    record_figures = pick(record, figures.record)
    if record_figures:
        out["record"] = record_figures
    return out


def training_metrics(plan: Mapping[str, Any], *, curves: Mapping[str, Mapping[str, Any]],
                     health: Mapping[str, Mapping[str, Any]],
                     direct: Mapping[str, tuple[Mapping[str, Any], Mapping[str, Any] | None,
                                                Mapping[str, Any]]]) -> dict[str, Any]:
    """``metrics.training`` of a claim, by weights name: its segmented trainings (the plan's
    ``trained``, with their validation ``curves`` and ``health`` by weights, each required)
    and its direct ones (``direct``: name -> (description, curve or None, record)); empty
    when it trains nothing."""
    trained = plan.get("trained", {})
    for what, given in (("validation curve", curves), ("training health", health)):
        missing = sorted(set(trained) - set(given))
        if missing:
            raise RecordError(f"claim {plan['id']}: no {what} of the trained weights "
                              f"{', '.join(missing)} was given to the records")
        wrong = sorted(n for n in trained if given[n].get("weights") != n)
        if wrong:
            raise RecordError(f"claim {plan['id']}: the {what} given for {', '.join(wrong)} "
                              "is another weights' (its key weights)")
    out = {name: segmented_entry(t["learner"], t, health[name], curves[name])
           for name, t in trained.items()}
    out.update({name: direct_entry(*sources) for name, sources in direct.items()})
    return dict(sorted(out.items()))


def with_frozen(training: Mapping[str, Mapping[str, Any]], frozen: Mapping[str, str],
                claim: str) -> dict[str, Any]:
    """``training`` with the frozen SHA-256 of each segmented training the ledger recorded
    (``frozen``: ``claim/weights -> SHA-256``, known once an arm read it in the screen)."""
    return {name: {**entry, "frozenSha256": entry.get("frozenSha256")
                   or frozen.get(f"{claim}/{name}")}
            for name, entry in training.items()}


def check_training(plan: Mapping[str, Any], training: Mapping[str, Any] | None) -> None:
    """Refuse figures of weights the claim does not declare (another claim's figures)."""
    declared = plan["declaration"].get("weights") or {}
    unknown = sorted(set(training or {}) - set(declared))
    if unknown:
        raise RecordError(f"claim {plan['id']}: training figures of {', '.join(unknown)}, "
                          f"weights the claim does not declare ({', '.join(declared) or 'none'})")
