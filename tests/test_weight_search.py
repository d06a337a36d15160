"""The weight search (CMA-ES, cross-entropy): it learns, a broken update is caught, a killed
search resumed equals an uninterrupted one, one and two workers give the same bits, its health
is the training health's, and its declaration is refused key by key in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from claims_support import REPO, claims_copy

from analysis.health import training_health
from engines.learners import optimizers
from engines.learners.vectors import TARGETS, write_vector
from engines.learners.weight_search import (
    GENERATION,
    STATE,
    SearchConfig,
    WeightSearch,
    play_all,
)
from engines.seedbank import DEFAULT_BANK, load_bank
from protocol.declaration import load_claim
from protocol.schema import DeclarationError

ROLE = load_bank(DEFAULT_BANK).roles["training"]
ZERO = tuple(0.0 for _ in range(19))


def _config(kind: str = "cmaes", population: int = 6, games: int = 4, **kw) -> SearchConfig:
    return SearchConfig(kind, "leaf", population, 0.5, games, 1, 7, int(ROLE["start"]),
                        int(ROLE["count"]), 5_000_000_000, 7, kw.pop("start", ZERO), **kw)


def _generations(out: Path) -> list[dict]:
    """Every generation's record, without its wall time."""
    records = []
    for path in sorted(out.glob("gen-*/generation.json")):
        r = json.loads(path.read_text())
        r.pop("wall_s")
        records.append(r)
    return records


def _frozen_lead(out: Path, config: SearchConfig, games: int = 48) -> float:
    """The frozen vector's mean score minus the start's, one ply as searched, on the same
    fresh training-role games (a block no generation read)."""
    seeds = [config.seed_of(6_000_000_000 + k) for k in range(games)]
    frozen = np.array(json.loads((out / "frozen.json").read_text()))
    means = []
    for name, vector in (("f.json", frozen), ("s.json", np.array(config.start))):
        sha = write_vector(vector, out / name)
        policy = TARGETS["leaf"].policy(str(out / name), sha, 1, 7)
        means.append(np.mean(play_all([(policy, s) for s in seeds], 1)))
    return float(means[0] - means[1])


@pytest.mark.parametrize("kind", ["cmaes", "cem"])
def test_it_learns_and_a_broken_update_is_caught(tmp_path, monkeypatch, kind) -> None:
    """From the zero vector, ten generations of eight candidates on eight games: the frozen
    vector beats the start on games no generation read; told the negated scores, the same
    search (same draws at first) does not, so the same test catches a broken update."""
    config = _config(kind, population=8, games=8)
    WeightSearch(config, tmp_path / "ok", log=lambda m: None).run(10)
    assert _frozen_lead(tmp_path / "ok", config) > 0
    cls = optimizers.Cmaes if kind == "cmaes" else optimizers.Cem
    tell = cls.tell
    monkeypatch.setattr(cls, "tell", lambda self, xs, scores: tell(self, xs, -scores))
    WeightSearch(config, tmp_path / "broken", log=lambda m: None).run(10)
    assert not _frozen_lead(tmp_path / "broken", config) > 0
    curve = json.loads((tmp_path / "ok" / "curve.json").read_text())["curve"]
    assert [p["generation"] for p in curve] == list(range(1, 11))
    assert all(p["best"] >= p["mean"] for p in curve)


def _drop7(*args: str) -> list[str]:
    return [sys.executable, "-c", "import sys; from cli.main import main; "
            "sys.exit(main(sys.argv[1:]))", "weight-search", *args]


FLAGS = ("--kind", "cem", "--target", "leaf", "--population", "5", "--sigma", "0.5",
         "--games", "3", "--depth", "1", "--first-game", "7000000000", "--health-games", "3",
         "--start", "shipped")


