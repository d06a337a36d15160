"""The linear learner does not collapse: its one-ply play stays sound checkpoint after checkpoint.

Before the fix the training policy valued a game-ending move at 0 while the
bias-free linear value goes negative on crowded boards, so the policy chose
to end games, shorter games taught lower values, and one-ply play fell below
random (at alpha 0.001 between 5e6 and 1e7 moves; at alpha 0.01 by 1e6).
The slow test trains at alpha 0.01 so that a collapse of that kind shows at
a small budget, and reads the same health check the workflow's gate reads.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from analysis.health import training_health
from cli.main import main
from engines.drop7 import core
from engines.drop7.board import TERMINAL_UTILITY
from engines.seedbank import load_bank
from engines.train import kernel as kern
from engines.train.evaluate import UNSEEN_GAME, evaluate
from engines.train.linear_td import _DEATH, _RISE, _sample_values

_NULL = np.zeros(1, dtype=np.float32)
#: points per raw term of the old learner's 1e7-move checkpoint (one ply 60,403 < random 75,594)
COLLAPSED = [13382.1, -78.5, -1640.0, -5241.7, -2589.6, -4849.1, -2649.8, 1943.4, -247.6,
             -7166.3, -4791.6, -1928.8, -8657.1, -100.3, 983.5, 2955.7, 1.0, -166.1]


def _game_ending_choices(weights: np.ndarray, seeds: np.ndarray) -> tuple[int, int]:
    """(moves chosen that end the game while another move survives, moves played)."""
    from engines.ntuple.layouts import get_layout

    spec = get_layout("null").spec
    work = kern.new_work(spec)
    t = np.zeros(len(weights))
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    bad = moves = 0
    for seed in seeds:
        core.new_game(seed, state, cols)
        while not core.finished(state):
            kern.play_samples(_NULL, spec, cols, state[core.ST_MOVES_REMAINING],
                              state[core.ST_NEXT_DISC], work)
            _sample_values(weights / _RISE, work, t)
            c, _ = kern.best_column(work)
            mr, count = work[kern.W_SINFO][:, kern.SI_MR], work[kern.W_SCOUNT]
            dies = [bool(count[k]) and all(mr[7 * k + s] < 0 for s in range(count[k]))
                    for k in range(7)]
            survivable = any(count[k] and not dies[k] for k in range(7))
            bad += int(dies[c] and survivable)
            core.advance(seed, c, state, cols, scratch, out)
            moves += 1
    return bad, moves


def test_a_game_ending_sample_is_valued_as_the_search_values_it() -> None:
    assert pytest.approx(TERMINAL_UTILITY / _RISE) == _DEATH


def test_the_training_policy_never_ends_a_game_it_can_go_on_with() -> None:
    """The weights the old learner reached at 1e7 moves (alpha 0.001), which value many crowded
    boards below zero: ending the game must still be the last resort, as in search."""
    weights = np.array(COLLAPSED)
    seeds = load_bank().training(UNSEEN_GAME, 30)
    bad, moves = _game_ending_choices(weights, seeds)
    assert moves > 30 * 10 and bad == 0


@pytest.mark.slow
def test_linear_learner_does_not_collapse(tmp_path: Path, capsys) -> None:
    """alpha 0.01, 1.25e6 moves, a checkpoint every 2.5e5: every checkpoint one ply beats random
    play and none falls beyond its interval (the old learner fell below random at 1e6)."""
    out = tmp_path / "lin"
    assert main(["train", "--layout", "linear", "--alpha", "0.01", "--moves", "1250000",
                 "--every", "250000", "--out", str(out)]) == 0
    capsys.readouterr()
    seeds = load_bank().training(UNSEEN_GAME, 300)
    steps = sorted(out.glob("step-*"), key=lambda p: int(p.name.split("-")[1]))
    evals = [evaluate(p, seeds, per_game=True) for p in steps]
    manifests = [json.loads((p / "manifest.json").read_text()) for p in steps]
    health = training_health("linear", evals, manifests)
    assert len(health["points"]) == 5
    assert health["healthy"], health["problems"]
    for p in health["points"]:
        assert p["one_ply_mean"] > 1.5 * p["random_mean"], p


def _health_of(tmp_path: Path, alpha: str | None, moves: int = 250_000) -> dict:
    """The training health of a linear run of ``moves`` (two checkpoints), on 300 games."""
    out = tmp_path / f"lin-{alpha}"
    flags = ["--alpha", alpha] if alpha is not None else []
    assert main(["train", "--layout", "linear", *flags, "--moves", str(moves), "--every",
                 str(moves // 2), "--out", str(out)]) == 0
    seeds = load_bank().training(UNSEEN_GAME, 300)
    steps = sorted(out.glob("step-*"), key=lambda p: int(p.name.split("-")[1]))
    evals = [evaluate(p, seeds, per_game=True) for p in steps]
    manifests = [json.loads((p / "manifest.json").read_text()) for p in steps]
    return training_health("linear", evals, manifests)


@pytest.mark.slow
def test_a_learner_above_random_but_below_its_start_is_flagged(tmp_path: Path, capsys) -> None:
    """The issue's recipe: alpha 1.0 plays one ply a little above random (77,000 against
    73,000 at 2.5e5 moves) and far below the weights it started from (103,000): flagged at
    every checkpoint, with the lead's interval; the default step is healthy on the same seeds
    (125,000, its lead over the start +22,000 +- 5,700)."""
    broken = _health_of(tmp_path, "1.0")
    capsys.readouterr()
    assert not broken["healthy"] and len(broken["problems"]) == 2
    for p in broken["points"]:
        assert p["no_lead"] and p["baseline"] == "start" and p["lead_ub"] < 0, p
        assert not p["worse_than_random"]
    assert "not significantly above the untrained start" in broken["problems"][0]
    default = _health_of(tmp_path, None)
    assert default["healthy"], default["problems"]
    assert all(p["lead_lb"] > 0 and p["baseline"] == "start" for p in default["points"])
    assert default["points"][0]["start_mean"] == broken["points"][0]["start_mean"]

