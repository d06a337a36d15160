"""A weight search's declared fitness and its zero start: with ``fitness: moves`` the optimizer
is told its candidates' mean game lengths (not their scores), a resumed search equals an
uninterrupted one and one and two workers give the same bits; a score search's config and
command are those it had before the key existed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from contracts.hashing import file_sha256
from engines.learners import optimizers
from engines.learners.search import command
from engines.learners.vectors import TARGETS, named_start
from engines.learners.weight_search import SearchConfig, WeightSearch
from engines.play.games import play_game
from engines.seedbank import DEFAULT_BANK, load_bank

ROLE = load_bank(DEFAULT_BANK).roles["training"]


def _config(fitness: str = "moves", **kw) -> SearchConfig:
    """A tiny CEM search of the six KF weights from zeros (one-ply KF games: milliseconds)."""
    return SearchConfig("cem", "kf", 6, 1.0, 5, 1, 7, int(ROLE["start"]), int(ROLE["count"]),
                        9_100_000_000, 3, tuple(named_start(TARGETS["kf"], "zero")),
                        elite=0.34, fitness=fitness, **kw)


def _generations(out: Path) -> list[dict]:
    records = []
    for path in sorted(out.glob("gen-*/generation.json")):
        r = json.loads(path.read_text())
        r.pop("wall_s")
        records.append(r)
    return records


def _told(monkeypatch) -> list[np.ndarray]:
    """What CEM is told, generation by generation."""
    told: list[np.ndarray] = []
    tell = optimizers.Cem.tell

    def spy(self, xs, scores):
        told.append(np.array(scores, dtype=np.float64))
        tell(self, xs, scores)

    monkeypatch.setattr(optimizers.Cem, "tell", spy)
    return told


def _mean_of(policy: str, seeds: list[int], key: str) -> float:
    from engines.learners.weight_search import policy_of

    return float(np.mean([play_game(policy_of(policy), s)[key] for s in seeds]))


def test_fitness_moves_tells_the_optimizer_the_mean_game_lengths(tmp_path, monkeypatch) -> None:
    """Each candidate's told value is the mean length of its games, replayed here by hand,
    and not their mean score; the records, curve and config say moves."""
    told = _told(monkeypatch)
    config = _config()
    search = WeightSearch(config, tmp_path / "s", log=lambda m: None)
    search.run(2)
    assert len(told) == 2
    for g, values in enumerate(told, start=1):
        seeds = config.block(g)
        record = json.loads((tmp_path / "s" / f"gen-{g:04d}" / "generation.json").read_text())
        lengths, scores = [], []
        for i, cand in enumerate(record["candidates"]):
            path = tmp_path / "s" / "candidates" / f"gen-{g:04d}-c{i:03d}.json"
            policy = TARGETS["kf"].policy(str(path), file_sha256(path), 1, 7)
            lengths.append(_mean_of(policy, seeds, "moves"))
            scores.append(_mean_of(policy, seeds, "score"))
            assert "scores" not in cand and len(cand["moves"]) == len(seeds)
        np.testing.assert_array_equal(values, lengths)
        assert not np.array_equal(values, scores)
        assert all(0 < v <= 2_000 for v in values)  # lengths, capped as every game is
    assert json.loads((tmp_path / "s" / "config.json").read_text())["fitness"] == "moves"
    assert json.loads((tmp_path / "s" / "curve.json").read_text())["fitness"] == "moves"


def test_a_score_search_records_no_fitness_and_keeps_its_hash() -> None:
    """The default fitness leaves the config, its SHA-256 (the hash below is this config's
    before the key existed) and the command as they were; moves changes the hash."""
    score = _config("score")
    assert "fitness" not in score.describe()
    assert score.sha256() == "83b78265681d9a4f6dadf6c1d522200c35370329a4a6ebcb9ad2f01df1ee0ce2"
    assert _config("moves").sha256() != score.sha256()
    recipe = {"learner": "cem", "target": "kf", "population": 64, "sigma": 1.0, "games": 256,
              "start": "zero"}
    words = [str(w) for w in command(recipe, 30, "OUT", 0)]
    assert "--fitness" not in words and words[words.index("--start") + 1] == "zero"
    words = [str(w) for w in command({**recipe, "fitness": "moves"}, 30, "OUT", 0)]
    assert words[words.index("--fitness") + 1] == "moves"


def test_a_resumed_moves_search_equals_an_uninterrupted_one(tmp_path) -> None:
    config = _config()
    WeightSearch(config, tmp_path / "a", log=lambda m: None).run(3)
    WeightSearch(config, tmp_path / "b", log=lambda m: None).run(1)
    logs: list[str] = []
    WeightSearch(config, tmp_path / "b", log=logs.append).run(3)
    assert any("resumed after generation 1" in m for m in logs)
    assert _generations(tmp_path / "a") == _generations(tmp_path / "b")
    assert len(_generations(tmp_path / "a")) == 3
    for name in ("frozen.json", "curve.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()


def test_one_and_two_workers_give_the_same_moves_search(tmp_path) -> None:
    config = _config(health_games=2)
    one = WeightSearch(config, tmp_path / "one", 1, log=lambda m: None).run(2)
    two = WeightSearch(config, tmp_path / "two", 2, log=lambda m: None).run(2)
    assert one == two
    assert _generations(tmp_path / "one") == _generations(tmp_path / "two")


def test_the_zero_start_is_the_controls_vector(tmp_path) -> None:
    from cli.main import main

    args = ["weight-search", "--kind", "cem", "--target", "kf", "--population", "4",
            "--sigma", "1", "--games", "2", "--generations", "1", "--first-game",
            "9200000000", "--start", "zero", "--fitness", "moves", "--health-games", "0",
            "--out", str(tmp_path / "z")]
    assert main(args) == 0
    first = _generations(tmp_path / "z")[0]
    assert first["control"]["vector"] == [0.0] * 6
    config = json.loads((tmp_path / "z" / "config.json").read_text())
    assert config["start"] == [0.0] * 6 and config["fitness"] == "moves"


@pytest.mark.parametrize("bad", ["lifetime", "Moves"])
def test_a_bad_fitness_flag_is_refused(tmp_path, capsys, bad) -> None:
    from cli.main import main

    assert main(["weight-search", "--kind", "cem", "--target", "kf", "--population", "4",
                 "--sigma", "1", "--games", "1", "--generations", "1", "--fitness", bad,
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "--fitness" in err, err
    assert not (tmp_path / "o").exists()


def test_the_page_shows_a_moves_curve_in_moves() -> None:
    """A search by length shows its curve to two decimals and says so; a score search as
    before, in whole points."""
    from analysis.report.learner_curves import _search

    point = {"generation": 1, "best": 43.2890625, "mean": 27.93, "control": 21.5}
    curve = {"curve": [point], "frozen": {"rule": "mean"}, "generations": 1}
    _, rows, notes = _search({**curve, "fitness": "moves"})
    assert rows == [["1", "43.29", "27.93", "21.50"]] and any("moves" in n for n in notes)
    _, rows, notes = _search(curve)
    assert rows == [["1", "43", "28", "22"]] and not any("moves" in n for n in notes)
