"""The network leaf ``nnue``: its features are the register's class, the numba leaf equals its
readable twin bit for bit (and recorded values), its weights files are refused in one line
when damaged or mismatched, it plays in any search and ranks a panel's roots, and the benches
time it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pytest
from claims_support import REPO, fair_depth_claim, write_claim

from engines.drop7 import core
from engines.drop7.board import cols_to_rows, rows_to_cols
from engines.drop7.chance import SRC_STRATIFIED, next_disc
from engines.leaves.kinds import LEAF_KINDS, parse_leaf
from engines.leaves.nnue import nnue_samples, nnue_value, nnue_values_many
from engines.leaves.nnue_class import ACTIVE, FEATURES, HIDDEN, MID, Sizes
from engines.leaves.nnue_ref import active_features
from engines.leaves.nnue_ref import nnue_value as nnue_value_ref
from engines.leaves.nnue_weights import random_network, save_nnue, write_random_network
from engines.pinned_leaf import PinnedError, check_pinned
from engines.play.arm_specs import PolicyError
from engines.play.policy import load_policy
from engines.play.rankers import rank
from engines.search.leaf import LEAF_NNUE, load_leaf, nnue_leaf
from engines.search.positions import load_positions
from engines.search.searcher import Searcher
from protocol.checks import before_any_job
from protocol.plan import load_plan
from protocol.schema import DeclarationError

POSITIONS = load_positions()
EXPECTED = json.loads((Path(__file__).parent / "data" / "nnue_expectations.json").read_text())
BOARD = rows_to_cols(["0000000", "0000000", "0000000", "0000000", "0030000", "0124000",
                      "8914725"])


def _grid(cols: np.ndarray) -> list[list[int]]:
    return [[int(ch) for ch in row] for row in cols_to_rows(cols)]


def _spec(sizes: Sizes) -> np.ndarray:
    return np.array([sizes.hidden, sizes.mid], dtype=np.int64)


def test_the_features_are_the_registers_class() -> None:
    """135 active of 8,902: a cell's code, the moves remaining, the pairs, the next disc."""
    features = active_features(_grid(BOARD), 3, 5)
    assert len(features) == ACTIVE == 135 and len(set(features)) == ACTIVE
    assert all(0 <= f < FEATURES for f in features)
    assert features[42] == 42 * 10 + 8  # bottom-left cell: solid
    assert features[49] == 497 + 3 - 1  # three moves remaining
    assert 502 + 36 * 100 + 8 * 10 + 9 in features  # bottom row: solid then cracked
    assert 4702 + 35 * 100 + 0 * 10 + 8 in features  # column 0: empty above solid
    assert 4702 + 30 * 100 + 3 * 10 + 2 in features  # the 3 above the 2 in column 2
    assert features[-1] == 490 + 5 - 1  # the next disc, added last


@pytest.mark.parametrize(("seed", "sizes"), [(7, Sizes(HIDDEN, MID)), (3, Sizes(16, 8))])
def test_the_kernel_equals_the_twin_bit_for_bit(seed: int, sizes: Sizes) -> None:
    params = random_network(seed, sizes)
    for cols, _, mr in POSITIONS:
        grid = _grid(cols)
        for disc in range(1, 8):
            got = np.float64(nnue_value(cols, mr, disc, params, _spec(sizes)))
            want = np.float64(nnue_value_ref(params, sizes, grid, mr, disc))
            assert got.tobytes() == want.tobytes(), (cols_to_rows(cols), mr, disc)


def test_recorded_values_and_the_networks_hash(tmp_path) -> None:
    """The seeded test network's file hash and its values on shipped positions, as recorded
    when the leaf was written (a change of features, order, layout or init shows here)."""
    sizes = Sizes(EXPECTED["hidden"], EXPECTED["mid"])
    manifest = write_random_network(tmp_path / "net", EXPECTED["seed"], sizes)
    assert manifest["sha256"] == EXPECTED["sha256"]
    leaf = load_leaf(f"nnue:{tmp_path / 'net'}")
    for state in EXPECTED["states"]:
        cols = rows_to_cols(state["board"])
        assert np.array_equal(cols, POSITIONS[state["position"]][0])
        mr, disc = state["moves_remaining"], state["next_disc"]
        assert nnue_value(cols, mr, disc, leaf.tables, leaf.spec) == state["value"]
        assert nnue_value_ref(leaf.tables, sizes, _grid(cols), mr, disc) == state["value"]
    assert len({s["value"] for s in EXPECTED["states"]}) == len(EXPECTED["states"])


