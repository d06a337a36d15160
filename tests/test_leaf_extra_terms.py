"""Extra leaf terms: ``aligned_double_hit`` in numba equals its readable twin and hand counts;
a leaf naming it plays the fair leaf plus the weighted term, one naming none is the fair leaf;
misuse (an unknown term, a vector of the wrong length, a term on a leaf that is not linear) is
refused in one line."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from claims_support import REPO, fair_depth_claim, write_claim
from hypothesis import given, settings
from hypothesis import strategies as st
from test_leaf_twins import game_state, packed_grids

from engines.drop7.board import pack, rows_to_cols, unpack
from engines.leaves.cli import leaf_terms_lines
from engines.leaves.double_hit_ref import aligned_double_hit as reference
from engines.leaves.extra_terms import EXTRA_TERMS, N_EXTRA
from engines.leaves.kinds import LeafError, parse_leaf
from engines.leaves.linear import FAIR_WEIGHTS, linear_value_no_disc
from engines.leaves.linear_extra import extra_terms_into
from engines.pinned_leaf import PinnedError, check_pinned
from engines.play.policy_grammar import canonical_policy
from engines.search.leaf import LEAF_LINEAR_TERMS, leaf_base, leaf_disc, load_leaf
from engines.search.searcher import Searcher
from protocol.checks import before_any_job
from protocol.plan import load_plan
from protocol.schema import DeclarationError

TERM = "aligned_double_hit"


def fast(cols: np.ndarray, moves_remaining: int = 5) -> float:
    out = np.zeros(N_EXTRA)
    extra_terms_into(np.asarray(cols, dtype=np.int64), moves_remaining, out)
    return float(out[EXTRA_TERMS[TERM].code])


def both(rows: list[str]) -> tuple[float, float]:
    grid = [[int(ch) for ch in row] for row in rows]
    return fast(rows_to_cols(rows)), reference(grid)


EMPTY = ["0000000"] * 5


@pytest.mark.parametrize(("rows", "count"), [
    (EMPTY + ["0000000", "0800000"], 0.0),           # a solid grey alone
    (EMPTY + ["0000000", "2920000"], 0.0),           # a cracked grey: no double hit to price
    (EMPTY + ["0000000", "3800000"], 0.0),           # one neighbour: no pair
    # each 2 sits on a column of height 1 (vadd = ready(1) = 1), and releases the other
    # (hrel = 1 = add, not above it): one row pair, support 1 x 1
    (EMPTY + ["0000000", "2820000"], 1.0),
    (EMPTY + ["0000000", "2820282"], 2.0),           # two such greys
    # 3s on columns of height 1: vadd = ready(2) = 0.5 each, no release: 0.5 x 0.5
    (EMPTY + ["0000000", "3830000"], 0.25),
    # the 2 above the grey completes its row by one disc on column 2 (hadd = 1), the 2 right
    # of the grey by one disc on column 2 (vadd = 1): their paths share cell (5, 2), one drop
    # serves both, so the column/row pair is not two hits in one wave
    (EMPTY + ["0200000", "0820000"], 0.0),
    # above and below the grey: the 4 has add 1 (vadd = ready(4 - 3)); the 2 has add 0 and
    # rel 1 (its row-mate 2 in column 2 has add 1, hrel = 1 x ready(1)): release above add,
    # it pops in a later wave, so the one pair is not counted (1 x 1 without the rule)
    (["0000000"] * 4 + ["4000000", "8000000", "2120000"], 0.0),
])
def test_hand_counted_boards(rows, count) -> None:
    assert both(rows) == (count, count)


@settings(max_examples=400, deadline=None)
@given(grid=packed_grids(), moves_remaining=st.integers(1, 5))
def test_twins_agree_on_random_packed_grids(grid, moves_remaining) -> None:
    assert fast(pack(grid), moves_remaining) == reference(grid.tolist())


def test_twins_agree_on_boards_from_real_games_and_the_term_is_not_rare() -> None:
    positive = 0
    for seed in range(1, 41):
        for moves in (10, 25, 40, 60):
            cols, mr, _ = game_state(seed, seed % 3, moves)
            value = fast(cols, mr)
            assert value == reference(unpack(cols).tolist()), (seed, moves)
            positive += value > 0
    assert positive >= 5


def test_the_term_is_bounded_by_its_registered_bound() -> None:
    full = ["2828282", "8282828"] * 3 + ["2828282"]
    assert 0.0 <= fast(rows_to_cols(full)) <= EXTRA_TERMS[TERM].bound


# ---- the leaf with the term --------------------------------------------------------------

def vector_file(tmp_path, values, name="w.json"):
    path = tmp_path / name
    path.write_text(json.dumps([float(v) for v in values]))
    return path, hashlib.sha256(path.read_bytes()).hexdigest()


STATES = [game_state(seed, 1, moves) for seed in (3, 7, 11) for moves in (15, 40)]


def test_a_leaf_with_the_term_adds_its_weighted_value(tmp_path) -> None:
    path, digest = vector_file(tmp_path, [*FAIR_WEIGHTS, 900.0])
    leaf = load_leaf(f"linear-file[{TERM}]:{digest}:{path}")
    assert leaf.kind == LEAF_LINEAR_TERMS
    fair = load_leaf("linear")
    for cols, mr, disc in STATES:
        base = leaf_base(leaf.kind, cols, mr, leaf.weights, leaf.tables, leaf.spec)
        assert base == linear_value_no_disc(cols, mr, FAIR_WEIGHTS) + 900.0 * fast(cols, mr)
        assert leaf_disc(leaf.kind, cols, disc, leaf.weights) == leaf_disc(
            fair.kind, cols, disc, fair.weights)


def test_a_term_of_weight_zero_plays_the_fair_leaf_bit_for_bit(tmp_path) -> None:
    path, digest = vector_file(tmp_path, [*FAIR_WEIGHTS, 0.0])
    leaf = load_leaf(f"linear-file[{TERM}]:{digest}:{path}")
    fair = load_leaf("linear")
    for cols, mr, disc in STATES:
        assert leaf_base(leaf.kind, cols, mr, leaf.weights, leaf.tables, leaf.spec) == \
            leaf_base(fair.kind, cols, mr, fair.weights, fair.tables, fair.spec)
        mine, theirs = Searcher(leaf, 2, 3), Searcher(fair, 2, 3)
        assert mine.choose(cols, mr, disc) == theirs.choose(cols, mr, disc)


def test_the_leaf_text_names_its_terms_and_round_trips() -> None:
    text = f"search:leaf=linear-file[{TERM}]:{'a' * 64}:w/x.json,d=3,s=7"
    assert canonical_policy(text) == text
    assert parse_leaf(f"linear-file[{TERM}]:{'a' * 64}:w/x.json").terms == (TERM,)
    assert parse_leaf(f"linear-file:{'a' * 64}:w/x.json").terms == ()


@pytest.mark.parametrize(("text", "message"), [
    (f"linear-file[nope]:{'a' * 64}:w.json", "unknown term 'nope'"),
    (f"linear-file[{TERM}+{TERM}]:{'a' * 64}:w.json", "given twice"),
    (f"ntuple-file[{TERM}]:{'a' * 64}:w", "takes no extra terms"),
    (f"linear[{TERM}]", "takes no extra terms"),
    (f"linear-file[{TERM}:{'a' * 64}:w.json", "KIND\\[TERM\\+TERM\\]"),
])
def test_a_misused_term_in_a_leaf_text_is_refused(text, message) -> None:
    with pytest.raises(LeafError, match=message):
        parse_leaf(text)


@pytest.mark.parametrize("length", [18, 21])
def test_a_vector_not_of_the_declared_length_is_refused(tmp_path, length) -> None:
    path, digest = vector_file(tmp_path, np.ones(length))
    with pytest.raises(PinnedError, match=f"18 weights and one per declared term .*got shape "
                                          f"\\[{length}\\]"):
        check_pinned(path, digest, (TERM,))


def test_the_term_and_an_intercept_read_in_their_order(tmp_path) -> None:
    path, digest = vector_file(tmp_path, [*FAIR_WEIGHTS, 900.0, 5.0])
    leaf = load_leaf(f"linear-file[{TERM}]:{digest}:{path}")
    assert leaf.weights[18] == 5.0 and leaf.weights[19 + EXTRA_TERMS[TERM].code] == 900.0


def test_leaf_terms_prints_the_extra_term_when_asked() -> None:
    state = {"board": EMPTY + ["0000000", "2820282"], "moves_remaining": 5, "next_disc": 2}
    plain, = leaf_terms_lines([json.dumps(state)])
    named, = leaf_terms_lines([json.dumps(state)], (TERM,))
    assert "extra" not in json.loads(plain)
    assert json.loads(named)["extra"] == {TERM: 2.0}
    assert json.loads(named)["value"] == json.loads(plain)["value"]


# ---- the claim key -------------------------------------------------------------------------

def _claim(tmp_path, leaf: dict):
    doc = fair_depth_claim(block=91)
    doc["arms"]["fair-d2s7"] = {"play": "search", "depth": 2, "strata": 7, "leaf": leaf}
    own = tmp_path / "mine"
    own.mkdir(exist_ok=True)
    return own, write_claim(own, doc)


def _plan(own):
    return load_plan(REPO, {"profile": "smoke", "claims_dir": str(own)})


def test_a_claim_declares_terms_on_a_pinned_vector(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    _, digest = vector_file(tmp_path, [*FAIR_WEIGHTS, 900.0])
    own, _ = _claim(tmp_path, {"file": "w.json", "sha256": digest, "terms": [TERM]})
    plan = _plan(own)
    arm = plan.claims["fair-depth-prefix"].arms["fair-d2s7"]
    assert arm.policy == f"search:leaf=linear-file[{TERM}]:{digest}:w.json,d=1,s=3"
    assert arm.pinned.describe()["terms"] == [TERM]
    before_any_job(plan)


@pytest.mark.parametrize(("terms", "values", "key", "message"), [
    (["nope"], [*FAIR_WEIGHTS, 1.0], "terms", "unknown term 'nope' \\(registered: "),
    ([TERM], list(FAIR_WEIGHTS), "file", "got shape \\[18\\]"),
])
def test_a_claims_misused_term_is_refused_before_any_job(tmp_path, monkeypatch, terms, values,
                                                         key, message) -> None:
    monkeypatch.chdir(tmp_path)
    _, digest = vector_file(tmp_path, values)
    own, path = _claim(tmp_path, {"file": "w.json", "sha256": digest, "terms": terms})
    with pytest.raises(DeclarationError, match=message) as err:
        before_any_job(_plan(own))
    line = str(err.value)
    assert line.startswith(f"{path}: key arms.fair-d2s7.leaf.{key}: ") and "\n" not in line


def test_a_term_on_a_weights_directory_is_refused_at_the_plan(tmp_path, monkeypatch) -> None:
    from engines.weights_files import array_chunks, save_weights

    monkeypatch.chdir(tmp_path)
    manifest = save_weights(tmp_path / "lin", (18,), np.float64, array_chunks(FAIR_WEIGHTS),
                            {"kind": "linear", "layout": "linear", "entries": 18})
    own, path = _claim(tmp_path, {"file": "lin", "sha256": manifest["sha256"],
                                  "terms": [TERM]})
    with pytest.raises(DeclarationError, match=f"^{path}: key arms.fair-d2s7.leaf.terms: lin "
                                               "holds a linear-file weights directory"):
        _plan(own)


def test_drop7_leaf_terms_prints_the_term_and_refuses_an_unknown_one(tmp_path, capsys) -> None:
    from cli.main import main

    path = tmp_path / "states.jsonl"
    path.write_text(json.dumps({"board": EMPTY + ["0000000", "3830000"], "moves_remaining": 5,
                                "next_disc": 2}) + "\n")
    assert main(["leaf-terms", "--terms", TERM, str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["extra"] == {TERM: 0.25}
    assert main(["leaf-terms", "--terms", "nope", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "--terms: unknown term 'nope'" in err


def test_whole_games_with_the_term_at_weight_zero_are_the_fair_leafs(tmp_path) -> None:
    """Through the policy string, the game loop and the search: weight 0 plays the fair
    leaf's games move for move; the shipped +900 plays games of its own, the same twice."""
    from engines.play.games import play_game
    from engines.play.policy import load_policy

    path, digest = vector_file(tmp_path, [*FAIR_WEIGHTS, 0.0])
    zero = load_policy(f"search:leaf=linear-file[{TERM}]:{digest}:{path},d=1,s=3")
    fair = load_policy("search:leaf=linear,d=1,s=3")
    shipped = "config/pinned/reveal-construction-a900.json"
    dose = f"linear-file[{TERM}]:{hashlib.sha256((REPO / shipped).read_bytes()).hexdigest()}"
    priced = load_policy(f"search:leaf={dose}:{REPO / shipped},d=1,s=3")
    differs = 0
    for seed in (1, 2, 3):
        a, b = play_game(zero, seed), play_game(fair, seed)
        assert a["trajectory"] == b["trajectory"] and a["score"] == b["score"]
        c = play_game(priced, seed)
        assert c["trajectory"] == play_game(priced, seed)["trajectory"]
        differs += c["trajectory"] != b["trajectory"]
    assert differs >= 1
