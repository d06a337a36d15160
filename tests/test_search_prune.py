"""The pruned search: kernel against its readable twin, full width bit for bit, the lower
bound, the prior's work counted apart, the grammar, the declaration and the bench."""

from __future__ import annotations

import json

import numpy as np
import pytest
from claims_support import REPO
from test_search_kernel import CENTRE, _values_ref

from engines.play.arm_specs import PolicyError
from engines.play.policy import load_policy
from engines.play.policy_grammar import canonical_policy, parse_policy
from engines.search.leaf import load_leaf
from engines.search.positions import load_positions
from engines.search.prune_kinds import PruneSpec
from engines.search.searcher import Searcher
from engines.search.stats import (
    STAT_LEAVES,
    STAT_LEN,
    STAT_NODES,
    STAT_PRIOR_EVALS,
    STAT_PRIOR_LEAVES,
    STAT_PRIOR_NODES,
    STAT_PRUNED,
)

POSITIONS = load_positions()
LINEAR = load_leaf("linear")
ONEPLY3, KF3 = PruneSpec("oneply", 3), PruneSpec("kf", 3, weights="cem")
ONEPLY1, KF1 = PruneSpec("oneply", 1), PruneSpec("kf", 1, weights="transplanted")
#: the shipped frozen one-ply Q (the register's centred ridge fit), as a q prior
_Q_DIR = "config/pinned/oneply-q-register-centred"
_Q_SHA = json.loads((REPO / _Q_DIR / "manifest.json").read_text())["sha256"]
Q3 = PruneSpec("q", 3, weights=f"{_Q_SHA}:{REPO / _Q_DIR}")


def _mirror_row(values: list[float], mirrored: bool) -> np.ndarray:
    return np.array(values[::-1] if mirrored else values)


@pytest.mark.parametrize("prune", [ONEPLY3, KF3, ONEPLY1, KF1,
                                   PruneSpec("kf", 2, root=True, weights="cem"), Q3],
                         ids=["oneply-k3", "kf-k3", "oneply-k1", "kf-k1", "kf-k2-root", "q-k3"])
def test_kernel_equals_the_readable_twin_on_game_positions(prune: PruneSpec) -> None:
    searcher = Searcher(LINEAR, 3, 7, prune=prune)
    pruned_somewhere = 0
    for cols, disc, mr in POSITIONS[5::14]:
        _, ref, mirrored = _values_ref("linear", cols, disc, mr, 3, 7, prune=prune)
        want = _mirror_row(ref, mirrored)
        choice, got = searcher.choose_values(cols, disc, mr)
        assert np.array_equal(np.isneginf(got), np.isneginf(want)), (cols, disc, mr)
        assert np.allclose(got, want, rtol=1e-12, atol=1e-6), (cols, disc, mr)
        best = max(ref)
        order = CENTRE if not mirrored else tuple(6 - c for c in CENTRE)
        if sum(1 for v in ref if abs(v - best) < 1e-6) == 1:
            assert choice == next(c for c in order if want[c] == best)
        pruned_somewhere += searcher.stats[STAT_PRUNED] > 0
    assert pruned_somewhere


@pytest.mark.parametrize("prune", [PruneSpec("oneply", 7), PruneSpec("kf", 7, 2, True, "cem")])
def test_seven_columns_kept_is_full_width_bit_for_bit(prune: PruneSpec) -> None:
    full, seven = Searcher(LINEAR, 3, 7), Searcher(LINEAR, 3, 7, prune=prune)
    for cols, disc, mr in POSITIONS[::6]:
        assert np.array_equal(seven.column_values(cols, disc, mr),
                              full.column_values(cols, disc, mr))
        assert seven.choose(cols, disc, mr) == full.choose(cols, disc, mr)
    assert (seven.stats == full.stats).all()  # no prior asked: at most seven legal columns


def test_pruning_never_leaks_into_a_full_width_search() -> None:
    """Pruned and full-width searches side by side in one process: the full-width values and
    counts are a fresh full-width searcher's, bit for bit, and count no prior."""
    fresh = Searcher(LINEAR, 2, 7)
    want = [fresh.column_values(c, d, m) for c, d, m in POSITIONS[::5]]
    pruned = Searcher(LINEAR, 2, 7, prune=PruneSpec("oneply", 1, root=True))
    full = Searcher(LINEAR, 2, 7)
    for (cols, disc, mr), values in zip(POSITIONS[::5], want, strict=True):
        pruned.column_values(cols, disc, mr)
        assert np.array_equal(full.column_values(cols, disc, mr), values)
    assert pruned.stats[STAT_PRUNED] > 0
    assert (full.stats[STAT_PRUNED:STAT_PRIOR_LEAVES + 1] == 0).all()
    assert (full.stats == fresh.stats).all() and full.stats.shape == (STAT_LEN,)
    plain = parse_policy("search:leaf=linear,d=3,s=7")
    assert plain.prune is None and load_policy(plain).searcher.prune_spec is None


