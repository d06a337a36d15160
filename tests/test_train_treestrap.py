"""TreeStrap for n-tuple tables (engines.train.treestrap): a readable twin of one decision's
targets and updates, the engine's search values at the root, the same bits for any thread count
and for a run killed and resumed, and a learning curve that a broken target cannot pass."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numba
import numpy as np
import pytest

from cli.main import main
from engines.drop7 import core
from engines.drop7.board import TERMINAL_UTILITY
from engines.drop7.chance import canonicalise, chance_key, next_disc, play_sample
from engines.drop7.core import SRC_STRATIFIED
from engines.drop7.nibbles import CENTRE, is_legal
from engines.ntuple.layouts import N_SLOTS, get_layout
from engines.ntuple.value import entry_indices, ntuple_value_py
from engines.search.leaf import LEAF_NTUPLE, Leaf
from engines.search.searcher import Searcher
from engines.train import greedy
from engines.train import kernel as kern
from engines.train.evaluate import play_untrained
from engines.train.trainer import SeedRange
from engines.train.treestrap import TreestrapLearner, apply_targets, max_nodes, search_targets

SEEDS = SeedRange(0x1000000000000000, 1_000_000)
CLI_SEEDS = "0x1000000000000000:1000000"
TWO_THREADS = numba.config.NUMBA_NUM_THREADS >= 2
RISE = kern.RISE


def _position(seed: int, moves: int) -> tuple[np.ndarray, np.ndarray]:
    """A game's state and board after ``moves`` moves in the centre-most legal column."""
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    core.new_game(np.uint64(seed), state, cols)
    for m in range(moves):
        c = next(c for c in CENTRE[m % 3:] if is_legal(cols, c))
        core.advance(np.uint64(seed), c, state, cols, scratch, out)
    assert not core.finished(state)
    return state, cols


def _random_learner(depth: int, strata: int, targets: str = "tree") -> TreestrapLearner:
    learner = TreestrapLearner(get_layout("T3"), alpha=0.5, depth=depth, strata=strata,
                               targets=targets)
    rng = np.random.default_rng(3)
    learner.vals[:] = rng.normal(0.0, 2.0, learner.vals.shape[0]).astype(np.float32)
    learner.bias = 0.0  # the values as held, like a warm start
    return learner


