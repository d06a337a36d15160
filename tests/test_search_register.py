"""The register's chance sampling (``Searcher(register_seed=...)``) against the register itself.

``tests/data/register_sampling.json`` holds column values and choices that the register's
own Rust search computed (its header says which files, at which commits); the kernel must
give them bit for bit.  A readable reference that plays every sample holds the kernel's
shortcuts (shared boards, the node table, the leaf cache) to the same sampling with the
fair leaf, and our own sampling is shown to differ, so the fixture tests the sampling.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from claims_support import REPO, claims_copy, fair_depth_claim

from engines.drop7 import core, register_rng
from engines.drop7.board import TERMINAL_UTILITY, rows_to_cols
from engines.drop7.chance import (
    RES_LEN,
    RES_MR,
    RES_POINTS,
    STRATA_SCRATCH_LEN,
    canonicalise,
    play_sample_of,
    play_strata_of,
)
from engines.leaves.linear import FAIR_WEIGHTS, linear_value
from engines.play.arm_specs import REGISTER_POLICY_SEED, PolicyError
from engines.play.policy import load_policy
from engines.play.policy_grammar import parse_policy
from engines.search.leaf import load_leaf
from engines.search.positions import load_positions
from engines.search.searcher import Searcher
from protocol.declaration import load_claims
from protocol.plan import load_plan
from protocol.schema import DeclarationError

FIXTURE = Path(__file__).with_name("data") / "register_sampling.json"
SEED = REGISTER_POLICY_SEED
CLAIM = "fair-depth-prefix"


def _cases() -> list[dict]:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))["cases"]


def _expected(case: dict) -> np.ndarray:
    return np.array([-np.inf if v is None else v for v in case["values"]])


def test_fixture_covers_depths_strata_and_seeds() -> None:
    cases = _cases()
    assert {(c["depth"], c["strata"]) for c in cases} >= {(1, 7), (2, 7), (3, 7), (2, 5)}
    assert len({c["policy_seed"] for c in cases}) >= 2
    assert len(cases) >= 150


def test_kernel_reproduces_the_registers_values_and_choices() -> None:
    """Every column value bit for bit and every choice, as the register's search gives them."""
    searchers: dict[tuple, Searcher] = {}
    for case in _cases():
        key = (case["depth"], case["strata"], case["policy_seed"])
        if key not in searchers:
            searchers[key] = Searcher(load_leaf("zero"), *key[:2], register_seed=key[2])
        cols = rows_to_cols(case["board"])
        choice, values = searchers[key].choose_values(cols, case["disc"], case["moves_remaining"])
        assert choice == case["choice"], case
        assert values.tolist() == _expected(case).tolist(), case


def test_own_sampling_gives_other_values() -> None:
    """The fixture tells the two samplings apart: ours misses most of its d2 values."""
    cases = [c for c in _cases()
             if (c["depth"], c["strata"], c["policy_seed"]) == (2, 7, SEED)]
    own = Searcher(load_leaf("zero"), 2, 7)
    differ = sum(
        own.column_values(rows_to_cols(c["board"]), c["disc"], c["moves_remaining"]).tolist()
        != _expected(c).tolist() for c in cases)
    assert differ > len(cases) // 2