def test_a_killed_search_resumed_equals_an_uninterrupted_one(tmp_path) -> None:
    """``drop7 weight-search`` killed (SIGKILL) once its second generation is whole, then run
    again with --resume: every generation's record, state and the frozen vector are those of
    one uninterrupted run."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    whole = subprocess.run(_drop7(*FLAGS, "--generations", "5", "--out", str(tmp_path / "a")),
                           env=env, capture_output=True, text=True, timeout=900)
    assert whole.returncode == 0, whole.stderr
    out = tmp_path / "b"
    proc = subprocess.Popen(_drop7(*FLAGS, "--generations", "5", "--out", str(out)), env=env,
                            stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    deadline = time.time() + 900
    while not (out / GENERATION.format(g=2) / STATE).exists() and proc.poll() is None:
        assert time.time() < deadline
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (out / "frozen.json").exists()
    again = subprocess.run(_drop7(*FLAGS, "--generations", "5", "--out", str(out), "--resume"),
                           env=env, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0, again.stderr
    assert "resumed after generation" in again.stderr
    assert _generations(out) == _generations(tmp_path / "a") and len(_generations(out)) == 5
    for g in range(1, 6):
        state = GENERATION.format(g=g) + "/" + STATE
        assert (out / state).read_bytes() == (tmp_path / "a" / state).read_bytes()
    assert json.loads(again.stdout)["frozen"] == json.loads(whole.stdout)["frozen"]


@pytest.mark.parametrize("kind", ["cmaes", "cem"])
def test_a_saved_optimizer_draws_what_the_live_one_draws(kind) -> None:
    """An optimizer saved after a generation and loaded asks the same next generations as the
    one that goes on (``cmaes.CMA`` alone would unpickle with an unseeded generator); a
    CMA-ES state saved without its generator is refused."""
    live = optimizers.make_optimizer(kind, np.zeros(5), 6, 11, 0.5)
    live.tell(live.ask(), np.arange(6.0))
    saved = optimizers.load(optimizers.dump(live))
    for g in range(3):
        asked = live.ask()
        assert np.array_equal(asked, saved.ask())
        live.tell(asked, np.arange(6.0) * g)
        saved.tell(asked, np.arange(6.0) * g)
    assert np.array_equal(live.centre, saved.centre)
    fresh = optimizers.make_optimizer(kind, np.zeros(5), 6, 11, 0.5)
    assert optimizers.dump(fresh) == optimizers.dump(
        optimizers.make_optimizer(kind, np.zeros(5), 6, 11, 0.5))  # the same bits
    if kind == "cmaes":
        import pickle

        old = pickle.dumps(fresh.cma, protocol=4)  # as a CMA pickles without the wrapper's
        with pytest.raises(ValueError, match="without its generator"):
            optimizers.Cmaes.__new__(optimizers.Cmaes).__setstate__({"cma": pickle.loads(old)})


def test_one_and_two_workers_give_the_same_bits(tmp_path) -> None:
    config = _config("cmaes", health_games=3)
    one = WeightSearch(config, tmp_path / "one", 1, log=lambda m: None).run(2)
    two = WeightSearch(config, tmp_path / "two", 2, log=lambda m: None).run(2)
    assert one["frozen"] == two["frozen"]
    assert _generations(tmp_path / "one") == _generations(tmp_path / "two")


def test_the_health_is_read_as_the_training_health(tmp_path) -> None:
    """Every generation's health (its frozen vector one ply, the start one ply, random) is a
    checkpoint's evaluation for analysis.health."""
    config = _config("cem", health_games=6)
    WeightSearch(config, tmp_path, log=lambda m: None).run(2)
    points = [r["health"] for r in _generations(tmp_path)]
    health = training_health("w", points)
    assert [p["step"] for p in health["points"]] == [1, 2]
    curve = json.loads((tmp_path / "curve.json").read_text())["curve"]
    assert [c["health_one_ply"] for c in curve] == [p["one_ply_mean"] for p in health["points"]]
    assert all(p["random_mean"] < p["start_mean"] for p in health["points"])


def test_the_frozen_vector_is_a_linear_leaf_an_arm_plays(tmp_path) -> None:
    """The frozen vector (18 weights and an intercept) is also written as a linear weights
    directory, which a ``linear-trained`` leaf loads (checked against its manifest's hash) with
    the values of ``frozen.json``; a tampered array is refused."""
    from engines.leaves.kinds import parse_leaf
    from engines.search.leaf import LOADERS
    from engines.weights_files import WeightsError

    WeightSearch(_config(), tmp_path, log=lambda m: None).run(1)
    vector = json.loads((tmp_path / "frozen.json").read_text())
    leaf = LOADERS["linear-trained"](parse_leaf(f"linear-trained:{tmp_path / 'frozen'}"), True)
    assert len(vector) == 19 and np.array_equal(np.asarray(leaf.weights), vector)
    manifest = json.loads((tmp_path / "frozen" / "manifest.json").read_text())
    assert manifest["kind"] == "linear" and manifest["learner"] == "cmaes"
    packed = tmp_path / "frozen" / manifest["file"]
    packed.write_bytes(packed.read_bytes()[:-1] + bytes([packed.read_bytes()[-1] ^ 1]))
    with pytest.raises((WeightsError, ValueError)):
        LOADERS["linear-trained"](parse_leaf(f"linear-trained:{tmp_path / 'frozen'}"), True)


def test_a_search_of_another_config_is_refused_in_the_same_directory(tmp_path) -> None:
    WeightSearch(_config(), tmp_path, log=lambda m: None).run(1)
    with pytest.raises(ValueError, match="differs in sigma"):
        WeightSearch(SearchConfig(**{**_config().__dict__, "sigma": 0.3}), tmp_path).run(2)