def _twin_node(vals, spec, cols, disc, mr, depth, strata, tree, top, targets):
    """``(utility, score)`` of a decision node in plain Python, every sample played one by one;
    appends ``(canonical board, mr, score)`` of each recorded node, after its children."""
    canon = np.zeros(7, dtype=np.int64)
    canonicalise(cols, canon)
    scratch = np.zeros(3 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    best = (-np.inf, 0.0, -1)
    for c in CENTRE:
        if not is_legal(canon, c):
            continue
        key = np.uint64(chance_key(canon, disc, mr, c))
        us, ss = [], []
        for s in range(strata):
            board = canon.copy()
            _, mr2 = play_sample(board, c, disc, mr, key, strata, s, scratch, out)
            p = out[core.OUT_POINTS] / RISE
            if out[core.OUT_OVER]:
                us.append(p + TERMINAL_UTILITY / RISE)
                ss.append(p)
            elif depth == 1:
                v = ntuple_value_py(board, mr2, vals, spec)
                us.append(p + v)
                ss.append(p + v)
            else:
                u, sc = _twin_node(vals, spec, board, next_disc(SRC_STRATIFIED, key, strata, s),
                                   mr2, depth - 1, strata, tree, top, targets)
                us.append(p + u)
                ss.append(p + sc)
        if np.mean(us) > best[0]:
            best = (float(np.mean(us)), float(np.mean(ss)), c)
    if best[2] >= 0 and (tree or depth == top):
        targets.append((canon.copy(), mr, best[1]))
    return best[0], best[1]


def _twin_update(vals, acc, spec, targets, alpha) -> None:
    """TC-TD toward each target in order: ``delta`` clamped to 30 rises, each entry moved by
    ``alpha * beta * delta / N`` with ``beta = |E| / A`` (1 while ``A = 0``)."""
    pat = np.zeros(N_SLOTS, dtype=np.int64)
    n = int(spec[1])
    idx = np.zeros(n, dtype=np.int64)
    for canon, mr, target in targets:
        entry_indices(canon, mr, spec, pat, idx)
        delta = float(np.clip(target - sum(float(vals[i]) for i in idx), -30.0, 30.0))
        for i in map(int, idx):
            e, a = float(acc[i, 0]), float(acc[i, 1])
            beta = abs(e) / a if a > 0.0 else 1.0
            vals[i] = np.float32(float(vals[i]) + alpha * delta / n * beta)
            acc[i, 0] = np.float32(e + delta)
            acc[i, 1] = np.float32(a + abs(delta))


@pytest.mark.parametrize("targets", ["tree", "root"])
def test_one_decision_is_its_readable_twin(targets: str) -> None:
    depth, strata = 2, 3
    learner = _random_learner(depth, strata, targets)
    spec = learner.layout.spec
    state, cols = _position(0x1000000000000007, 9)
    disc, mr = int(state[core.ST_NEXT_DISC]), int(state[core.ST_MOVES_REMAINING])
    want: list = []
    _twin_node(learner.vals, spec, cols, disc, mr, depth, strata, targets == "tree", depth, want)
    colvals = np.zeros((depth + 1, 7))
    c, count, _ = search_targets(learner.vals, 0.0, spec, cols, disc, mr, depth, strata,
                                 targets == "tree", learner.nb[0], learner.nmr[0], learner.nt[0],
                                 colvals)
    assert count == len(want) and 0 <= c < 7
    assert count == (1 if targets == "root" else len(want)) and count <= max_nodes(depth, strata)
    for j, (canon, m, target) in enumerate(want):
        assert np.array_equal(learner.nb[0, j], canon) and learner.nmr[0, j] == m
        assert learner.nt[0, j] == pytest.approx(target, rel=1e-9, abs=1e-9)
    twin_v, twin_a = learner.vals.copy(), learner.acc.copy()
    _twin_update(twin_v, twin_a, spec, want, learner.alpha)
    apply_targets(learner.vals, learner.acc, 0.0, spec, learner.alpha, learner.nb[0],
                  learner.nmr[0], learner.nt[0], count, np.zeros(kern.F_LEN), 1.0)
    changed = np.flatnonzero(twin_v != _random_learner(depth, strata).vals)
    assert changed.size > 0  # the update moved entries
    np.testing.assert_allclose(learner.vals, twin_v, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(learner.acc, twin_a, rtol=1e-6, atol=1e-6)


def test_root_utilities_are_the_engines_search_values() -> None:
    """The register's gate train-search-vs-engine: the training search's root column values are
    the deployed searcher's (in points), and its choice is the searcher's."""
    depth, strata = 2, 7
    learner = _random_learner(depth, strata)
    leaf = Leaf(LEAF_NTUPLE, "ntuple:test-T3", tables=learner.vals, spec=learner.layout.spec)
    searcher = Searcher(leaf, depth, strata)
    for seed, moves in ((0x1000000000000003, 5), (0x1000000000000011, 12)):
        state, cols = _position(seed, moves)
        disc, mr = int(state[core.ST_NEXT_DISC]), int(state[core.ST_MOVES_REMAINING])
        colvals = np.zeros((depth + 1, 7))
        c, _, mirrored = search_targets(learner.vals, 0.0, learner.layout.spec, cols, disc, mr,
                                        depth, strata, True, learner.nb[0], learner.nmr[0],
                                        learner.nt[0], colvals)
        mine = colvals[depth][::-1] if mirrored else colvals[depth]
        theirs = searcher.column_values(cols, disc, mr)
        legal = np.isfinite(theirs)
        assert np.array_equal(np.isfinite(mine), legal)
        np.testing.assert_allclose(mine[legal] * RISE, theirs[legal], rtol=1e-9)
        assert c == searcher.choose(cols, disc, mr)


def _train(lanes: int, chunks: list[int], threads: int = 1, sign: float = 1.0,
           layout: str = "T3", depth: int = 2, strata: int = 3) -> TreestrapLearner:
    learner = TreestrapLearner(get_layout(layout), alpha=1.0, lanes=lanes, depth=depth,
                               strata=strata, sign=sign)
    carry = np.zeros((lanes, kern.C_LEN), dtype=np.int64)
    carry[:, kern.C_GAME] = np.arange(lanes)
    state = np.zeros((lanes, core.ST_LEN), dtype=np.int64)
    cols = np.zeros((lanes, 7), dtype=np.int64)
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        for moves in chunks:
            learner.play(SEEDS, carry, state, cols, moves, np.zeros(kern.F_LEN))
    finally:
        numba.set_num_threads(before)
    learner.carry = carry
    return learner


def _sha(learner: TreestrapLearner) -> str:
    h = hashlib.sha256(memoryview(learner.vals).cast("B"))
    h.update(memoryview(learner.acc.reshape(-1)).cast("B"))
    h.update(memoryview(learner.carry.reshape(-1)).cast("B"))
    return h.hexdigest()[:16]


@pytest.mark.skipif(not TWO_THREADS, reason="numba has one thread here")
def test_threads_and_chunks_keep_the_bits() -> None:
    ref = _train(4, [400])
    assert ref.targets_applied > 400  # inner nodes were trained too
    assert _sha(_train(4, [400], threads=2)) == _sha(ref)
    assert _sha(_train(4, [100, 4, 296], threads=2)) == _sha(ref)
    assert _sha(_train(2, [400])) != _sha(ref)  # the lanes are part of the recipe


def _one_ply(values: np.ndarray, spec: np.ndarray, seeds: np.ndarray) -> float:
    res = np.zeros((len(seeds), core.ST_LEN), dtype=np.int64)
    none = np.zeros(0)
    greedy.play_greedy(values, 0.0, spec, seeds, res, none, none, np.zeros(0, dtype=np.int64))
    return float(res[:, core.ST_SCORE].mean())


def test_it_learns_and_a_broken_target_is_caught() -> None:
    """One ply on unseen games: the trained tables beat their start (fresh tables: the move's
    points) and random play; the same run with every target's sign flipped falls below."""
    seeds = np.arange(10**12, 10**12 + 200, dtype=np.uint64)
    res = np.zeros((len(seeds), core.ST_LEN), dtype=np.int64)
    play_untrained("ntuple", seeds, res)
    start = float(res[:, core.ST_SCORE].mean())
    from engines.drop7.baselines import POLICY_RANDOM, play_baseline_games

    play_baseline_games(seeds, POLICY_RANDOM, res)
    rand = float(res[:, core.ST_SCORE].mean())
    spec = get_layout("T3").spec
    trained = _one_ply(_train(4, [4000]).values(), spec, seeds)
    broken = _one_ply(_train(4, [4000], sign=-1.0).values(), spec, seeds)
    assert trained > start > rand, (trained, start, rand)
    assert broken < start, (broken, start)


def _cli(out: Path, moves: int, every: int, *extra: str) -> int:
    return main(["train", "--layout", "T1", "--treestrap", "d2s2", "--moves", str(moves),
                 "--every", str(every), "--seeds", CLI_SEEDS, "--out", str(out),
                 "--log-every", "1000", "--lanes", "2", *extra])


def _step_sha(directory: Path) -> str:
    return json.loads((directory / "manifest.json").read_text())["sha256"]


def test_killed_and_resumed_equals_one_run(tmp_path: Path) -> None:
    assert _cli(tmp_path / "once", 240, 80) == 0
    assert _cli(tmp_path / "twice", 100, 80) == 0           # stops mid-interval
    assert _cli(tmp_path / "twice", 240, 80, "--resume") == 0
    seg = tmp_path / "seg"
    for start, end in ((0, 80), (80, 160), (160, 240)):
        assert _cli(seg, end, 80, "--start", str(start)) == 0
    for step in (80, 160, 240):
        ref = _step_sha(tmp_path / "once" / f"step-{step}")
        for other in ("twice", "seg"):
            assert _step_sha(tmp_path / other / f"step-{step}") == ref, (other, step)
    manifest = json.loads((tmp_path / "once" / "step-240" / "manifest.json").read_text())
    assert manifest["kind"] == "ntuple"  # tables, which the n-tuple leaf loads
    assert manifest["config"]["learner"] == "treestrap"
    from engines.ntuple.storage import load_ntuple

    assert load_ntuple(tmp_path / "once" / "step-240")[1].name == "T1"
    assert manifest["config"]["search"] == "d2s2" and manifest["config"]["targets"] == "tree"
    # the search is part of the config: a one-ply run does not resume it
    assert main(["train", "--layout", "T1", "--moves", "320", "--seeds", CLI_SEEDS, "--out",
                 str(tmp_path / "once"), "--lanes", "2", "--resume"]) == 2


@pytest.mark.parametrize("argv, message", [
    (["--treestrap", "d3"], "--treestrap must be dDsS"),
    (["--treestrap", "d4s7"], "treestrap depth must be 1..3"),
    (["--targets", "root"], "--targets needs --treestrap"),
])
def test_cli_refuses_a_bad_search(tmp_path: Path, capsys, argv, message) -> None:
    code = main(["train", "--layout", "T1", "--moves", "10", "--seeds", CLI_SEEDS, "--out",
                 str(tmp_path / "x"), *argv])
    assert code == 2 and message in capsys.readouterr().err


def test_a_claim_trains_treestrap_from_the_registered_tables(tmp_path: Path) -> None:
    """The learner's registration: a claim declares ``learner: treestrap`` warm-started from
    another claim's frozen TC-TD tables; the plan carries its search and targets to the
    training command, and its weights play as the n-tuple leaf."""
    import copy

    from test_warm_start_claims import _plan, _warm_ntuple

    from protocol import commands

    doc = _warm_ntuple({"claim": "ntuple-line-tuples", "weights": "ntuple-A"})
    doc["weights"]["continued"]["train"]["learner"] = "treestrap"
    root = copy.deepcopy(doc)
    root["weights"]["continued"]["train"]["targets"] = "root"
    for d, targets in ((doc, "tree"), (root, "root")):
        plan, _ = _plan(tmp_path / targets, d)
        t = plan.claims["warm-tables"].trained["continued"]
        assert t.leaf == "ntuple" and t.recipe()["search"] == "d3s7"
        assert t.recipe()["targets"] == targets
        words = commands.train(t.learner, t.recipe(), t.steps[0], t.dir, 0).split()
        assert words[words.index("--treestrap") + 1] == "d3s7"
        assert words[words.index("--targets") + 1] == targets
    bad = copy.deepcopy(doc)
    bad["weights"]["continued"]["train"]["search"] = "d4s7"
    with pytest.raises(Exception, match="search"):
        _plan(tmp_path / "bad", bad)


def test_bench_train_times_treestrap_beside_tc_td(capsys) -> None:
    code = main(["bench", "train", "--layout", "T1", "--lanes", "2", "--threads", "1",
                 "--moves", "400", "--warm-moves", "40", "--repeat", "1", "--no-touch",
                 "--treestrap", "d2s2", "--treestrap-moves", "20", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    ts = result["treestrap"]
    assert ts["search"] == "d2s2" and ts["lanes"] == 2 and ts["moves"] == 20
    assert ts["moves_per_s"] > 0 and ts["targets_per_move"] > 1  # inner nodes too
    # rounded to one place from unrounded rates
    want = result["moves_per_s"] / ts["moves_per_s"]
    assert ts["tc_td_ratio"] == pytest.approx(want, rel=0.01, abs=0.06)


def test_the_cost_model_prices_a_search_move() -> None:
    """At its registered size the claim's training is cluster work (each move a d3s7 search,
    about 0.17 s of CPU, not a TC-TD move's 9 us); its pilot trains within minutes."""
    from claims_support import REPO

    from protocol.plan import load_plan

    claim = "ntuple-search-target-treestrap-leaf"
    paper = load_plan(REPO, {"profile": "paper"}).claims[claim]
    pilot = load_plan(REPO, {"profile": "pilot"}).claims[claim]
    assert paper.trained["treestrap"].move_cost > 1_000
    assert paper.estimate()["train"] > 2 * 6_000_000 * 0.1  # CPU seconds: cluster work
    estimate = pilot.estimate()
    assert estimate["train"] < 7 * 60 and sum(estimate.values()) < 12 * 60, estimate
