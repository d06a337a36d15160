"""The claim kf-six-weight-cem-searched: the register's cross-entropy search of the six KF
weights planned as one job of the claim (its recipe as the register's experiment declared it),
its arms and contrasts beside the shipped claim that pins the register's optimum."""

from __future__ import annotations

from claims_support import REPO, shipped

from engines.learners.search import command
from protocol.plan import load_plan

CLAIM = "kf-six-weight-cem-searched"


def _plan(profile: str):
    return load_plan(REPO, {"profile": profile}).claims[CLAIM]


def test_the_search_is_the_registers_and_runs_whole_in_the_pilot() -> None:
    """64 candidates, elite 8, 30 generations of 256 games by length, from zeros; the pilot
    shrinks nothing of it (its fair d4s7 arm one ply shallower only)."""
    for profile in ("paper", "pilot"):
        (training,) = _plan(profile).direct_trained.values()
        words = [str(w) for w in command(training.planned, 30, "OUT", 0)]
        flags = dict(zip(words[2::2], words[3::2], strict=False))
        assert {k: flags[k] for k in ("--kind", "--target", "--population", "--generations",
                                      "--games", "--start", "--fitness", "--elite")} == {
            "--kind": "cem", "--target": "kf", "--population": "64", "--generations": "30",
            "--games": "256", "--start": "zero", "--fitness": "moves", "--elite": "0.125"}
        assert not training.shrinks, (profile, training.shrinks)
        assert 30 < training.seconds < 600  # about 2 CPU minutes, not the arms' per-game cost
    (smoke,) = _plan("smoke").direct_trained.values()
    assert smoke.planned["generations"] == 1 and smoke.planned["population"] == 4


def test_its_arms_contrasts_and_block() -> None:
    paper = _plan("paper")
    assert paper.block == 75
    policies = {n: a.policy for n, a in paper.arms.items()}
    assert policies["kf-searched"].startswith("kf:w=trained:") and \
        policies["kf-searched"].endswith(f"{CLAIM}/train/searched/frozen")
    assert {n: p for n, p in policies.items() if n != "kf-searched"} == {
        "kf-register": "kf:w=cem", "kf-transplanted": "kf:w=transplanted",
        "fair-d4s7": "search:leaf=linear,d=4,s=7"}
    assert {n: a.games for n, a in paper.arms.items()} == {
        "kf-searched": 256, "kf-register": 256, "kf-transplanted": 256, "fair-d4s7": 32}
    doc, pinned = shipped(CLAIM), shipped("kf-six-weight-policy-search")
    assert doc["theory"] == pinned["theory"]
    assert doc["contrasts"]["primary"] == {**doc["contrasts"]["primary"], "metric": "moves",
                                           "difference": ["kf-searched", "kf-transplanted"]}
    assert doc["contrasts"]["register"]["difference"] == ["kf-searched", "kf-register"]
    assert doc["readings"]["register"]["kind"] == "three-way"
    assert doc["readings"]["searched-below"]["threshold"] == 205530
    # the register's head result, quoted as the shipped claim quotes it
    assert doc["recorded"]["result"] == pinned["recorded"]["result"]
    assert doc["recorded"]["contrasts"] == pinned["recorded"]["contrasts"]
    assert doc["recorded"]["arms"]["kf-searched"] == pinned["recorded"]["arms"]["kf-optimum"]
