"""The learner registry: a learner is its module and one registration, which the declaration
schema, the checks, the plan's leaf and the training command all read."""

from __future__ import annotations

import shlex
from contextlib import contextmanager

import pytest
from claims_support import REPO, claims_copy, shipped

from engines.learners import LEARNERS, LearnerKind, get_learner, learner_leaf
from engines.learners.registry import register_learner
from protocol import commands
from protocol.declaration import load_claim, load_claims
from protocol.schema import DeclarationError

_COUNT = {"type": "integer", "minimum": 1}


def _toy_check(train, fail) -> None:
    if train["budget"] > train["moves"]:
        fail("budget", f"{train['budget']} is more than moves = {train['moves']}")


TOY = LearnerKind(name="toy", produces="the fair leaf's weights",
                  keys={"moves": _COUNT, "budget": _COUNT}, required=("moves", "budget"),
                  checkpoints=lambda t: 1, is_checkpoint=lambda t, step: step == t["moves"],
                  entries=lambda layout: 18,
                  command=lambda r, end, out, start: ["drop7", "toy", "--out", out],
                  curve="search", leaf="linear-trained", pinned="linear-file", check=_toy_check)


@contextmanager
def toy_registered():
    register_learner(TOY)
    try:
        yield
    finally:
        LEARNERS.pop("toy")


def _with_train(train):
    def edit(doc):
        doc["weights"]["linear-trained"]["train"] = train
    return edit


def test_the_td_learners_are_registered_with_their_leaves() -> None:
    assert {"ntuple", "linear"} <= set(LEARNERS)
    assert learner_leaf("ntuple", "d").format() == "ntuple:d"
    assert learner_leaf("linear").kind == "linear-trained"
    assert get_learner("linear").pinned == "linear-file"
    with pytest.raises(ValueError, match="unknown learner 'nope'"):
        get_learner("nope")
    with pytest.raises(ValueError, match="registered already"):
        register_learner(get_learner("linear"))


def test_the_training_command_is_the_learners(tmp_path) -> None:
    recipe = {"layout": "linear", "every": 5, "first_game": 3, "alpha": None}
    words = shlex.split(commands.train("linear", recipe, 10, "o u t", 5))
    assert words[:4] == ["drop7", "train", "--layout", "linear"] and "o u t" in words
    with toy_registered():
        assert shlex.split(commands.train("toy", recipe, 10, "o", 0)) == [
            "drop7", "toy", "--out", "o"]


def test_a_registered_learner_reaches_the_declaration(tmp_path) -> None:
    """One registration: the schema takes its keys, its check runs, the rest is refused in one
    line naming the file and the key."""
    good = {"learner": "toy", "moves": 10, "budget": 5}
    with pytest.raises(DeclarationError, match="train.learner = 'toy'"):
        load_claims(claims_copy(tmp_path / "before", _with_train(good),
                                claim="linear-trained-leaf"))
    with toy_registered():
        claims = load_claims(claims_copy(tmp_path / "good", _with_train(good),
                                         claim="linear-trained-leaf"))
        assert claims["linear-trained-leaf"].weights["linear-trained"]["train"] == good
        for train, key in (({**good, "budget": 20}, "budget: 20 is more than moves = 10"),
                           ({**good, "layout": "A"}, "unknown key weights.linear-trained."
                                                     "train.layout"),
                           ({"learner": "toy", "moves": 3}, "missing key weights.linear-"
                                                            "trained.train.budget"),
                           ({**good, "learner": "nope"}, "key weights.linear-trained.train."
                                                         "learner = 'nope'")):
            folder = claims_copy(tmp_path / str(len(key)), _with_train(train),
                                 claim="linear-trained-leaf")
            with pytest.raises(DeclarationError) as err:
                load_claim(folder / "linear-trained-leaf.yaml")
            message = str(err.value)
            assert "\n" not in message and "linear-trained-leaf.yaml" in message, message
            assert key in message, message


def test_td_keys_are_still_checked_by_their_learner(tmp_path) -> None:
    doc = shipped("linear-trained-leaf")
    assert doc["weights"]["linear-trained"]["train"]["learner"] == "linear"
    train = {"learner": "linear", "moves": 10, "every": 10, "lanes": 2}
    folder = claims_copy(tmp_path / "c", _with_train(train), claim="linear-trained-leaf")
    with pytest.raises(DeclarationError, match="train.lanes: only an ntuple learner"):
        load_claim(folder / "linear-trained-leaf.yaml")


def test_a_learner_the_workflow_does_not_plan_is_refused_at_the_plan(tmp_path) -> None:
    """A registration with ``planned=False`` is declared and checked, and the plan refuses a
    claim that trains it in one line naming the learner's key (the guard every shipped learner
    now passes)."""
    from dataclasses import replace

    from protocol.plan import load_plan

    good = {"learner": "toy", "moves": 10, "budget": 5}
    register_learner(replace(TOY, planned=False))
    try:
        folder = claims_copy(tmp_path / "c", _with_train(good), claim="linear-trained-leaf")
        assert load_claims(folder)["linear-trained-leaf"].weights["linear-trained"]
        with pytest.raises(DeclarationError) as err:
            load_plan(REPO, {"profile": "smoke", "claims_dir": str(folder)})
    finally:
        LEARNERS.pop("toy")
    message = str(err.value)
    assert "\n" not in message and "weights.linear-trained.train.learner" in message, message
    assert "does not plan learner toy" in message
    assert all(k.planned for k in LEARNERS.values())
