"""``lanes`` in a claim's training recipe: carried to the training job, absent from one-lane
recipes, and refused where the lanes cannot train (one line naming the file and the key)."""

from __future__ import annotations

import pytest
from claims_support import REPO, claims_copy

from protocol.plan import load_plan
from protocol.plan_model import MAX_TRAIN_THREADS
from protocol.schema import DeclarationError


def _plan(profile: str, claims_dir=None, **over):
    overrides = {"profile": profile, **over}
    if claims_dir is not None:
        overrides["claims_dir"] = str(claims_dir)
    return load_plan(REPO, overrides)


def _lanes(n: int, weights: str = "ntuple-A"):
    def edit(doc):
        doc["weights"][weights]["train"]["lanes"] = n
    return edit


def test_shipped_recipes_are_one_lane_and_unchanged() -> None:
    """A recipe without lanes is the sequential trainer's, key for key (the jobs' params);
    the replication in lanes adds ``lanes`` to the registered claim's recipes and nothing else."""
    for profile in ("paper", "pilot", "smoke"):
        plan = _plan(profile)
        for claim in plan.claims.values():
            if claim.id == "ntuple-line-tuples-lanes":
                continue
            for t in claim.trained.values():
                if t.learner != "ntuple":  # another learner's recipe (TreeStrap's: lanes, search)
                    continue
                assert t.lanes == 1 and t.threads == 1
                # a warm start adds its frozen tables' hash (``init``), nothing else
                assert sorted(set(t.recipe()) - {"init"}) == ["alpha", "every", "first_game",
                                                               "layout"]
        registered = plan.claims["ntuple-line-tuples"].trained
        for name, t in plan.claims["ntuple-line-tuples-lanes"].trained.items():
            assert t.lanes == 128 and t.threads == 32
            assert t.recipe() == {**registered[name].recipe(), "lanes": 128} or profile != "paper"


def test_lanes_reach_the_recipe_and_threads(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c", _lanes(16))
    for profile in ("paper", "pilot", "smoke"):
        t = _plan(profile, claims).claims["ntuple-line-tuples"].trained["ntuple-A"]
        assert t.recipe()["lanes"] == 16 and t.threads == 16
        assert all(step % 16 == 0 for step in t.steps), (profile, t.steps)
    wide = claims_copy(tmp_path / "w", _lanes(1000))
    assert _plan("paper", wide).claims["ntuple-line-tuples"].trained["ntuple-A"].threads == \
        MAX_TRAIN_THREADS


@pytest.mark.parametrize(("edit", "claim", "key", "says"), [
    (_lanes(4, "linear-trained"), "linear-trained-leaf", "weights.linear-trained.train.lanes",
     "only an ntuple learner"),
    (_lanes(3), "ntuple-line-tuples", "weights.ntuple-A.train.moves", "not a multiple of lanes"),
    (_lanes(0), "ntuple-line-tuples", "weights.ntuple-A.train.lanes", ""),
])
def test_bad_lanes_in_a_declaration_are_one_line(tmp_path, edit, claim, key, says) -> None:
    claims = claims_copy(tmp_path / "c", edit, claim=claim)
    with pytest.raises(DeclarationError) as err:
        _plan("paper", claims)
    message = str(err.value)
    assert "\n" not in message and message.startswith(str(claims / f"{claim}.yaml"))
    assert f"key {key}" in message and says in message


def test_a_profile_every_off_the_rounds_is_one_line(tmp_path) -> None:
    claims = claims_copy(tmp_path / "c", _lanes(16))
    over = {"claims": {"ntuple-line-tuples": {"weights": {"ntuple-A": {"every": 5_000_001}}}}}
    with pytest.raises(DeclarationError) as err:
        _plan("pilot", claims, **over)
    message = str(err.value)
    assert message.startswith("config/profiles/pilot.yaml")
    assert "key claims.ntuple-line-tuples.weights.ntuple-A.every" in message
    assert "not a multiple of the 16 lanes" in message
