"""A sequential screen's looks: which exist, which are still to make, what each reads.

Look ``k`` is a checkpoint over every arm's games of looks ``1..k``; the
games of look ``k + 1`` exist only once look ``k`` said continue, so a
stopped screen plays nothing more.  The workflow asks these functions and
hands them how to get a decision (Snakemake's checkpoint); the decisions
themselves are decided by the look job (:func:`analysis.sequential.design.decide`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from analysis.sequential.design import CONTINUE
from contracts.json_file import load_json
from protocol.paths import Paths
from protocol.plan_model import ClaimPlan


def look_games(plan: ClaimPlan, paths: Paths, k: int,
               arms: Sequence[str] | None = None) -> list[str]:
    """The games files of looks ``1..k`` (``arms``: all), look by look: what look ``k`` reads."""
    arms = list(plan.arms) if arms is None else arms
    return [paths.path("games", claim=plan.id, block=plan.look_label(j), arm=a)
            for j in range(1, k + 1) for a in arms]


def look_file(plan: ClaimPlan, paths: Paths, k: int) -> str:
    """Look ``k``'s decision file (1-based)."""
    return paths.path("look", claim=plan.id, block=plan.label, look=k)


def decision_on_disk(plan: ClaimPlan, paths: Paths, k: int) -> str | None:
    """Look ``k``'s decision when its file exists and is newer than every games file it read,
    else None (it is still to make, through the checkpoint).

    After a crash between looks, Snakemake's first pass over the DAG does not follow a chain
    of checkpoints made before (look 1 present, look 2 missing: the job waiting for both
    would run with look 1's input only), so a decision already made is read as it is and
    only the first look still to make goes through the checkpoint."""
    made = Path(look_file(plan, paths, k))
    if not made.exists():
        return None
    stamp = made.stat().st_mtime
    for game in map(Path, look_games(plan, paths, k)):
        if not game.exists() or game.stat().st_mtime > stamp:
            return None
    return str(load_json(made)["decision"])


def played_looks(plan: ClaimPlan, decision: Callable[[int], str]) -> list[int]:
    """The looks a sequential screen makes: up to the first that does not say continue
    (``decision(k)``: look ``k``'s)."""
    assert plan.sequential is not None
    out = []
    for k in range(1, len(plan.sequential.looks) + 1):
        out.append(k)
        if decision(k) != CONTINUE:
            break
    return out


def check_continued(plan: ClaimPlan, k: int, decision: str) -> None:
    """Nothing when look ``k`` said continue; a request for the games past a stopping look is
    an error, never a game."""
    if decision != CONTINUE:
        raise ValueError(f"claim {plan.id}: look {k} decided {decision}; the games of look "
                         f"{k + 1} are never played")


def screen_games(plan: ClaimPlan, paths: Paths, decision: Callable[[int], str],
                 arms: Sequence[str] | None = None) -> list[str]:
    """The games files of a claim's screen (``arms``: all): one per arm, or for a sequential
    screen one per arm and look it made."""
    arms = list(plan.arms) if arms is None else arms
    if plan.sequential is None:
        return [paths.path("games", claim=plan.id, block=plan.label, arm=a) for a in arms]
    return [paths.path("games", claim=plan.id, block=plan.look_label(k), arm=a)
            for k in played_looks(plan, decision) for a in arms]