@pytest.mark.parametrize("prune", [ONEPLY3, KF1, PruneSpec("kf", 3, 2, True, "cem")])
def test_pruned_values_are_lower_bounds_of_full_width(prune: PruneSpec) -> None:
    """Chance samples and leaves are the full-width search's (common random numbers), only
    the max over a subset changes: every kept root column is worth at most its full-width
    value; a pruned root column is -inf."""
    full, pruned = Searcher(LINEAR, 3, 7), Searcher(LINEAR, 3, 7, prune=prune)
    below = 0
    for cols, disc, mr in POSITIONS[::4]:
        f, p = full.column_values(cols, disc, mr), pruned.column_values(cols, disc, mr)
        kept = np.isfinite(p)
        assert (p[kept] <= f[kept]).all(), (cols, disc, mr)
        assert np.isfinite(f[~kept]).sum() == (~kept).sum() - np.isneginf(f).sum()
        assert prune.root or kept.sum() == np.isfinite(f).sum()
        below += (p[kept] < f[kept]).any()
    assert below > 0  # and pruning did change values somewhere


def test_the_priors_work_is_counted_apart() -> None:
    full = Searcher(LINEAR, 3, 7)
    one, kf = Searcher(LINEAR, 3, 7, prune=ONEPLY3), Searcher(LINEAR, 3, 7, prune=KF3)
    direct = Searcher(LINEAR, 1, 7)
    for cols, disc, mr in POSITIONS[::10]:
        for s in (full, one, kf):
            s.choose(cols, disc, mr)
    assert one.stats[STAT_NODES] < full.stats[STAT_NODES]
    assert kf.stats[STAT_NODES] < full.stats[STAT_NODES]
    assert one.stats[STAT_PRUNED] > 0 and one.stats[STAT_PRIOR_NODES] > 0
    assert one.stats[STAT_PRIOR_LEAVES] > 0
    assert one.stats[STAT_PRIOR_EVALS] >= 4 * one.stats[STAT_PRUNED]  # more than k legal
    assert kf.stats[STAT_PRUNED] > 0 and kf.stats[STAT_PRIOR_EVALS] > 0
    assert kf.stats[STAT_PRIOR_NODES] == kf.stats[STAT_PRIOR_LEAVES] == 0
    # the one-ply prior of a node is a one-ply search of it: at most its moves and leaves
    per_node = one.stats[STAT_PRIOR_NODES] / one.stats[STAT_PRUNED]
    assert per_node <= 7 * 7
    player = load_policy("search:leaf=linear,d=3,s=7,prune=oneply,k=3")
    player.searcher.choose(*POSITIONS[0])
    stats = player.searcher.stats
    assert player.work() == (stats[STAT_NODES] + stats[STAT_PRIOR_NODES],
                             stats[STAT_LEAVES] + stats[STAT_PRIOR_LEAVES])
    assert direct.stats[STAT_PRUNED] == 0


def test_the_q_priors_work_is_counted_as_the_one_ply_priors() -> None:
    """The Q's features play the one-ply node's samples and read their leaf terms: at the one
    node pruned (a d2 root), its moves and leaves are the one-ply prior's, counted alike."""
    one = Searcher(LINEAR, 2, 7, prune=PruneSpec("oneply", 3, root=True))
    q = Searcher(LINEAR, 2, 7, prune=PruneSpec("q", 3, root=True, weights=Q3.weights))
    for cols, disc, mr in POSITIONS[::6]:
        one.choose(cols, disc, mr)
        q.choose(cols, disc, mr)
    assert q.stats[STAT_PRUNED] == one.stats[STAT_PRUNED] > 0
    assert q.stats[STAT_PRIOR_NODES] == one.stats[STAT_PRIOR_NODES] > 0
    assert q.stats[STAT_PRIOR_LEAVES] == one.stats[STAT_PRIOR_LEAVES] > 0