def _values_ref(cols: np.ndarray, disc: int, mr: int, depth: int, strata: int,
                seed: int) -> tuple[list[float], bool]:
    """Readable register search with the fair leaf: every sample of every column played, the
    samples keyed by the node's state seed (not the column), no table, no shared boards."""
    canon = np.zeros(7, dtype=np.int64)
    mirrored = bool(canonicalise(cols, canon))
    node_seed = register_rng.state_seed(canon, disc, mr, seed, depth)
    scratch = np.zeros(2 * core.SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    values = [-np.inf] * 7
    for c in range(7):
        if not core.is_legal(canon, c):
            continue
        total = 0.0
        for s in range(strata):
            child = canon.copy()
            _, mr2 = play_sample_of(core.SRC_REGISTER, child, c, disc, mr, node_seed, strata, s,
                                    scratch, out)
            pts = float(out[core.OUT_POINTS])
            nxt = int(register_rng.sample_disc(node_seed, strata, s))
            if out[core.OUT_OVER]:
                total += pts + TERMINAL_UTILITY
            elif depth == 1:
                leaf_board = np.zeros(7, dtype=np.int64)
                canonicalise(child, leaf_board)
                total += pts + float(linear_value(leaf_board, int(mr2), nxt, FAIR_WEIGHTS))
            else:
                total += pts + max(_values_ref(child, nxt, int(mr2), depth - 1, strata, seed)[0])
        values[c] = total / strata
    return values, mirrored


def test_all_samples_at_once_equal_each_sample() -> None:
    """``play_strata_of`` shares the work before a move's first reveal; with the register's
    draws (a jitter per sample) every row still equals the sample played alone."""
    scratch = np.zeros(STRATA_SCRATCH_LEN, dtype=np.int64)
    out = np.zeros(core.OUT_LEN, dtype=np.int64)
    boards = np.zeros((7, 7), dtype=np.int64)
    res = np.zeros((7, RES_LEN), dtype=np.int64)
    revealing = 0
    for cols, disc, mr in load_positions():
        canon = np.zeros(7, dtype=np.int64)
        canonicalise(cols, canon)
        seed = register_rng.state_seed(canon, disc, mr, SEED, 2)
        for c in range(7):
            if not core.is_legal(canon, c):
                continue
            rows = play_strata_of(core.SRC_REGISTER, canon.copy(), c, disc, mr, seed, 7, boards,
                                  res, 0, scratch, out)
            revealing += rows > 1
            for s in range(rows):
                b = canon.copy()
                _, mr2 = play_sample_of(core.SRC_REGISTER, b, c, disc, mr, seed, 7, s, scratch,
                                        out)
                assert (list(boards[s]), res[s, RES_MR], res[s, RES_POINTS]) == (
                    list(b), mr2, out[core.OUT_POINTS]), (cols.tolist(), c, s)
    assert revealing >= 20


@pytest.mark.parametrize(("depth", "strata"), [(1, 7), (2, 7), (2, 4)])
def test_kernel_equals_readable_register_search(depth: int, strata: int) -> None:
    """The kernel's shortcuts change no value of the register's sampling (fair leaf)."""
    searcher = Searcher(load_leaf("linear"), depth, strata, register_seed=SEED)
    for cols, disc, mr in load_positions()[:: 6 if depth > 1 else 2]:
        ref, mirrored = _values_ref(cols, disc, mr, depth, strata, SEED)
        ref = ref[::-1] if mirrored else ref
        got = searcher.column_values(cols, disc, mr)
        assert np.allclose(got, ref, rtol=1e-12, atol=1e-6), (cols, disc, mr)


def test_register_sampling_is_refused_where_it_does_not_apply() -> None:
    zero = load_leaf("zero")
    with pytest.raises(ValueError, match="factored"):
        Searcher(zero, 2, 7, reveals=2, register_seed=SEED)
    with pytest.raises(ValueError, match="32-bit"):
        Searcher(zero, 2, 7, register_seed=1 << 32)
    with pytest.raises(ValueError, match="32-bit"):
        Searcher(zero, 2, 7, register_seed=-1)


# ---- the declared option: policy string and claim key ----------------------------------------

def test_the_policy_string_round_trips_and_plays_the_registers_sampling() -> None:
    spec = parse_policy("search:leaf=zero,d=2,s=7,sampling=register")
    assert spec.sampling == SEED and spec.format() == "search:leaf=zero,d=2,s=7,sampling=register"
    other = parse_policy("direct:leaf=linear,sampling=register:0x3039")
    assert other.sampling == 12345
    assert other.format() == "direct:leaf=linear,sampling=register:12345"
    assert parse_policy("search:leaf=zero,d=2,s=7").sampling is None  # our own, as before
    case = next(c for c in _cases() if (c["depth"], c["strata"], c["policy_seed"]) == (2, 7, SEED))
    player = load_policy(spec.format())
    assert player.searcher.register_seed == SEED
    cols = rows_to_cols(case["board"])
    assert player.searcher.choose(cols, case["disc"], case["moves_remaining"]) == case["choice"]


@pytest.mark.parametrize("text", ["search:leaf=zero,sampling=own",
                                  "search:leaf=zero,sampling=register:",
                                  "search:leaf=zero,sampling=register:4294967296",
                                  "search:leaf=zero,r=2,sampling=register"])
def test_a_bad_sampling_is_refused(text: str) -> None:
    with pytest.raises(PolicyError, match="sampling"):
        parse_policy(text)


def _sampling_claim() -> dict:
    doc = fair_depth_claim()
    doc["arms"] = {"fair-d2s7-register": {"play": "search", "depth": 2, "strata": 7,
                                          "leaf": "linear", "sampling": "register"},
                   "fair-d2s7": {"play": "search", "depth": 2, "strata": 7, "leaf": "linear"}}
    doc["contrasts"] = {"depth": {"difference": ["fair-d2s7-register", "fair-d2s7"]}}
    return doc


def test_a_claim_declares_the_registers_sampling(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c", extra={CLAIM: _sampling_claim()})
    plan = load_plan(REPO, {"profile": "pilot", "claims_dir": str(claims)}).claims[CLAIM]
    assert plan.arms["fair-d2s7-register"].policy == "search:leaf=linear,d=2,s=7,sampling=register"
    assert plan.arms["fair-d2s7"].policy == "search:leaf=linear,d=2,s=7"


@pytest.mark.parametrize(("arm", "message"), [
    ({"sampling": "register:99999999999"}, "key arms.bad.sampling: sampling must be"),
    ({"sampling": "mine"}, "key arms.bad.sampling"),
    ({"sampling": "register", "reveals": 2}, "key arms.bad.sampling: the register's sampling "
     "has no factored chance node"),
    ({"play": "random", "sampling": "register"}, "key arms.bad.sampling: the random baseline "
     "takes no sampling"),
])
def test_a_bad_sampling_declaration_is_one_line(tmp_path, arm: dict, message: str) -> None:
    doc = _sampling_claim()
    doc["arms"]["bad"] = {"play": "search", "depth": 2, "strata": 7, "leaf": "linear", **arm}
    for key in ("depth", "strata", "leaf") if arm.get("play") == "random" else ():
        del doc["arms"]["bad"][key]
    claims = claims_copy(tmp_path / "c", extra={CLAIM: doc})
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    assert str(err.value).startswith(str(claims / f"{CLAIM}.yaml") + ": ")
    assert message in str(err.value) and "\n" not in str(err.value)