def test_a_chance_nodes_samples_share_the_board_sum() -> None:
    params, spec = random_network(7), _spec(Sizes(HIDDEN, MID))
    for cols, _, mr in POSITIONS[::6]:
        for key in (np.uint64(12345), np.uint64(2**63 + 7)):
            for strata in (1, 3, 7):
                discs = [next_disc(SRC_STRATIFIED, key, strata, t) for t in range(strata)]
                each = [nnue_value(cols, mr, d, params, spec) for d in discs]
                assert nnue_samples(cols, mr, SRC_STRATIFIED, key, strata, False, 0, params,
                                    spec) == sum(each) / strata
                assert nnue_samples(cols, mr, SRC_STRATIFIED, key, strata, True, strata - 1,
                                    params, spec) == each[-1]


def test_the_batch_kernel_is_the_leaf() -> None:
    params, spec = random_network(7), _spec(Sizes(HIDDEN, MID))
    boards = np.array([p[0] for p in POSITIONS[:9]])
    discs = np.array([p[1] for p in POSITIONS[:9]])
    mrs = np.array([p[2] for p in POSITIONS[:9]])
    out = np.zeros(9)
    nnue_values_many(boards, mrs, discs, params, spec, out)
    assert list(out) == [nnue_value(b, m, d, params, spec)
                         for b, m, d in zip(boards, mrs, discs, strict=True)]


def test_the_leaf_kinds_parse_and_load(tmp_path) -> None:
    digest = write_random_network(tmp_path / "net", 7)["sha256"]
    assert LEAF_KINDS["nnue"].takes_path and LEAF_KINDS["nnue-file"].pinned
    for text in (f"nnue:{tmp_path / 'net'}", f"nnue-file:{digest}:{tmp_path / 'net'}"):
        assert parse_leaf(text).format() == text
        leaf = load_leaf(text)
        assert leaf.kind == LEAF_NNUE and list(leaf.spec) == [HIDDEN, MID]
        assert not leaf.tables.flags.writeable
        assert np.array_equal(leaf.tables, random_network(7))
    assert check_pinned(tmp_path / "net", digest).kind == "nnue-file"
    with pytest.raises(PinnedError, match="SHA-256"):
        check_pinned(tmp_path / "net", "0" * 64)


def _damage(directory: Path, how: str) -> None:
    manifest_path = directory / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    if how == "corrupt":
        data = bytearray((directory / "tables.npy.zst").read_bytes())
        data[len(data) // 2] ^= 0xFF
        (directory / "tables.npy.zst").write_bytes(bytes(data))
        return
    if how == "hidden":
        manifest["hidden"] = 32
    elif how == "mid":
        manifest["mid"] = 99
    elif how == "kind":
        manifest["kind"] = "ntuple-ish"
    elif how == "features":
        manifest["features"] = 8903
    manifest_path.write_text(json.dumps(manifest))


@pytest.mark.parametrize(("how", "message"), [
    ("corrupt", "SHA-256|damaged|corrupt|truncated|zstd|frame"),
    ("hidden", "key shape: hidden 32 and mid 32 need float32"),
    ("mid", "key mid must be an integer 1..64, got 99"),
    ("kind", "holds 'ntuple-ish' weights, not a network"),
    ("features", "key features: 8903, the class has 8902"),
])
def test_a_damaged_or_mismatched_network_is_refused_in_one_line(tmp_path, how, message) -> None:
    write_random_network(tmp_path / "net", 7)
    _damage(tmp_path / "net", how)
    with pytest.raises(PolicyError, match=message) as err:
        load_policy(f"search:leaf=nnue:{tmp_path / 'net'},d=1,s=7")
    assert "\n" not in str(err.value) and str(tmp_path / "net") in str(err.value)


@pytest.mark.parametrize(("value", "message"), [(np.nan, "non-finite parameter 5"),
                                                (1e36, "float32 sums can reach")])
def test_a_network_that_cannot_give_a_finite_leaf_is_refused(tmp_path, value, message) -> None:
    params = random_network(7)
    params[5] = value
    save_nnue(tmp_path / "net", params, Sizes(HIDDEN, MID))
    with pytest.raises(ValueError, match=message) as err:
        load_leaf(f"nnue:{tmp_path / 'net'}")
    assert "\n" not in str(err.value) and str(tmp_path / "net") in str(err.value)


def test_a_claim_pins_a_network_and_a_wrong_one_is_refused_before_any_job(tmp_path,
                                                                          monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    digest = write_random_network(tmp_path / "net", 7)["sha256"]
    doc = fair_depth_claim(block=90)
    doc["arms"]["fair-d2s7"] = {"play": "search", "depth": 2, "strata": 7,
                                "leaf": {"file": "net", "sha256": digest}}
    own = tmp_path / "mine"
    own.mkdir()
    path = write_claim(own, doc)
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(own)})
    arm = plan.claims["fair-depth-prefix"].arms["fair-d2s7"]
    assert arm.spec.leaf.kind == "nnue-file" and digest in arm.policy
    before_any_job(plan)
    doc["arms"]["fair-d2s7"]["leaf"]["sha256"] = "1" * 64
    write_claim(own, doc)
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(own)})
    with pytest.raises(DeclarationError) as err:
        before_any_job(plan)
    assert str(err.value).startswith(f"{path}: key arms.fair-d2s7.leaf")
    assert "\n" not in str(err.value) and "net" in str(err.value)


