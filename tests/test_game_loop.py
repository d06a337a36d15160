"""One home for a game's arrays and the game loop over a player (engines/drop7/game_loop.py);
the compiled loops that keep their own are the ones docs/architecture.md lists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np

from engines.drop7 import baselines, core
from engines.drop7.game_loop import game_arrays, play_out
from engines.drop7.trajectory import replay_seeded

ROOT = Path(__file__).resolve().parent.parent
HOME = "engines/drop7/game_loop.py"
#: where the engine's sizes are defined (and used to define others)
DEFINED = {"engines/drop7/core.py", "engines/drop7/chance.py"}


def _names_used(tree: ast.AST) -> set[str]:
    return ({n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)})


def _starts_games(tree: ast.AST) -> bool:
    """Whether the code calls the engine's ``new_game`` (bare, or as ``core.new_game``)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Call):
            f = n.func
            if (isinstance(f, ast.Name) and f.id == "new_game") or (
                    isinstance(f, ast.Attribute) and f.attr == "new_game"
                    and isinstance(f.value, ast.Name) and f.value.id == "core"):
                return True
    return False


def _listed_loops() -> set[str]:
    """The files docs/architecture.md names in its game-loop section."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## The game loop", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`(engines/[\w/]+\.py)`", section))


def test_game_arrays_are_fresh_zeros_of_the_engine_sizes() -> None:
    state, cols, scratch, out = game_arrays()
    assert [a.shape for a in (state, cols, scratch, out)] == \
        [(core.ST_LEN,), (7,), (2 * core.SCRATCH_LEN,), (core.OUT_LEN,)]
    assert all(a.dtype == np.int64 and not a.any() for a in (state, cols, scratch, out))
    assert game_arrays()[0] is not state


def test_play_out_plays_what_the_compiled_baseline_loop_plays() -> None:
    """The Python loop and the compiled one give the same games, bit for bit."""
    seeds = np.arange(1, 6, dtype=np.uint64)
    compiled = np.zeros((len(seeds), core.ST_LEN), dtype=np.int64)
    baselines.play_baseline_games(seeds, baselines.POLICY_CENTRE_FIRST, compiled)
    for g, seed in enumerate(seeds):
        moves: list[int] = []

        def choose(state, cols, seed=seed, moves=moves) -> int:
            moves.append(int(baselines.baseline_choice(baselines.POLICY_CENTRE_FIRST, seed,
                                                       state, cols)))
            return moves[-1]

        final = play_out(seed, choose)
        assert np.array_equal(final, compiled[g])
        _, replayed, _ = replay_seeded(int(seed), moves)
        assert np.array_equal(replayed, final)


def test_only_the_home_and_the_listed_compiled_loops_make_engine_scratch() -> None:
    """The scratch a move is played in is sized in one place; a loop that starts games
    (``new_game``) is the home or a loop docs/architecture.md names, with its reason."""
    scratch, starts = set(), set()
    for path in sorted((ROOT / "engines").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if name not in DEFINED and "SCRATCH_LEN" in _names_used(tree):
            scratch.add(name)
        if name not in DEFINED and _starts_games(tree):
            starts.add(name)
    listed = _listed_loops()
    assert HOME in scratch and HOME in listed
    assert scratch <= listed, sorted(scratch - listed)
    assert starts <= listed, sorted(starts - listed)
    assert all((ROOT / p).is_file() for p in listed), sorted(listed)
