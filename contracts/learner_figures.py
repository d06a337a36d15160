"""The figures a learner's curve gives: their names, meanings and what each needs.

A learner trained by one job (docs/training.md, "Learners trained by one job") writes a
curve and a frozen record.  A ``learner-at-least`` or ``learner-at-most`` reading
(docs/claims.md) reads one named figure of them against a threshold.  The names live here,
at the bottom layer, because three layers agree on them: each learner's registration names
the figures it gives (:mod:`engines.learners.registry`), the statistics compute them from the
files (:mod:`analysis.learner_readings`) and the declaration refuses a figure the named
weights' learner does not give (:mod:`protocol.parts.readings`).
"""

from __future__ import annotations

from dataclasses import dataclass

#: the generations a figure over the last generations reads when ``last`` is left out
LAST = 10


@dataclass(frozen=True)
class LearnerFigure:
    """One figure of a learner's curve or record."""

    name: str
    #: what it is, in one line (the docs and a refusal say it)
    meaning: str
    #: read over the last ``last`` generations of the curve (the reading's optional ``last``)
    over_generations: bool = False
    #: the key of the learner's ``train`` declaration it needs (None: always given)
    needs: str | None = None


FIGURES: dict[str, LearnerFigure] = {f.name: f for f in (
    LearnerFigure("holdout_top1", "the frozen network's held-out top-1 against the teacher "
                  "(the share of held-out roots where it picks a column the teacher rates "
                  "best)"),
    LearnerFigure("best_gain", "the last generation's best candidate mean minus its control "
                  "(the start) on the same games, in the fitness's units"),
    LearnerFigure("mean_above_reference_share", "the share of the last generations whose "
                  "population mean is above the reference search's mean on the same games",
                  over_generations=True, needs="reference"),
    LearnerFigure("mean_minus_reference", "the population mean minus the reference search's "
                  "mean on the same games, averaged over the last generations, in points",
                  over_generations=True, needs="reference"),
    LearnerFigure("final_moves", "the frozen six weights' mean greedy game length in moves on "
                  "the curve's validation games (its last checkpoint)"),
)}


def figure_problem(name: object) -> str | None:
    """Why ``name`` is not a learner figure (None when it is)."""
    if name in FIGURES:
        return None
    return f"{name!r} is no learner figure ({', '.join(FIGURES)})"


def last_problem(last: object) -> str | None:
    """Why ``last`` cannot be a count of last generations (None when it can)."""
    if isinstance(last, bool) or not isinstance(last, int) or not 1 <= last <= 10_000:
        return f"{last!r} is not a whole number of generations in 1..10,000"
    return None