SEARCH = {"learner": "cmaes", "target": "leaf-weights", "population": 8, "generations": 4,
          "sigma": 0.25, "games": 4, "search": {"depth": 2, "strata": 7}}


@pytest.mark.parametrize(("train", "key", "says"), [
    ({**SEARCH, "elite": 0.2}, "train.elite", "only the cross-entropy method"),
    ({**SEARCH, "target": "kf"}, "train.search", "takes no search"),
    ({k: v for k, v in SEARCH.items() if k != "search"}, "train.search", "declare"),
    ({**SEARCH, "sigma0": 1}, "train.sigma0", "unknown key"),
    ({**SEARCH, "population": 3}, "train.population", ""),
    ({**SEARCH, "every": 5}, "train.every", "more than generations"),
    ({**SEARCH, "freeze": "last"}, "train.freeze", ""),
])
def test_a_bad_search_declaration_is_one_line_naming_file_and_key(tmp_path, train, key,
                                                                   says) -> None:
    def edit(doc):
        doc["weights"]["linear-trained"] = {"train": train}  # one job: no select
    folder = claims_copy(tmp_path, edit, claim="linear-trained-leaf")
    with pytest.raises(DeclarationError) as err:
        load_claim(folder / "linear-trained-leaf.yaml")
    message = str(err.value)
    assert "\n" not in message and message.startswith(str(folder / "linear-trained-leaf.yaml"))
    assert f"weights.linear-trained.{key}" in message and says in message, message


def test_a_good_search_declaration_passes_its_checks(tmp_path) -> None:
    def edit(doc):
        doc["weights"]["cmaes-d4s5"]["train"] = {**SEARCH, "learner": "cem", "elite": 0.3}
    folder = claims_copy(tmp_path, edit, claim="depth-native-leaf-weights")
    train = load_claim(folder / "depth-native-leaf-weights.yaml").direct["cmaes-d4s5"]["train"]
    assert (train["start"], train["freeze"], train["seed"]) == ("shipped", "mean", 0)


def test_the_kf_target_searches_the_six_weights_from_a_pinned_start(tmp_path) -> None:
    """The KF target plays the one-ply KF policy; its start may be a pinned six-weight file,
    and what it freezes is such a file with its SHA-256."""
    from engines.filters.kf_weights import kf_weights, read_kf_file

    start = write_vector(np.array(kf_weights("cem")), tmp_path / "start.json")
    args = ["weight-search", "--kind", "cmaes", "--target", "kf", "--population", "4",
            "--sigma", "0.3", "--games", "2", "--generations", "2", "--first-game",
            "8000000000", "--start", f"{start}:{tmp_path / 'start.json'}", "--out",
            str(tmp_path / "kf")]
    from cli.main import main

    assert main(args) == 0
    summary = json.loads((tmp_path / "kf" / "curve.json").read_text())
    frozen = read_kf_file(tmp_path / "kf" / "frozen.json", summary["frozen"]["sha256"])
    assert len(frozen) == 6
    # as a claim's kf arm reads it (kf:w=trained:DIR/frozen): the same six, checked by hash
    from engines.filters.kf_weights import read_kf_trained

    assert read_kf_trained(tmp_path / "kf" / "frozen") == frozen
    first = _generations(tmp_path / "kf")[0]
    assert first["control"]["vector"] == list(kf_weights("cem"))


@pytest.mark.parametrize(("extra", "says"), [
    (["--sigma", "0"], "--sigma must be above 0"),
    (["--start", "nothex:x.json"], "--start"),
    (["--elite", "1.5"], "--elite must be in (0, 1]"),
])
def test_bad_flags_are_one_line(tmp_path, capsys, extra, says) -> None:
    from cli.main import main

    flags = ["--kind", "cem", "--target", "leaf", "--population", "4", "--sigma", "0.5",
             "--games", "1", "--generations", "1", "--out", str(tmp_path / "o")]
    assert main(["weight-search", *flags, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and says in err, err


def test_a_directory_with_output_needs_resume(tmp_path, capsys) -> None:
    from cli.main import main

    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "config.json").write_text("{}")
    assert main(["weight-search", "--kind", "cem", "--target", "leaf", "--population", "4",
                 "--sigma", "0.5", "--games", "1", "--generations", "1", "--out",
                 str(tmp_path / "o")]) == 2
    assert "pass --resume" in capsys.readouterr().err


def test_a_search_that_would_read_the_health_games_is_refused(tmp_path) -> None:
    from engines.train.evaluate import UNSEEN_GAME

    config = SearchConfig(**{**_config(health_games=4).__dict__,
                             "first_game": UNSEEN_GAME - 10})
    assert not config.overlaps_health(2) and config.overlaps_health(3)
    with pytest.raises(ValueError, match="one-ply health's unseen games"):
        WeightSearch(config, tmp_path).run(3)
