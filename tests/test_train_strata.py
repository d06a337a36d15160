"""play_strata (every chance sample of a move at once) against play_sample, sample by sample."""

from __future__ import annotations

import numpy as np
from engine_cases import random_grid

from engines.drop7 import core
from engines.drop7.board import pack
from engines.drop7.chance import (
    RES_LEN,
    RES_MR,
    RES_OVER,
    RES_POINTS,
    RES_REVEALS,
    RES_WAVES,
    STRATA_SCRATCH_LEN,
    canonicalise,
    chance_key,
    mirror_precedes,
    mirrored_is_smaller,
    play_sample,
    play_strata,
)
from engines.drop7.game_loop import play_out


def _compare(cols, mr, disc, strata, counts) -> None:
    """Every legal column of one position: play_strata's rows == play_sample's samples."""
    scratch = np.zeros(STRATA_SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    boards = np.zeros((strata + 2, 7), dtype=np.int64)
    res = np.zeros((strata + 2, RES_LEN), dtype=np.int64)
    canon = np.zeros(7, dtype=np.int64)
    canonicalise(cols, canon)
    for c in range(7):
        if not core.is_legal(canon, c):
            continue
        key = np.uint64(chance_key(canon, disc, mr, c))
        work = canon.copy()
        rows = play_strata(work, c, disc, mr, key, strata, boards, res, 2, scratch, out)
        counts["columns"] += 1
        for s in range(strata):
            b = canon.copy()
            _, mr2 = play_sample(b, c, disc, mr, key, strata, s, scratch, out)
            if s == 0 and out[core.OUT_REVEALS] == 0:
                assert rows == 1
            else:
                assert rows == strata
                counts["revealing"] += s == 0
            got = (list(boards[2 + s]), res[2 + s, RES_MR], res[2 + s, RES_POINTS],
                   res[2 + s, RES_OVER], res[2 + s, RES_WAVES], res[2 + s, RES_REVEALS])
            want = (list(b), mr2, out[core.OUT_POINTS], out[core.OUT_OVER],
                    out[core.OUT_WAVES], out[core.OUT_REVEALS])
            assert got == want, (cols.tolist(), mr, disc, c, s)
            counts["rises"] += int(mr == 1 and not out[core.OUT_OVER])
            counts["chains"] += int(out[core.OUT_WAVES] >= 3)
            if rows == 1:
                break


def test_strata_equal_samples_on_game_positions() -> None:
    """Positions of baseline games (settled, as in training), 7 and other strata counts."""
    counts = dict(columns=0, revealing=0, rises=0, chains=0)
    for policy in (0, 1, 2):
        for g in range(12):
            seed = np.uint64(0x5000000000000000 + 97 * g + policy)

            def compare(st, cols, policy=policy, seed=seed) -> int:
                strata = (7, 7, 3, 12)[int(st[core.ST_MOVES_PLAYED]) % 4]
                _compare(cols, int(st[core.ST_MOVES_REMAINING]), int(st[core.ST_NEXT_DISC]),
                         strata, counts)
                return core.baseline_choice(policy, seed, st, cols)

            play_out(seed, compare)
    assert counts["revealing"] > 300 and counts["rises"] > 300 and counts["chains"] > 50


def test_strata_equal_samples_on_random_boards() -> None:
    """Random boards, many greys, latent poppers allowed: still sample for sample."""
    rng = np.random.default_rng(11)
    counts = dict(columns=0, revealing=0, rises=0, chains=0)
    for _ in range(1500):
        grid = random_grid(rng, grey_share=float(rng.random() * 0.8),
                           max_height=int(rng.integers(1, 7)))
        cols = pack(np.array(grid, dtype=np.int8))
        if core.legal_mask(cols) == 0:
            continue
        _compare(cols, int(rng.integers(1, 6)), int(rng.integers(1, 8)), 7, counts)
    assert counts["columns"] > 5000 and counts["revealing"] > 1000


def test_mirror_precedes_is_mirrored_is_smaller() -> None:
    rng = np.random.default_rng(5)
    heights = rng.integers(0, 8, size=(20000, 7))
    cells = rng.integers(1, 10, size=(20000, 7, 7))
    cells[np.arange(7)[None, None, :] >= heights[:, :, None]] = 0
    words = (cells << (4 * np.arange(7))[None, None, :]).sum(axis=2).astype(np.int64)
    mirrored = words.copy()
    mirrored[:, 4:] = mirrored[:, 2::-1]  # symmetric boards, then one cell changed in some
    mirrored[::2, 5] ^= 1 << (4 * rng.integers(0, 7, size=10000))
    boards = np.concatenate([words, mirrored])
    flips = [mirror_precedes(b) for b in boards]
    assert flips == [mirrored_is_smaller(b) for b in boards]
    assert 0 < sum(flips) < len(flips)
