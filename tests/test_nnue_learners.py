"""The network leaf's learners: the distillation's backward pass is the loss's gradient (a
flipped sign is caught), it learns (held-out top-1 above the random start's), a stopped fit
resumed equals an uninterrupted one and one and two workers label the same bits; the GA's
final best beats its start on its own seeds, resumes exactly and does not depend on workers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from engines.learners import nnue_fit
from engines.learners.distil import LABELS, DistilConfig, Distillation, check_gradient
from engines.learners.evolve import EvolveConfig, NetworkEvolution
from engines.learners.nnue_fit import forward, gradient_error, loss_and_gradient
from engines.leaves.nnue_class import Sizes
from engines.leaves.nnue_ref import network_output
from engines.leaves.nnue_weights import random_network, write_random_network
from engines.seedbank import DEFAULT_BANK, load_bank

ROLE = load_bank(DEFAULT_BANK).roles["training"]
SMALL = Sizes(16, 8)
QUIET = {"log": lambda m: None}


def _batch(seed: int, n: int = 12) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = np.stack([rng.choice(8902, 135, replace=False) for _ in range(n)])
    return x, rng.normal(0.0, 1.5, n)


def test_the_fit_forward_pass_is_the_leaf_twin() -> None:
    params = random_network(5, SMALL)
    x, _ = _batch(1, 4)
    ours = forward(params.astype(np.float64), SMALL, x)
    twin = [float(network_output(params, SMALL, list(row))) for row in x]
    assert np.allclose(ours, twin, rtol=1e-5, atol=1e-6)


def test_the_backward_pass_is_the_gradient_and_a_flipped_sign_is_caught(monkeypatch) -> None:
    params = random_network(5, SMALL).astype(np.float64)
    x, y = _batch(2)
    coords = np.arange(0, SMALL.parameters, 997)
    coords = np.concatenate([coords, x[0, :3] * SMALL.hidden + 1, [SMALL.b2]])
    assert gradient_error(params, SMALL, x, y, coords) < 1e-5
    check_gradient(params, SMALL, x, y, 0)

    def flipped(*args):
        loss, grad = loss_and_gradient(*args)
        return loss, -grad

    monkeypatch.setattr(nnue_fit, "loss_and_gradient", flipped)
    with pytest.raises(ValueError, match="wrong gradient"):
        check_gradient(params, SMALL, x, y, 0)


def _distil(**kw) -> DistilConfig:
    base = {"teacher": "search:leaf=linear,d=2,s=7", "player": "search:leaf=linear,d=1,s=7",
            "games": 6, "every": 2, "seed_start": int(ROLE["start"]),
            "seed_count": int(ROLE["count"]), "first_game": 0, "holdout": 3, "hidden": 16,
            "mid": 8, "batch": 32, "rate": 3e-3, "seed": 3, "probe_depth": 1,
            "probe_strata": 7}
    return DistilConfig(**{**base, **kw})


@pytest.fixture(scope="module")
def labelled(tmp_path_factory) -> tuple[Path, Path]:
    """The same labels made by one worker and by two."""
    one, two = tmp_path_factory.mktemp("one"), tmp_path_factory.mktemp("two")
    Distillation(_distil(), one, 1, **QUIET).labels()
    Distillation(_distil(), two, 2, **QUIET).labels()
    return one, two


def test_one_and_two_workers_label_the_same_bits(labelled) -> None:
    one, two = labelled
    assert (one / LABELS).read_bytes() == (two / LABELS).read_bytes()
    games = json.loads((one / LABELS).read_text())["games"]
    assert len(games) == 6 and all(root["values"] for game in games for root in game)


@pytest.mark.slow
def test_distillation_learns_and_a_stopped_fit_resumed_is_uninterrupted(labelled,
                                                                          tmp_path) -> None:
    """Thirty epochs: the network in a one-ply search picks a column the teacher rates best at
    more held-out roots than its random start does; a fit stopped after twelve epochs and run
    again to thirty gives the same network, bit for bit, and the same curve."""
    whole, part = tmp_path / "whole", tmp_path / "part"
    for out in (whole, part):
        out.mkdir()
        shutil.copy(labelled[0] / LABELS, out / LABELS)
    summary = Distillation(_distil(), whole, **QUIET).run(30)
    assert summary["roots"]["held_out"] > 30
    assert summary["top1"]["network"] > summary["top1"]["random_start"]
    assert summary["curve"][-1]["train_loss"] < summary["curve"][0]["train_loss"] / 4
    Distillation(_distil(), part, **QUIET).run(12)
    again = Distillation(_distil(), part, **QUIET).run(30)
    assert again["network"] == summary["network"] and again["curve"] == summary["curve"]
    with pytest.raises(ValueError, match="differs in rate"):
        Distillation(_distil(rate=1e-3), part, **QUIET).run(31)


def test_the_held_out_top1_is_probed_every_epoch_asked_without_changing_the_fit(labelled,
                                                                             tmp_path) -> None:
    """``probe_every`` adds each probed epoch's held-out top-1 to its record (the last epoch's
    is the frozen network's); the network, the losses and the config are those of a fit that
    probes nothing, so a resume with another probe goes on."""
    runs = {}
    for every in (0, 1):
        out = tmp_path / f"every-{every}"
        out.mkdir()
        shutil.copy(labelled[0] / LABELS, out / LABELS)
        runs[every] = Distillation(_distil(), out, **QUIET, probe_every=every).run(2)
    probed, plain = runs[1], runs[0]
    assert [("heldout_top1" in p) for p in plain["curve"]] == [False, False]
    assert all(0 <= p["heldout_top1"] <= 1 for p in probed["curve"])
    assert probed["curve"][-1]["heldout_top1"] == probed["top1"]["network"]
    assert probed["network"] == plain["network"] and probed["config_sha256"] == plain[
        "config_sha256"]
    assert [p["train_loss"] for p in probed["curve"]] == [p["train_loss"] for p in plain["curve"]]
    again = Distillation(_distil(), tmp_path / "every-0", **QUIET, probe_every=1).run(3)
    assert "heldout_top1" in again["curve"][-1] and "heldout_top1" not in again["curve"][0]


def _evolve(start: Path, sha: str, **kw) -> EvolveConfig:
    return EvolveConfig("ga", "nnue", 4, 0.5, 2, 1, 7, int(ROLE["start"]), int(ROLE["count"]),
                        9_000_000_000, 11, (), "best", start_network=str(start),
                        start_sha256=sha, elites=1, finalists=2, select_games=2, **kw)


def _generations(out: Path) -> list[dict]:
    records = []
    for path in sorted(out.glob("gen-*/generation.json")):
        r = json.loads(path.read_text())
        r.pop("wall_s")
        records.append(r)
    return records


@pytest.mark.slow
def test_evolution_beats_its_start_resumes_exactly_and_ignores_workers(tmp_path) -> None:
    """Three generations of four mutants of a random network on two games each: the last
    generation's best beats the start on that generation's seeds; stopped after one and run
    again, and played in two workers, the generations and the frozen network are the same."""
    sha = write_random_network(tmp_path / "start", 4, Sizes(8, 4))["sha256"]
    config = _evolve(tmp_path / "start", sha)
    whole = NetworkEvolution(config, tmp_path / "whole", **QUIET).run(3)
    last = whole["curve"][-1]
    assert last["best"] > last["control"]
    assert [p["generation"] for p in whole["curve"]] == [1, 2, 3]
    assert (tmp_path / "whole" / "frozen" / "manifest.json").exists()
    NetworkEvolution(config, tmp_path / "part", **QUIET).run(1)
    again = NetworkEvolution(config, tmp_path / "part", **QUIET).run(3)
    two = NetworkEvolution(config, tmp_path / "two", 2, **QUIET).run(3)
    for other in (again, two):
        assert other["frozen"] == whole["frozen"] and other["selection"] == whole["selection"]
    assert _generations(tmp_path / "part") == _generations(tmp_path / "whole")
    assert _generations(tmp_path / "two") == _generations(tmp_path / "whole")


DISTIL = {"learner": "nnue-distil", "teacher": {"depth": 5, "strata": 7}, "games": 64,
          "epochs": 8}


@pytest.mark.parametrize(("train", "key"), [
    ({**DISTIL, "hidden": 600}, "train.hidden"),
    ({**DISTIL, "target": "value"}, "train.target"),
    ({k: v for k, v in DISTIL.items() if k != "epochs"}, "train"),
])
def test_a_bad_network_learner_declaration_is_one_line(tmp_path, train, key) -> None:
    from claims_support import claims_copy

    from protocol.declaration import load_claim
    from protocol.schema import DeclarationError

    def edit(doc):
        doc["weights"]["linear-trained"] = {"train": train}  # one job: no select
    folder = claims_copy(tmp_path, edit, claim="linear-trained-leaf")
    with pytest.raises(DeclarationError) as err:
        load_claim(folder / "linear-trained-leaf.yaml")
    message = str(err.value)
    assert "\n" not in message and f"weights.linear-trained.{key}" in message, message


def test_a_network_learner_is_declared_and_planned_as_one_job(tmp_path) -> None:
    """Both learners pass the declaration's checks (defaults filled); the workflow plans each as
    one job (protocol/parts/direct_training.py), and an arm plays the frozen network as its
    leaf; an evolution may start from the distilled network (trained:DIR)."""
    from claims_support import REPO, claims_copy, shipped

    from engines.learners import get_learner
    from protocol.declaration import load_claim
    from protocol.plan import load_plan

    claim, doc = "network-direct", shipped("depth-native-leaf-weights")
    doc.update(id=claim, weights={"net": {"train": DISTIL}}, screen={"games": 64, "block": 47})
    doc["arms"]["evolved-d4s5"]["leaf"] = {"weights": "net"}
    folder = claims_copy(tmp_path, extra={claim: doc})
    train = load_claim(folder / f"{claim}.yaml").direct["net"]["train"]
    assert (train["target"], train["holdout"], train["hidden"]) == ("columns", 5, 64)
    words = get_learner("nnue-distil").command(train, 8, "out", 4)
    assert words[:2] == ["drop7", "nnue-distil"] and words[-1] == "--resume"
    p = load_plan(REPO, {"profile": "smoke", "claims_dir": str(folder)}).claims[claim]
    net = p.direct_trained["net"]
    assert net.command().split()[:2] == ["drop7", "nnue-distil"]
    assert p.arms["evolved-d4s5"].policy == f"search:leaf=nnue:{net.dir}/network,d=3,s=3"
    evolve = get_learner("nnue-evolve").command(
        {"start": {"path": "net", "sha256": "ab" * 32}, "population": 8, "generations": 3,
         "games": 4, "search": {"depth": 3, "strata": 7}}, 3, "out", 0)
    assert evolve[:4] == ["drop7", "nnue-evolve", "--start", f"{'ab' * 32}:net"]
    after = get_learner("nnue-evolve").command(
        {"start": {"trained": "dir/network"}, "population": 8, "generations": 3,
         "games": 4, "search": {"depth": 3, "strata": 7}}, 3, "out", 0)
    assert after[:4] == ["drop7", "nnue-evolve", "--start", "trained:dir/network"]


def test_an_evolution_starts_from_a_trained_network_by_its_manifest(tmp_path, capsys) -> None:
    """``--start trained:DIR`` pins the start to the SHA-256 its manifest records (a network
    the same claim trained): the run's config holds that hash."""
    from cli.main import main

    sha = write_random_network(tmp_path / "start", 4, Sizes(8, 4))["sha256"]
    assert main(["nnue-evolve", "--start", f"trained:{tmp_path / 'start'}", "--population", "2",
                 "--games", "1", "--generations", "1", "--depth", "1", "--elites", "1",
                 "--finalists", "1", "--select-games", "1", "--first-game", "9000000000",
                 "--out", str(tmp_path / "out")]) == 0
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    assert config["start_sha256"] == sha
    assert (tmp_path / "out" / "frozen" / "manifest.json").exists()


