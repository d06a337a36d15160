"""The six-feature Klein-Friedmann policy: its kernel against its readable twin, boards counted by
hand, the tie rule, the grammar, the player, the ranker and the declaration's refusals."""

from __future__ import annotations

import numpy as np
import pytest
from claims_support import claims_copy

from engines.drop7 import core
from engines.drop7.board import opening_cols, rows_to_cols, unpack
from engines.filters import kf_ref
from engines.filters.kf import kf_features, kf_values
from engines.filters.kf_weights import FEATURES, KF_WEIGHTS, kf_weights
from engines.play.arm_specs import KfSpec, PolicyError
from engines.play.games import play_game
from engines.play.policy import load_policy
from engines.play.policy_grammar import canonical_policy, parse_policy
from engines.play.positions import game_states
from engines.play.rankers import offers_values, rank
from protocol.declaration import load_claims
from protocol.schema import DeclarationError

CEM = np.array(kf_weights("cem"))
TRANSPLANTED = np.array(kf_weights("transplanted"))
EMPTY_ABOVE = ["0000000"] * 5


def _grid(cols: np.ndarray) -> list[list[int]]:
    return [list(map(int, r)) for r in unpack(cols)]


def _features(cols: np.ndarray, disc: int) -> np.ndarray:
    out = np.zeros((7, 6), dtype=np.int64)
    kf_features(cols, disc, out)
    return out


def _compiled(cols: np.ndarray, disc: int, weights: np.ndarray) -> tuple[int, list[float]]:
    values = np.empty(7)
    return int(kf_values(cols, disc, weights, values)), values.tolist()


def _random_board(rng: np.random.Generator) -> np.ndarray:
    """A bottom-packed board of random heights 0..7 and cells 1..9 (numbered and grey)."""
    grid = np.zeros((7, 7), dtype=np.int64)
    for c in range(7):
        for k in range(int(rng.integers(0, 8))):
            grid[6 - k, c] = int(rng.integers(1, 10))
    return rows_to_cols(["".join(str(v) for v in row) for row in grid])


def _assert_twins(cols: np.ndarray, disc: int) -> None:
    grid = _grid(cols)
    feats = _features(cols, disc)
    legal = [c for c in range(7) if core.is_legal(cols, c)]
    for c in range(7):
        want = kf_ref.features(grid, disc, c) if c in legal else [0] * 6
        assert feats[c].tolist() == want, (unpack(cols).tolist(), disc, c)
    for weights in (CEM, TRANSPLANTED):
        choice, values = _compiled(cols, disc, weights)
        assert values == kf_ref.values(grid, disc, tuple(weights))
        if legal:
            assert choice == kf_ref.choice(grid, disc, tuple(weights))


def test_kernel_equals_twin_on_random_boards() -> None:
    rng = np.random.default_rng(20261206)
    nonzero = np.zeros(6, dtype=np.int64)
    for _ in range(1500):
        cols = _random_board(rng)
        for disc in range(1, 8):
            _assert_twins(cols, disc)
            nonzero += (_features(cols, disc) != 0).any(axis=0)
    assert (nonzero > 100).all()  # every feature fires on these boards: the check is not vacuous


def test_kernel_equals_twin_on_positions_from_games() -> None:
    states = [s for policy in ("random", "kf:w=cem") for seed in range(1, 13)
              for s in game_states(seed, load_policy(policy))]
    assert len(states) > 400
    for cols, disc, _ in states:
        _assert_twins(cols, disc)


def test_the_opening_by_hand() -> None:
    # every column lands one above the grey row: lowest (all heights equal), no row run to
    # clear, the solid grey below counts 1 in column detonations; seven columns share the top
    # height, so tallest-column is 0.  A 2 clears by the column (height 2), a 1 by its row run.
    cols = opening_cols()
    assert (_features(cols, 3) == [1, 0, 1, 0, 0, 0]).all()
    assert (_features(cols, 2) == [1, 0, 1, 0, 0, 2]).all()
    assert (_features(cols, 1) == [1, 0, 1, 0, 2, 2]).all()
    # all seven values equal: the rightmost column, the register's tie rule
    assert _compiled(cols, 3, CEM)[0] == 6


def test_a_board_by_hand() -> None:
    #   level 1: 3 3 . . 9 . .   (9 a cracked grey)
    #   level 0: 8 8 8 8 8 8 8
    cols = rows_to_cols(EMPTY_ABOVE + ["3300900", "8888888"])
    f = _features(cols, 3)
    # column 2: the disc joins a run of 3 with the two 3s, each beside one solid grey below:
    # 2 + 2; its own cell touches the solid grey below; lowest height; a 3 in a run of 3 clears
    assert f[2].tolist() == [1, 4, 1, 0, 0, 2]
    # column 3: a run of 2 (with the cracked grey), nothing equals 2; the cell touches the solid
    # grey below (1) and the cracked grey to its right (2)
    assert f[3].tolist() == [1, 0, 3, 0, 0, 0]
    # column 0: lands at height 2, making the column 3 high: the 3 below equals that and counts
    # 1 + its solid grey below; the disc (a 3) clears by the column height, its own cell
    # touching no grey
    assert f[0].tolist() == [0, 0, 2, 0, 0, 1]
    # a unique tallest column: the column-detonation count again
    tall = rows_to_cols(EMPTY_ABOVE + ["0000900", "8888888"])
    assert _features(tall, 2)[4].tolist() == [0, 0, 2, 2, 0, 0]


def test_the_two_vectors_are_the_registers_and_play_differently() -> None:
    assert len(FEATURES) == 6 and all(len(w) == 6 for w, _ in KF_WEIGHTS.values())
    assert all(src.startswith("RS-20260902T084356Z-") for _, src in KF_WEIGHTS.values())
    rng = np.random.default_rng(7)
    differ = sum(_compiled(cols, d, CEM)[0] != _compiled(cols, d, TRANSPLANTED)[0]
                 for cols in (_random_board(rng) for _ in range(300)) for d in range(1, 8))
    assert differ > 50