def test_a_pruned_search_is_mirror_equivariant() -> None:
    searcher = Searcher(LINEAR, 3, 7, prune=KF1)
    for cols, disc, mr in POSITIONS[::12]:
        v = searcher.column_values(cols, disc, mr)
        assert np.array_equal(v, searcher.column_values(cols[::-1].copy(), disc, mr)[::-1])


def test_register_sampling_prunes_with_the_nodes_own_samples() -> None:
    """With the register's samples (keyed by the node's depth) the one-ply prior still draws
    the node's own: k = 7 is full width bit for bit and pruned values stay lower bounds."""
    seed = 0xD7075EED
    full = Searcher(LINEAR, 3, 7, register_seed=seed)
    seven = Searcher(LINEAR, 3, 7, register_seed=seed, prune=PruneSpec("oneply", 7))
    one = Searcher(LINEAR, 3, 7, register_seed=seed, prune=ONEPLY1)
    for cols, disc, mr in POSITIONS[::15]:
        f = full.column_values(cols, disc, mr)
        assert np.array_equal(seven.column_values(cols, disc, mr), f)
        assert (one.column_values(cols, disc, mr) <= f).all()


@pytest.mark.parametrize(("text", "canonical"), [
    ("search:k=3,prune=oneply,leaf=linear,d=4", "search:leaf=linear,d=4,s=7,prune=oneply,k=3"),
    ("search:leaf=linear,root=pruned,from=3,prune=kf:cem,k=2",
     "search:leaf=linear,d=3,s=7,prune=kf:cem,k=2,from=3,root=pruned"),
    ("search:leaf=linear,from=2,prune=oneply,k=3", "search:leaf=linear,d=3,s=7,prune=oneply,k=3"),
])
def test_the_policy_string_round_trips(text: str, canonical: str) -> None:
    assert canonical_policy(text) == canonical and canonical_policy(canonical) == canonical


