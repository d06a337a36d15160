"""The one-ply linear Q: its kernel against its readable twin on real positions, the exact
one-ply value inside its features, the ridge fit (known weights recovered, better than a
zero Q, the same for any shard count), the frozen weights file and the player."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engines.drop7 import core
from engines.drop7.board import rows_to_cols
from engines.filters import oneply_q_ref as ref
from engines.filters.oneply_q import (
    BIAS,
    DELTA,
    FEATURE_NAMES,
    KF0,
    N_FEATURES,
    TERMINAL,
    d1_weights,
    oneply_features,
    q_values,
    q_work,
)
from engines.filters.oneply_q_weights import read_q, save_q
from engines.play import oneply_q_fit as fit
from engines.play.arm_specs import PolicyError, QSpec
from engines.play.panel import PanelRoot
from engines.play.policy import load_policy
from engines.play.policy_grammar import canonical_policy, parse_policy
from engines.play.rankers import offers_values, rank
from engines.search.leaf import load_leaf
from engines.search.positions import load_positions
from engines.search.searcher import Searcher
from engines.seedbank import load_bank
from engines.weights_files import WeightsError

POSITIONS = load_positions()
#: a board one move from its end: any drop fills a top cell before the rise
NEAR_END = [(rows_to_cols(["0000000"] + ["8888888"] * 6), 3, 1),
            (rows_to_cols(["0000000", "8800000", *["8888888"] * 5]), 2, 1)]


def _features(cols: np.ndarray, disc: int, mr: int, strata: int = 7, reveals: int = 1
              ) -> tuple[np.ndarray, int]:
    feats = np.zeros((7, N_FEATURES))
    legal = oneply_features(cols, disc, mr, strata, reveals, feats, q_work(strata, reveals))
    return feats, int(legal)


def _twin_mismatches(cols, disc, mr, feats, legal, strata=7, reveals=1) -> list[int]:
    """The legal columns whose compiled features differ from the twin's in any bit."""
    return [x for x in range(7) if (legal >> x) & 1 and not np.array_equal(
        feats[x], np.array(ref.column_features(cols, x, disc, mr, strata, reveals)))]