@pytest.mark.parametrize(("args", "says"), [
    (["nnue-evolve", "--start", "nopath", "--population", "4", "--games", "2",
      "--generations", "1"], "SHA256:PATH"),
    (["nnue-evolve", "--start", "ab:net", "--population", "4", "--games", "2",
      "--generations", "1", "--elites", "5"], "--elites 5"),
    (["nnue-evolve", "--start", "trained:NOWHERE", "--population", "4", "--games", "2",
      "--generations", "1"], "--start trained:"),
    (["nnue-evolve", "--start", f"{'0' * 64}:START", "--population", "4", "--games", "2",
      "--generations", "1", "--finalists", "2"], "SHA-256"),
    (["nnue-evolve", "--start", "ab:net", "--population", "4", "--games", "2",
      "--generations", "1", "--finalists", "2", "--reference-depth", "2"], "go together"),
    (["nnue-distil", "--teacher", "search:leaf=linear,d=1,s=7", "--games", "2", "--epochs",
      "1", "--rate", "0"], "--rate"),
])
def test_bad_flags_are_one_line_before_any_game(tmp_path, capsys, args, says) -> None:
    from cli.main import main

    sha = write_random_network(tmp_path / "start", 4, Sizes(8, 4))["sha256"]
    args = [a.replace("START", str(tmp_path / "start")) for a in args]
    assert sha and main([*args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and says in err, err
    assert not (tmp_path / "out" / "gen-0001").exists()


def test_the_reselection_block_may_not_read_the_health_games(tmp_path) -> None:
    """One generation of two games ending just before the health's unseen games passes the
    weight search's guard alone; its re-selection block would read them, so it is refused."""
    from dataclasses import replace

    from engines.learners.weight_search import SearchConfig
    from engines.train.evaluate import UNSEEN_GAME

    sha = write_random_network(tmp_path / "start", 4, Sizes(8, 4))["sha256"]
    config = replace(_evolve(tmp_path / "start", sha), first_game=UNSEEN_GAME - 2,
                     health_games=2)
    assert not SearchConfig.overlaps_health(config, 1)
    with pytest.raises(ValueError, match="health"):
        NetworkEvolution(config, tmp_path / "out", **QUIET).run(1)
    assert not (tmp_path / "out" / "gen-0001").exists()


def test_the_column_examples_are_what_a_one_ply_search_values(labelled, tmp_path) -> None:
    """At labelled roots, a one-ply search with a network leaf values each column as the mean
    over the column's examples of the sample's points plus the network's value of the
    successor: the fit's examples are the search's own boards, samples and discs.  The root
    target is the best column's value in rises."""
    from engines.drop7 import core
    from engines.learners.distil import column_examples, split
    from engines.learners.weight_search import policy_of
    from engines.leaves.nnue_class import VALUE_SCALE

    params = random_network(9, SMALL)
    sha = write_random_network(tmp_path / "net", 9, SMALL)["sha256"]
    policy = policy_of(f"search:leaf=nnue-file:{sha}:{tmp_path / 'net'},d=1,s=7")
    games = json.loads((labelled[0] / LABELS).read_text())["games"]
    checked = 0
    for root in games[0][:12]:
        legal = [v is not None for v in root["values"]]
        zero = {**root, "values": [0.0 if ok else None for ok in legal]}
        x, y = column_examples(zero)
        if len(y) != 7 * sum(legal):
            continue  # a sample ends the game: the search values it otherwise
        policy.new_game(int(root["game"]))
        cols = np.array(root["cols"], dtype=np.int64)
        _, values = policy.searcher.choose_values(cols, root["state"][core.ST_NEXT_DISC],
                                                  root["state"][core.ST_MOVES_REMAINING])
        leaf = [float(network_output(params, SMALL, list(f))) * VALUE_SCALE for f in x]
        ours = np.array(leaf) - np.array(y) * VALUE_SCALE  # points + the network's value
        found = ours.reshape(-1, 7).mean(axis=1)
        searched = [v for v in values if np.isfinite(v)]
        if root["cols"] == root["cols"][::-1]:
            # a symmetric board: the search values a column by its mirror's samples
            assert all(np.isclose(found, v, rtol=1e-9, atol=1e-6).any() for v in searched)
        else:
            assert np.allclose(sorted(found), sorted(searched), rtol=1e-9, atol=1e-6)
            checked += 1
    assert checked >= 4
    data = split(_distil(), games)
    xr, yr = data.arrays("held", "root")
    assert xr.shape == (len(data.held), 135)
    assert yr[0] == max(v for v in data.held[0]["values"] if v is not None) / VALUE_SCALE


def test_the_reference_plays_each_generations_games_paired_and_ignores_workers(tmp_path) -> None:
    """A declared reference (the fair leaf one ply) plays every generation's own seeds: its
    scores are the fair search's on those seeds, its mean is the curve's ``reference``, the
    candidates' games are those of a run without it, and a resumed run and two workers give
    the same bits.  Without it the config is recorded as before the key existed."""
    from engines.learners.weight_search import play_all

    sha = write_random_network(tmp_path / "start", 4, Sizes(8, 4))["sha256"]
    plain = _evolve(tmp_path / "start", sha)
    assert "reference" not in plain.describe() and plain.reference_policy() is None
    config = _evolve(tmp_path / "start", sha, reference=(1, 7))
    assert config.describe()["reference"] == [1, 7] and config.sha256() != plain.sha256()
    whole = NetworkEvolution(config, tmp_path / "whole", **QUIET).run(2)
    alone = NetworkEvolution(plain, tmp_path / "plain", **QUIET).run(2)
    records = _generations(tmp_path / "whole")
    for r, point, other in zip(records, whole["curve"], _generations(tmp_path / "plain"),
                               strict=True):
        ref = r["reference"]
        assert ref["policy"] == "search:leaf=linear,d=1,s=7"
        assert ref["scores"] == play_all([(ref["policy"], s) for s in r["seeds"]], 1)
        assert point["reference"] == ref["mean"] == np.mean(ref["scores"])
        assert [c["scores"] for c in r["candidates"]] == [c["scores"] for c in
                                                         other["candidates"]]
        assert r["control"]["scores"] == other["control"]["scores"]
    assert whole["frozen"]["sha256"] == alone["frozen"]["sha256"]
    assert "reference" not in alone["curve"][0]
    NetworkEvolution(config, tmp_path / "part", **QUIET).run(1)
    again = NetworkEvolution(config, tmp_path / "part", **QUIET).run(2)
    two = NetworkEvolution(config, tmp_path / "two", 2, **QUIET).run(2)
    for out, other in (("part", again), ("two", two)):
        assert _generations(tmp_path / out) == records
        assert other["curve"] == whole["curve"] and other["frozen"] == whole["frozen"]
    # the files as the gates and verdict jobs read them (the workflow's description of them)
    from analysis.learner_readings import learner_sources
    from analysis.readings import evaluate

    files = learner_sources({"evolved": {
        "learner": "nnue-evolve", "figures": ["mean_minus_reference"],
        "curve": str(tmp_path / "whole" / "curve.json"),
        "record": str(tmp_path / "whole" / "frozen" / "manifest.json")}})
    gap = np.mean([p["mean"] - p["reference"] for p in whole["curve"]])
    got = evaluate("signal", {"kind": "learner-at-most", "weights": "evolved",
                              "figure": "mean_minus_reference", "threshold": gap}, {}, {},
                   learners=files)
    assert got.outcome == "pass" and got.numbers["value"] == pytest.approx(gap)
    assert "(the curve has 2, fewer than the last 10)" in got.reason


def test_the_reference_is_declared_planned_priced_and_shrunk(tmp_path) -> None:
    """``reference: {depth, strata}`` reaches the command (only when declared), its games are
    in the learner's seconds, and a profile shrinks its search as it shrinks the GA's."""
    from engines.learners import get_learner

    kind = get_learner("nnue-evolve")
    recipe = {"start": {"trained": "dir/network"}, "population": 8, "generations": 3,
              "games": 4, "search": {"depth": 3, "strata": 7}}
    with_ref = {**recipe, "reference": {"depth": 3, "strata": 5}}
    words = kind.command(with_ref, 3, "out", 0)
    assert words[words.index("--reference-depth") + 1] == 3
    assert words[words.index("--reference-strata") + 1] == 5
    assert "--reference-depth" not in kind.command(recipe, 3, "out", 0)

    def game(policy: str) -> float:
        return 1.0 if "leaf=linear" in policy else 10.0
    assert kind.seconds(with_ref, game) - kind.seconds(recipe, game) == 3 * 4 * 1.0
    assert kind.figures_of(recipe) == ("best_gain",)
    assert "mean_minus_reference" in kind.figures_of(with_ref)
