"""The page's section of weights a weight search or a network learner trains by one job.

Each section says the learner, its recipe as this profile ran it (and what the profile
shrank of it), the frozen weights' SHA-256, and the learner's curve as a table: for a weight
search (``cmaes``, ``cem``) and ``nnue-evolve`` the best and mean candidate score and the
control's per generation (their ``curve.json``), with the one-ply health where the search
played it, nnue-evolve's re-selection and its reference search's mean when declared; for
``nnue-distil`` the training and held-out loss per epoch, the held-out top-1 of the epochs
it probed (``probe_every``) and the frozen network's beside its random start's
(``distil.json``; the frozen network is the last epoch's, not the best-probed, so the figure
is not selected on).
The workflow passes the files (its report job); nothing here reads a path of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

#: the health columns of a weight search's curve point, as the page names them
HEALTH = {"health_one_ply": "frozen one ply", "health_start": "start one ply",
          "health_random": "random"}
#: players beside the candidates on a generation's own games, as the page names them
SIDE = {"reference": "reference (fair leaf)"}


@dataclass(frozen=True)
class LearnerCurveSection:
    """One trained weights as the page shows them (see the module docstring)."""

    name: str
    learner: str
    produces: str
    recipe: dict[str, Any]
    shrunk: list[str]
    sha256: str
    columns: list[str]
    rows: list[list[str]]
    notes: list[str]

    @classmethod
    def from_json(cls, training: Mapping[str, Any], curve: Mapping[str, Any],
                  record: Mapping[str, Any]) -> LearnerCurveSection:
        """A section from the plan's description of the training
        (:meth:`protocol.parts.direct_training.DirectTraining.describe`), the learner's curve
        file and its frozen record."""
        if training["curve_kind"] == "distil":
            columns, rows, notes = _distil(curve)
        else:
            columns, rows, notes = _search(curve)
        return cls(training["name"], training["learner"], training["produces"],
                   dict(training["recipe"]), list(training["shrunk"]), str(record["sha256"]),
                   columns, rows, notes)


def _points(n: float) -> str:
    return f"{n:,.0f}"


def _search(curve: Mapping[str, Any]) -> tuple[list[str], list[list[str]], list[str]]:
    """A weight search's or nnue-evolve's generations."""
    points = list(curve["curve"])
    health = [k for k in HEALTH if points and k in points[0]]
    # a search by game length (``fitness: moves``) tells its best, mean and control in moves
    moves = curve.get("fitness") == "moves"
    fit = (lambda n: f"{n:,.2f}") if moves else _points
    # nnue-evolve's reference search on the same games, when declared
    side = [k for k in SIDE if points and k in points[0]]
    columns = ["generation", "best", "mean", "control", *(SIDE[k] for k in side),
               *(HEALTH[k] for k in health)]
    rows = [[str(p["generation"]), fit(p["best"]), fit(p["mean"]),
             fit(p["control"]), *(fit(p[k]) for k in side), *(_points(p[k]) for k in health)]
            for p in points]
    notes = [f"frozen by the rule {curve['frozen']['rule']!r} after generation "
             f"{curve['generations']}"]
    if curve.get("start_sha256"):  # a start this claim trained, checked against its record
        notes.append(f"started from weights this claim trained, SHA-256 "
                     f"{curve['start_sha256']}")
    if moves:
        notes.append("candidates scored by their games' mean length in moves (best, mean and "
                     "control); the one-ply health in points")
    sel = curve.get("selection")
    if sel:
        best = max(sel["means"])
        notes.append(f"re-selected among the last generation's {len(sel['finalists'])} best on "
                     f"{len(sel['seeds'])} fresh games: {sel['winner']} (mean {_points(best)})")
    return columns, rows, notes


def _distil(curve: Mapping[str, Any]) -> tuple[list[str], list[list[str]], list[str]]:
    """nnue-distil's epochs and its held-out top-1."""
    probed = any("heldout_top1" in p for p in curve["curve"])
    rows = [[str(p["epoch"]), f"{p['train_loss']:.5f}", f"{p['heldout_loss']:.5f}",
             *([f"{p['heldout_top1']:.3f}" if "heldout_top1" in p else "-"] if probed else [])]
            for p in curve["curve"]]
    top1, roots = curve["top1"], curve["roots"]
    notes = [f"held-out top-1 of the frozen network {top1['network']:.3f} (its random start "
             f"{top1['random_start']:.3f}) on {roots['held_out']:,} held-out roots; "
             f"{roots['train']:,} training roots"]
    columns = ["epoch", "training loss", "held-out loss", *(["held-out top-1"] if probed else [])]
    return columns, rows, notes