def _roots(positions) -> list[PanelRoot]:
    """Panel roots of public states (two to a 'game', so split halves have games)."""
    roots = []
    for i, (cols, disc, mr) in enumerate(positions):
        state = np.zeros(core.ST_LEN, dtype=np.int64)
        state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING] = disc, mr
        roots.append(PanelRoot(i // 2, i % 2, cols, state))
    return roots


@pytest.mark.parametrize("reveals", [1, 2])
def test_kernel_equals_twin_on_real_positions(reveals: int) -> None:
    checked = 0
    for cols, disc, mr in POSITIONS[::6]:
        feats, legal = _features(cols, disc, mr, 7, reveals)
        assert legal == sum(1 << c for c in range(7) if core.is_legal(cols, c))
        assert _twin_mismatches(cols, disc, mr, feats, legal, 7, reveals) == []
        weights = np.random.default_rng(disc + 10 * mr).normal(size=N_FEATURES)
        out = np.zeros(7)
        chosen = q_values(cols, disc, mr, 7, reveals, weights, out, q_work(7, reveals))
        values, chosen_ref = ref.q_values(cols, disc, mr, list(weights), 7, reveals)
        assert out.tolist() == values and int(chosen) == chosen_ref
        checked += bin(legal).count("1")
    assert checked > 50


def test_a_shifted_feature_is_caught() -> None:
    """A kernel whose Klein-Friedmann block sat one index over would differ from the twin, and
    a weight vector shifted by one does not give the one-ply value."""
    cols, disc, mr = next(p for p in POSITIONS if _features(*p)[0][:, KF0:KF0 + 6].any())
    feats, legal = _features(cols, disc, mr)
    shifted = feats.copy()
    shifted[:, KF0 + 1:KF0 + 6] = feats[:, KF0:KF0 + 5]
    assert _twin_mismatches(cols, disc, mr, shifted, legal) != []
    d1 = Searcher(load_leaf("linear"), 1, 7).column_values(cols, disc, mr)
    q = np.where(np.isneginf(d1), -np.inf, feats @ np.roll(d1_weights(), 1))
    assert not np.allclose(q[np.isfinite(d1)], d1[np.isfinite(d1)])


@pytest.mark.parametrize("reveals", [None, 2])
def test_the_features_hold_the_exact_one_ply_value(reveals: int | None) -> None:
    """The theory's claim, checked against the search: the fair leaf's weights on the leaf
    terms, 1 on the points and the terminal utility on the terminal fraction give the d1s7
    search's column values (to float rounding: the sums run in another order) and its choice."""
    searcher = Searcher(load_leaf("linear"), 1, 7, reveals=reveals)
    work, out, w = q_work(7, reveals or 1), np.zeros(7), d1_weights()
    dead = 0
    for cols, disc, mr in POSITIONS + NEAR_END:
        d1 = searcher.column_values(cols, disc, mr)
        chosen = q_values(cols, disc, mr, 7, reveals or 1, w, out, work)
        assert np.array_equal(np.isneginf(d1), np.isneginf(out))
        legal = np.isfinite(d1)
        np.testing.assert_allclose(out[legal], d1[legal], rtol=1e-12, atol=1e-6)
        assert chosen == searcher.choose(cols, disc, mr)
        feats, _ = _features(cols, disc, mr, 7, reveals or 1)
        dead += int((feats[:, TERMINAL] > 0).any())
    assert dead == len(NEAR_END)  # the terminal fraction is read


def _synthetic(rng: np.random.Generator, w_true: np.ndarray, roots: int = 60) -> fit.Labels:
    x = rng.normal(size=(roots * 5, N_FEATURES))
    x[:, BIAS] = 1.0
    return fit.Labels(x, x @ w_true, np.tile(np.arange(5), roots),
                      np.repeat(np.arange(roots), 5), np.repeat(np.arange(roots), 5)
                      .astype(np.uint64))


def test_the_ridge_fit_recovers_known_weights() -> None:
    rng = np.random.default_rng(7)
    w_true = rng.normal(size=N_FEATURES) * 100
    labels = _synthetic(rng, w_true)
    np.testing.assert_allclose(fit.fit_weights(labels, 0.0, "raw"), w_true, rtol=1e-9,
                               atol=1e-7)
    centred = fit.fit_weights(labels, 0.0, "centred")
    assert centred[BIAS] == 0.0
    np.testing.assert_allclose(np.delete(centred, BIAS), np.delete(w_true, BIAS), rtol=1e-9,
                               atol=1e-7)
    shrunk = fit.fit_weights(labels, 10.0, "raw")  # a penalty pulls the weights in
    assert np.linalg.norm(np.delete(shrunk, BIAS)) < np.linalg.norm(np.delete(w_true, BIAS))
    with pytest.raises(ValueError, match="target"):
        fit.fit_weights(labels, 0.0, "ranked")


@pytest.fixture(scope="module")
def labelled():
    """d2s7 labels of the shipped positions, in one shard and in two."""
    reference = load_policy("search:leaf=linear,d=2,s=7")
    roots = _roots(POSITIONS)
    one = fit.label_rows(reference, roots)
    two = fit.Labels.join([fit.label_rows(reference, roots, shard=k, shards=2)
                           for k in (2, 1)])
    return roots, one, two


def test_one_and_two_shards_give_the_same_rows_and_weights(labelled) -> None:
    _, one, two = labelled
    for key in ("features", "values", "column", "root", "game"):
        assert np.array_equal(getattr(one, key), getattr(two, key)), key
    assert fit.fit_weights(one).tobytes() == fit.fit_weights(two).tobytes()


def test_a_fit_beats_a_zero_q(labelled, tmp_path) -> None:
    roots, labels, _ = labelled
    weights, report = fit.fit_report(labels, roots, fit.DEFAULT_LAMBDA, "centred")
    zero = fit.agreement(np.zeros(N_FEATURES), labels, roots)
    assert report["roots"] == len(roots) and report["rows"] == len(labels.values)
    assert report["top1_in_sample"] > zero + 0.05  # 0.35 against 0.25 on these 60 roots
    assert len(report["top1_split_half"]) == 2
    manifest = save_q(tmp_path / "q", weights, report)
    assert read_q(tmp_path / "q", manifest["sha256"]).tobytes() == weights.tobytes()


def test_training_roots_are_training_games() -> None:
    roots = fit.training_roots(load_policy("centre-first"), 5, 2, every=4)
    bank = load_bank()
    assert roots and {bank.role_of(r.game) for r in roots} == {"training"}
    assert {r.game for r in roots} == {int(s) for s in bank.training(5, 2)}


def test_the_weights_file_is_checked(tmp_path) -> None:
    w = d1_weights()
    manifest = save_q(tmp_path / "q", w, {"note": "d1"})
    assert manifest["kind"] == "oneply-q" and manifest["features"] == list(FEATURE_NAMES)
    with pytest.raises(WeightsError, match="SHA-256"):
        read_q(tmp_path / "q", "0" * 64)
    doc = json.loads((tmp_path / "q" / "manifest.json").read_text())
    doc["features"] = doc["features"][1:] + doc["features"][:1]  # another order
    (tmp_path / "q" / "manifest.json").write_text(json.dumps(doc))
    with pytest.raises(WeightsError, match="features"):
        read_q(tmp_path / "q", manifest["sha256"])
    with pytest.raises(WeightsError, match="finite"):
        save_q(tmp_path / "bad", np.full(N_FEATURES, np.nan), {})


def test_the_player_and_ranker(tmp_path) -> None:
    manifest = save_q(tmp_path / "q", d1_weights(), {})
    text = f"q:w={manifest['sha256']}:{tmp_path / 'q'}"
    spec = parse_policy(text)
    assert isinstance(spec, QSpec) and canonical_policy(text) == text
    assert canonical_policy(f"{text},s=7,r=1") == text
    player = load_policy(spec)
    assert offers_values(player)
    searcher = Searcher(load_leaf("linear"), 1, 7)
    for cols, disc, mr in POSITIONS[::10]:
        state = np.zeros(core.ST_LEN, dtype=np.int64)
        state[core.ST_NEXT_DISC], state[core.ST_MOVES_REMAINING] = disc, mr
        ranking = rank(player, state, cols)
        d1 = searcher.column_values(cols, disc, mr)
        assert ranking.choice == searcher.choose(cols, disc, mr)
        np.testing.assert_allclose(ranking.values, np.where(np.isneginf(d1), np.nan, d1),
                                   rtol=1e-12, atol=1e-6)
    with pytest.raises(PolicyError, match="SHA-256"):
        load_policy(f"q:w={'1' * 64}:{tmp_path / 'q'}")
    with pytest.raises(PolicyError, match="w=SHA256:PATH"):
        parse_policy("q:w=cem")


def test_delta_and_terminal_are_where_the_names_say() -> None:
    assert FEATURE_NAMES[DELTA] == "delta_mean" and FEATURE_NAMES[TERMINAL] == "terminal_frac"
    assert FEATURE_NAMES[BIAS] == "bias" and len(FEATURE_NAMES) == N_FEATURES == 32


@pytest.mark.parametrize(("edit", "key", "message"), [
    (lambda a: a.update(play="q", weights="cem"), "arms.kf-optimum.weights",
     "'cem' is not weights this claim trains for a q arm (none)"),
    (lambda a: (a.update(play="q"), a.pop("weights")), "arms.kf-optimum.weights",
     "a q arm needs weights"),
    (lambda a: a.update(play="q", weights={"file": "q", "sha256": "0" * 64}, depth=2),
     "arms.kf-optimum.depth", "a q arm takes no depth"),
])
def test_a_q_arms_misuse_is_one_line_naming_the_file_and_key(tmp_path, edit, key, message
                                                               ) -> None:
    from claims_support import claims_copy

    from protocol.declaration import load_claims
    from protocol.schema import DeclarationError

    claims = claims_copy(tmp_path / "c", lambda d: edit(d["arms"]["kf-optimum"]),
                         claim="kf-six-weight-policy-search")
    with pytest.raises(DeclarationError) as err:
        load_claims(claims)
    text = str(err.value)
    assert "\n" not in text and f"kf-six-weight-policy-search.yaml: key {key}" in text
    assert message in text


def test_the_ridge_q_learner_checks_its_keys_in_one_line(tmp_path) -> None:
    """``learner: ridge-q`` reaches the declaration (its keys, its policies checked, each
    misuse one line); its command is drop7 fit-q writing the fit to q/ in its directory."""
    import shlex

    from claims_support import claims_copy

    from engines.learners import get_learner
    from protocol import commands
    from protocol.declaration import load_claim
    from protocol.schema import DeclarationError

    train = {"learner": "ridge-q", "roots_policy": "search:leaf=linear,d=4,s=7",
             "reference": "search:leaf=linear,d=4,s=7", "games": 32}
    assert get_learner("ridge-q").entries(None) == N_FEATURES
    for t, key in (({**train, "reference": "kf:w=cem"}, "train.reference: kf:w=cem is not a "
                                                        "search"),
                   ({**train, "target": "ranked"}, "train.target"),
                   ({**train, "moves": 5}, "unknown key weights.linear-trained.train.moves")):
        def edit(d, t=t):
            d["weights"]["linear-trained"] = {"train": t}  # one job: no select
        folder = claims_copy(tmp_path / str(len(key)), edit, claim="linear-trained-leaf")
        with pytest.raises(DeclarationError) as err:
            load_claim(folder / "linear-trained-leaf.yaml")
        assert "\n" not in str(err.value) and key in str(err.value), str(err.value)
    words = shlex.split(commands.train("ridge-q", {**train, "every": 2}, 32, "t d", 0))
    assert words[:2] == ["drop7", "fit-q"] and words[-3:] == ["--out", "t d/q", "--replace"]
    assert words[words.index("--every") + 1] == "2"