@pytest.mark.parametrize(("text", "words"), [
    ("direct:leaf=linear,prune=oneply,k=3", "prune is for search arms only"),
    ("search:leaf=linear,prune=oneply", "needs prune=PRIOR and k=K"),
    ("search:leaf=linear,k=3", "needs prune=PRIOR and k=K"),
    ("search:leaf=linear,prune=beam,k=3", "unknown prior 'beam'"),
    ("search:leaf=linear,prune=oneply,k=8", "k must be 1..7"),
    ("search:leaf=linear,prune=oneply,k=0", "k must be 1..7"),
    ("search:leaf=linear,d=3,prune=oneply,k=3,from=4", "from must be 2..3"),
    ("search:leaf=linear,prune=oneply,k=3,from=1", "it would prune nothing"),
    ("search:leaf=linear,prune=kf,k=3", "needs weights"),
    ("search:leaf=linear,prune=kf:best,k=3", "must name weights"),
    ("search:leaf=linear,prune=oneply:cem,k=3", "takes no weights"),
    ("search:leaf=linear,prune=oneply,k=3,root=yes", "root must be pruned"),
])
def test_bad_pruning_is_one_line(text: str, words: str) -> None:
    with pytest.raises(PolicyError) as err:
        parse_policy(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_bench_times_pruned_beside_full_width(capsys) -> None:
    from cli.main import main

    assert main(["bench", "search", "--leaf", "linear", "--depth", "3", "--positions", "2",
                 "--prune", "prune=oneply,k=2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["full"]["prune"] is None and out["pruned"]["prune"] == "prune=oneply,k=2"
    assert out["pruned"]["mean_prior_nodes"] > 0 and out["full"]["mean_prior_evals"] == 0
    assert 0 < out["ratios"]["work_without_prior"] < out["ratios"]["work"]
    assert out["ratios"]["nodes"] < 1 and out["ratios"]["seconds"] > 0
    assert 0 <= out["agreement"] <= 1
    assert main(["bench", "search", "--depth", "2", "--prune", "prune=kf,k=2"]) == 2
    assert "needs weights" in capsys.readouterr().err


def _claim_dir(tmp_path, edit):
    from claims_support import own_claim, write_claim

    doc = own_claim()
    doc["arms"]["pruned-d3s3"] = {"play": "search", "depth": 3, "strata": 3, "leaf": "linear",
                                  "prune": {"prior": "kf", "weights": "cem", "k": 3}}
    edit(doc)
    directory = tmp_path / "mine"
    directory.mkdir(exist_ok=True)
    write_claim(directory, doc)
    return directory


def test_a_search_arm_declares_its_pruning(tmp_path) -> None:
    from workflow_support import plan_of

    claims = _claim_dir(tmp_path, lambda d: d["arms"]["pruned-d3s3"]["prune"].update(
        {"from": 3, "root": "pruned"}))
    plan = plan_of("pilot", claims_dir=str(claims)).claims["my-first-claim"]
    assert plan.arms["pruned-d3s3"].policy == (
        "search:leaf=linear,d=3,s=3,prune=kf:cem,k=3,from=3,root=pruned")
    assert plan.arms["fair-d1s3"].policy == "search:leaf=linear,d=1,s=3"  # none: as before


@pytest.mark.parametrize(("edit", "key", "message"), [
    (lambda d: d["arms"]["random"].update(prune={"prior": "oneply", "k": 3}),
     "arms.random.prune", "the random baseline takes no prune"),
    (lambda d: d["arms"].update({"fair-d1s3": {"play": "direct", "strata": 3, "leaf": "linear",
                                              "prune": {"prior": "oneply", "k": 3}}}),
     "arms.fair-d1s3.prune", "a direct arm plays one ply: no prune"),
    (lambda d: d["arms"]["pruned-d3s3"]["prune"].update(k=9), "arms.pruned-d3s3.prune.k",
     "9 is greater than the maximum of 7"),
    (lambda d: d["arms"]["pruned-d3s3"]["prune"].update(prior="beam"),
     "arms.pruned-d3s3.prune.prior", "'beam' is not one of"),
    (lambda d: d["arms"]["pruned-d3s3"]["prune"].update({"from": 4}),
     "arms.pruned-d3s3.prune.from", "from must be 1..3"),
    (lambda d: d["arms"]["pruned-d3s3"]["prune"].pop("weights"),
     "arms.pruned-d3s3.prune.weights", "needs weights"),
])
def test_misdeclared_pruning_is_one_line_naming_the_file_and_key(tmp_path, edit, key,
                                                                   message) -> None:
    from test_panel_declaration import one_line

    from protocol.declaration import load_claims
    from protocol.schema import DeclarationError

    claims = _claim_dir(tmp_path, edit)
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    assert message in one_line(err, f"{claims / 'my-first-claim.yaml'}: key {key}")


def test_a_ranker_that_prunes_its_root_leaves_minus_infinity_in_the_table() -> None:
    """Legal columns a pruned root left out are -inf (illegal ones NaN), the panel table
    keeps them, and the figures rank them last."""
    from analysis.panel_readings import PanelRoots, per_root
    from contracts.panel_table import check_row, table_text
    from engines.drop7 import core
    from engines.play.rankers import rank

    player = load_policy("search:leaf=linear,d=2,s=7,prune=kf:cem,k=2,root=pruned")
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols, disc, mr = POSITIONS[20]
    state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING] = disc, mr
    ranking = rank(player, state, cols)
    legal = np.array([core.is_legal(cols, c) for c in range(7)])
    assert (np.isneginf(ranking.values) == legal & ~np.isin(np.arange(7), [ranking.choice])
            & ~np.isfinite(ranking.values)).all()
    assert np.isfinite(ranking.values).sum() == 2 and np.isnan(ranking.values[~legal]).all()
    row = {"game": "1", "root": "0", "ranker": "p", "choice": ranking.choice,
           "work": ranking.nodes, **{f"v{c}": float(ranking.values[c]) for c in range(7)}}
    text = table_text([row]).splitlines()[1]
    assert "-inf" in text
    header = table_text([row]).splitlines()[0].split(",")
    check_row(dict(zip(header, text.split(","), strict=True)), "t")
    reference = np.where(legal, np.arange(7.0), np.nan)[None, :]
    figures = per_root(PanelRoots(np.array([1], dtype=np.uint64), reference,
                                  np.array([ranking.choice]), ranking.values[None, :],
                                  np.array([1.0]), np.array([1.0])), ks=(2,))
    kept = set(np.flatnonzero(np.isfinite(ranking.values)))
    best = int(np.nanargmax(reference[0]))
    assert figures["recall@2"][0] == float(best in kept)
    from analysis.panel_readings import _pairwise

    # two left-out columns tie: half credit under ours, none under the register's
    ref, mine = np.array([3.0, 2.0, 1.0]), np.array([5.0, -np.inf, -np.inf])
    assert _pairwise(ref, mine, 0.5) == pytest.approx((2 + 0.5) / 3)
    assert _pairwise(ref, mine, 0.0) == pytest.approx(2 / 3)