def test_a_d1_search_with_the_network_ranks_a_panels_roots(tmp_path) -> None:
    """A search arm with the network leaf is a panel ranker: every legal column valued (the
    one-ply mean of the network over the samples), illegal ones not, its choice a best one."""
    write_random_network(tmp_path / "net", 7)
    policy = load_policy(f"search:leaf=nnue:{tmp_path / 'net'},d=1,s=7")
    reference = Searcher(load_leaf(f"nnue:{tmp_path / 'net'}"), 1, 7)
    full = rows_to_cols(["0000002", "0000003", "1000004", "2000005", "3000006", "4000004",
                         "8888888"])
    roots = [(cols, disc, mr) for cols, disc, mr in POSITIONS[::4]] + [(full, 3, 2)]
    spread = 0
    for cols, disc, mr in roots:
        state = np.zeros(core.ST_LEN, dtype=np.int64)
        state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING] = disc, mr
        ranking = rank(policy, state, cols)
        legal = [bool(core.is_legal(cols, c)) for c in range(7)]
        assert [not np.isnan(v) for v in ranking.values] == legal
        assert ranking.values[ranking.choice] == np.nanmax(ranking.values)
        assert np.array_equal(np.nan_to_num(ranking.values, nan=-np.inf),
                              reference.column_values(cols, disc, mr))
        assert ranking.leaves > 0
        spread += len({float(v) for v in ranking.values if not np.isnan(v)}) > 1
    assert not legal[6] and spread >= len(roots) - 1


def test_the_leaf_bench_times_the_network(capsys) -> None:
    from engines.search import leaf_bench

    for leaf in ("nnue", "linear"):
        leaf_bench.run(argparse.Namespace(games=1, repeats=1, leaf=leaf, json=True))
        out = json.loads(capsys.readouterr().out)
        assert out["leaf"] == leaf and out["boards"] > 10 and out["ns_per_eval"] > 0


def test_the_search_bench_runs_with_the_network() -> None:
    from engines.search.bench import bench_leaf, bench_search

    leaf = bench_leaf("nnue")
    assert leaf.kind == LEAF_NNUE
    out = bench_search(leaf, 1, 7, POSITIONS[:3])
    assert out["leaf"] == "nnue:random-7" and out["mean_leaves"] > 0
    assert out["mean_leaf_hits"] == 0  # no leaf cache: the network's parts do not split


def test_a_network_leaf_must_hold_what_its_sizes_need() -> None:
    leaf = nnue_leaf("t", random_network(3, Sizes(16, 8)), 16, 8)
    assert Searcher(leaf, 2, 3).choose(*POSITIONS[5]) in range(7)
    with pytest.raises(ValueError, match="hidden 16 and mid 9 need 142611 parameters"):
        nnue_leaf("t", random_network(3, Sizes(16, 8)), 16, 9)
    with pytest.raises(ValueError, match="hidden must be an integer 1..512"):
        nnue_leaf("t", random_network(3, Sizes(16, 8)), 0, 8)