def test_the_grammar_round_trips_and_refuses_in_one_line() -> None:
    assert parse_policy("kf:w=cem") == KfSpec("cem")
    assert canonical_policy("kf:w=transplanted") == "kf:w=transplanted"
    for bad, words in (("kf", "w must name weights"), ("kf:w=best", "w must name weights"),
                       ("kf:w=cem,d=3", "unknown parameter 'd'"),
                       ("kf:w=cem,w=cem", "given twice")):
        with pytest.raises(PolicyError) as err:
            parse_policy(bad)
        assert words in str(err.value) and "\n" not in str(err.value)


def test_the_player_is_deterministic_legal_and_ranks_by_its_values() -> None:
    a, b = play_game(load_policy("kf:w=cem"), 5), play_game(load_policy("kf:w=cem"), 5)
    a.pop("wall_s"), b.pop("wall_s")
    assert a == b and a["moves"] > 5 and a["illegal"] == 0
    player = load_policy("kf:w=cem")
    assert offers_values(player)
    rows = ["0000002", "0000003", "1000004", "2000005", "3000006", "4000004", "8888888"]
    cols = rows_to_cols(rows)  # column 6 full
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING] = 4, 3
    r = rank(player, state, cols)
    assert np.isnan(r.values[6]) and np.isfinite(r.values[:6]).all()
    assert r.values[r.choice] == np.nanmax(r.values) and r.fault is None
    assert r.values[:6].tolist() == kf_ref.values(_grid(cols), 4, tuple(CEM))[:6]


def test_a_pinned_weights_file_plays_as_its_vector_and_is_checked(tmp_path) -> None:
    import json

    from contracts.hashing import file_sha256

    path = tmp_path / "cem.json"
    path.write_text(json.dumps(list(kf_weights("cem"))))
    sha = file_sha256(path)
    spec = parse_policy(f"kf:w={sha}:{path}")
    assert spec == KfSpec(None, sha, str(path)) and canonical_policy(spec.format()) == spec.format()
    a, b = play_game(load_policy(spec), 9), play_game(load_policy("kf:w=cem"), 9)
    a.pop("wall_s"), b.pop("wall_s")
    a.pop("policy", None), b.pop("policy", None)
    assert a == b and a["moves"] > 5  # the same vector plays the same game
    other = "0" * 64
    with pytest.raises(PolicyError) as err:
        load_policy(f"kf:w={other}:{path}")
    assert str(path) in str(err.value) and "\n" not in str(err.value)
    load_policy(f"kf:w={other}:{path}", verify=False)  # verify off: the hash is not read
    path.write_text(json.dumps([1.0] * 5))
    with pytest.raises(PolicyError, match="a JSON list of 6 finite numbers"):
        load_policy(f"kf:w={file_sha256(path)}:{path}")
    with pytest.raises(PolicyError, match="needs a SHA-256 and a path"):
        parse_policy(f"kf:w={sha.upper()}:{path}")


def _claim(tmp_path, edit):
    return claims_copy(tmp_path / "c", edit, claim="kf-six-weight-policy-search")


@pytest.mark.parametrize(("edit", "key", "message"), [
    (lambda d: d["arms"]["kf-optimum"].pop("weights"), "arms.kf-optimum.weights",
     "a kf arm needs weights"),
    (lambda d: d["arms"]["kf-optimum"].update(weights="best"), "arms.kf-optimum.weights",
     "'best' is neither a named vector (transplanted, cem) nor kf weights this claim "
     "trains"),
    (lambda d: d["arms"]["kf-optimum"].update(depth=2), "arms.kf-optimum.depth",
     "a kf arm takes no depth"),
    (lambda d: d["arms"]["fair-d4s7"].update(weights="cem"), "arms.fair-d4s7.weights",
     "only a kf arm or a q arm takes weights"),
])
def test_misuse_is_one_line_naming_the_file_and_key(tmp_path, edit, key, message) -> None:
    claims = _claim(tmp_path, edit)
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    text = str(err.value)
    assert "\n" not in text and f"kf-six-weight-policy-search.yaml: key {key}" in text
    assert message in text


@pytest.mark.workflow
def test_the_kf_claim_runs_end_to_end_in_smoke(tmp_path) -> None:
    """The shipped claim by name under smoke: both KF arms play their policy strings, the
    moves contrast and the optimum's threshold are read, the page is written."""
    from workflow_support import failure_report, games_rows, load, plan_of, snakemake

    work = tmp_path / "run"
    work.mkdir()
    result = snakemake(work, "--cores", "2", "--config", "profile=smoke", "--",
                       "kf_six_weight_policy_search")
    if result.returncode != 0:
        pytest.fail(failure_report(result), pytrace=False)
    plan = plan_of("smoke")
    p, paths = plan.claims["kf-six-weight-policy-search"], plan.paths
    primary = load(work / paths.path("contrast", claim=p.id, block=p.label, contrast="primary"))
    assert primary["n"] == p.contrasts["primary"].games
    verdict = load(work / paths.path("verdict", claim=p.id))
    readings = {r["name"]: r for r in verdict["readings"]}
    assert set(readings) == {"primary", "optimum-below", "depth-four", "score"}
    assert "kf-optimum mean" in readings["optimum-below"]["reason"]
    policies = {row["policy"] for f in (work / paths.root).rglob("*.csv")
                if "games" in f.name for row in games_rows(f)}
    assert {"kf:w=cem", "kf:w=transplanted"} <= policies
    assert (work / paths.path("page", claim=p.id)).exists()
