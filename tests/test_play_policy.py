"""Policy strings: parsing, the canonical form, errors, loading."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engines.drop7 import core
from engines.leaves.kinds import N_TERMS, LeafSpec
from engines.play.arm_specs import PolicyError, SearchSpec
from engines.play.players import BaselinePolicy, SearchPolicy
from engines.play.policy import load_policy
from engines.play.policy_grammar import canonical_policy, parse_policy

CANONICAL = [
    "random",
    "centre-first",
    "lowest-column",
    "search:leaf=linear,d=3,s=7",
    "search:leaf=zero,d=1,s=3",
    "search:leaf=ntuple:results/weights/A/step-2,d=3,s=7",
    "search:leaf=linear-trained:/abs/path/w,d=4,s=7",
    "direct:leaf=linear",
    "direct:leaf=ntuple:w/A",
    "direct:leaf=zero,s=5",
    "search:leaf=linear,d=3,s=7,r=6",
    "search:leaf=linear,d=4,s=7,r=1",
    "direct:leaf=linear,r=2",
    "direct:leaf=zero,s=5,r=12",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_strings_round_trip(text: str) -> None:
    spec = parse_policy(text)
    assert spec.format() == text == str(spec)
    assert parse_policy(spec.format()) == spec


@pytest.mark.parametrize(("text", "canonical"), [
    ("search:s=7,d=3,leaf=linear", "search:leaf=linear,d=3,s=7"),
    ("search:leaf=linear", "search:leaf=linear,d=3,s=7"),
    ("search:d=2,leaf=zero", "search:leaf=zero,d=2,s=7"),
    ("direct:leaf=linear,s=7", "direct:leaf=linear"),
    ("direct:s=3,leaf=ntuple:a:b", "direct:leaf=ntuple:a:b,s=3"),
    ("search:r=6,leaf=linear", "search:leaf=linear,d=3,s=7,r=6"),
    ("search:r=2,s=7,leaf=linear,d=4", "search:leaf=linear,d=4,s=7,r=2"),
    ("direct:r=3,leaf=linear,s=7", "direct:leaf=linear,r=3"),
])
def test_other_spellings_canonicalise(text: str, canonical: str) -> None:
    assert canonical_policy(text) == canonical


def test_parsed_fields() -> None:
    spec = parse_policy("search:leaf=ntuple:w/A,d=2,s=5")
    assert spec == SearchSpec("search", LeafSpec("ntuple", "w/A"), 2, 5)
    assert parse_policy("direct:leaf=zero") == SearchSpec("direct", LeafSpec("zero"), 1, 7)
    assert parse_policy("search:leaf=linear,r=6").reveals == 6
    assert parse_policy("search:leaf=linear").reveals is None  # not declared: never written


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty policy"),
    ("greedy", "unknown policy 'greedy'"),
    ("Random", "unknown policy"),
    ("random:x=1", "takes no parameters"),
    ("search", "needs parameters"),
    ("search:", "needs parameters"),
    ("search:d=3,s=7", "missing parameter 'leaf'"),
    ("search:leaf=linear,depth=3", "unknown parameter 'depth'"),
    ("search:leaf=linear,d=3,d=4", "given twice"),
    ("search:leaf=linear,d=0", "d must be an integer 1..6"),
    ("search:leaf=linear,d=x", "d must be an integer"),
    ("search:leaf=linear,s=65", "s must be an integer 1..64"),
    ("search:leaf=linear,s=-1", "s must be an integer"),
    ("search:leaf=linear,r=0", "r must be an integer 1..12"),
    ("search:leaf=linear,r=13", "r must be an integer 1..12"),
    ("direct:leaf=linear,r=x", "r must be an integer 1..12"),
    ("search:leaf=linear,r=2,r=3", "given twice"),
    ("direct:leaf=linear,d=3", "unknown parameter 'd'"),
    ("search:leaf=fair", "unknown leaf 'fair'"),
    ("search:leaf=ntuple", "needs a path"),
    ("search:leaf=ntuple:", "needs a path"),
    ("search:leaf=linear:x", "takes no path"),
    ("search:leaf=ntuple:a,b", "not KEY=VALUE"),
])
def test_errors_are_one_clear_line(text: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message) as info:
        parse_policy(text)
    assert "\n" not in str(info.value)


def test_load_builds_the_right_players() -> None:
    assert isinstance(load_policy("random"), BaselinePolicy)
    player = load_policy("search:leaf=zero,d=2,s=3")
    assert isinstance(player, SearchPolicy)
    assert (player.searcher.depth, player.searcher.strata) == (2, 3)
    assert load_policy("direct:leaf=linear").searcher.depth == 1
    assert player.name == "search:leaf=zero,d=2,s=3"
    assert player.searcher.reveals is None
    factored = load_policy("search:leaf=zero,d=2,s=3,r=4")
    assert factored.searcher.reveals == 4 and factored.name.endswith(",r=4")
    assert load_policy("direct:leaf=linear,r=6").searcher.reveals == 6


def test_load_errors_for_missing_or_bad_weights(tmp_path) -> None:
    with pytest.raises(PolicyError, match="no manifest"):
        load_policy(f"direct:leaf=ntuple:{tmp_path / 'nothing'}")
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(PolicyError, match=r"not a drop7-weights-v2 \(or drop7-weights-v1\)"):
        load_policy(f"search:leaf=linear-trained:{tmp_path},d=1,s=7")


def test_linear_trained_loads_saved_weights(tmp_path) -> None:
    from engines.weights_files import array_chunks, save_weights

    weights = np.arange(N_TERMS, dtype=np.float64) - 9.0
    save_weights(tmp_path / "w", (N_TERMS,), np.float64, array_chunks(weights),
                 {"kind": "linear", "layout": "linear"})
    player = load_policy(f"direct:leaf=linear-trained:{tmp_path / 'w'}")
    assert np.array_equal(player.searcher.leaf.weights, [*weights, 0.0])  # no intercept
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    core.new_game(np.uint64(3), state, cols)
    assert 0 <= player.choose(state, cols) <= 6


def test_search_policy_reads_only_the_public_state() -> None:
    """Two games' states with equal public fields get the same choice."""
    player = load_policy("search:leaf=linear,d=2,s=7")
    a = np.zeros(core.ST_LEN, dtype=np.int64)
    b = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    core.new_game(np.uint64(1), a, cols)
    core.new_game(np.uint64(2), b, cols)
    b[core.ST_NEXT_DISC] = a[core.ST_NEXT_DISC]
    b[core.ST_SCORE] = 12345  # neither score nor level enter the search
    player.new_game(1)
    first = player.choose(a, cols)
    player.new_game(2)
    assert player.choose(b, cols) == first


def test_an_external_policy_pins_its_command_words_by_sha256() -> None:
    """``sha256.N`` names a command word's file by its hash; it round-trips and is checked."""
    from engines.play.arm_specs import ExternalSpec

    pin = "0123456789abcdef" * 4
    text = f"external[movetime=5,option.side=left,sha256.1={pin}]:python3 p/player.py"
    spec = parse_policy(text)
    assert isinstance(spec, ExternalSpec) and spec.pins == ((1, pin),)
    assert spec.format() == text
    for bad, said in [(f"sha256.2={pin}", "sha256.2 must be an integer 0..1"),
                      (f"sha256.01={pin}", "write sha256.1"),
                      (f"sha256.1={pin.upper()}", "upper-case hex digits"),
                      ("sha256.1=TODO", "a placeholder")]:
        with pytest.raises(PolicyError, match=said):
            parse_policy(f"external[{bad}]:python3 p/player.py")
