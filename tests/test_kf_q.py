"""The Klein-Friedmann Q-learner: one update against its readable twin, that it learns (and that
a broken update is caught), kill and resume, workers, and pinned KF weights files in claims."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from claims_support import REPO, fair_depth_claim, write_claim

from contracts.errors import InputError
from contracts.hashing import file_sha256
from engines.drop7 import core
from engines.drop7.board import unpack
from engines.filters.kf import kf_features
from engines.filters.kf_weights import kf_weights
from engines.learners import kf_q, kf_q_ref
from engines.learners.kf_q_train import CURVE, WEIGHTS, KfqConfig, KfqRun, checkpoint_games
from engines.play.games import play_policy
from engines.play.policy import load_policy
from protocol.checks import before_any_job
from protocol.plan import load_plan
from protocol.schema import DeclarationError

#: a small run: the learner is front-loaded (the theory's clause ii), so 300 games learn
GAMES, EVERY = 300, 100


def _grid(cols: np.ndarray) -> list[list[int]]:
    return [list(map(int, r)) for r in unpack(cols)]


def _transitions(seed: int) -> list[tuple]:
    """``(cols, disc, column, next cols or None, next disc)`` of every move of a random game."""
    policy, seen = load_policy("random"), []

    def record(state, cols) -> int:
        column = policy.choose(state, cols)
        seen.append((cols.copy(), int(state[core.ST_NEXT_DISC]), column))
        return column

    final = play_policy(policy, seed, record)
    out = []
    for k, (cols, disc, column) in enumerate(seen):
        nxt = seen[k + 1] if k + 1 < len(seen) else None
        if nxt is None and not final[core.ST_GAME_OVER]:
            continue  # a censored last move has no next position recorded
        out.append((cols, disc, column, None if nxt is None else nxt[0],
                    0 if nxt is None else nxt[1]))
    return out


def _kernel_update(weights, cols, disc, column, ncols, ndisc, eta):
    feats = np.zeros((7, 6), dtype=np.int64)
    nfeats = np.zeros((7, 6), dtype=np.int64)
    tall, ntall = np.zeros(7, dtype=np.bool_), np.zeros(7, dtype=np.bool_)
    kf_features(cols, disc, feats)
    kf_q.tallest_flags(cols, tall)
    if ncols is not None:
        kf_features(ncols, ndisc, nfeats)
        kf_q.tallest_flags(ncols, ntall)
    w = weights.copy()
    error = kf_q.q_update(w, feats[column].astype(np.float64), tall[column],
                          0.0 if ncols is None else 1.0, nfeats, ntall, ncols is None, eta, 0.1,
                          1.0, 1.0)
    return w, error


def test_one_update_equals_the_twin_bit_for_bit() -> None:
    rng = np.random.default_rng(46)
    moves = [t for seed in range(1, 9) for t in _transitions(seed)]
    assert len(moves) > 150 and sum(t[3] is None for t in moves) == 8
    tallest_seen = changed = 0
    for cols, disc, column, ncols, ndisc in moves:
        weights = rng.normal(0.0, 3.0, 6)
        eta = float(rng.choice([1.0, 0.5, 1e-3, 1.0 / 977]))
        have, error = _kernel_update(weights, cols, disc, column, ncols, ndisc, eta)
        want, want_error = kf_q_ref.update(
            weights.tolist(), _grid(cols), disc, column, 0.0 if ncols is None else 1.0,
            None if ncols is None else _grid(ncols), ndisc, eta)
        assert have.tolist() == want and error == want_error, (cols.tolist(), disc, column)
        tallest_seen += kf_q_ref.presence(_grid(cols), disc, column)[kf_q_ref.TALLEST]
        changed += int((have != weights).sum())
    assert tallest_seen > 10 and changed > 2 * len(moves)  # not a vacuous comparison


def test_the_step_schedules_are_the_twins() -> None:
    for name, code in kf_q.SCHEDULES.items():
        for t, g in ((1, 1), (37, 2), (50_000, 900), (2_400_000, 50_000)):
            assert kf_q.step_size(code, t, g) == kf_q_ref.step_size(name, t, g)


def _config(**over) -> KfqConfig:
    return KfqConfig(seed_start=0x1000000000000000, seed_count=0x0100000000000000,
                     validation_games=64, **over)


def _learned(out) -> tuple[bool, dict]:
    """Whether a run's curve at its last checkpoint beats its start and random play."""
    points = json.loads((out / CURVE).read_text())["points"]
    first, last = points[0], points[-1]
    return (last["greedy_moves"] > first["greedy_moves"] + 3
            and last["delta_moves"] > 2 * last["delta_se"] and last["delta_moves"] > 3), last


def test_the_learner_learns_and_a_broken_update_is_caught(tmp_path) -> None:
    KfqRun(_config(), tmp_path / "ok").run(GAMES, EVERY)
    ok, last = _learned(tmp_path / "ok")
    assert ok, last
    # the register's re-learned arms live about ten moves longer than random play
    assert 30 < last["greedy_moves"] < 45 and last["wins_ties_losses"][0] > 40
    try:
        KfqRun(_config(), tmp_path / "flip", sign=-1.0).run(GAMES, EVERY)
    except InputError as exc:  # a flipped update may diverge: the curve is written first
        assert "diverged" in str(exc)
    assert not _learned(tmp_path / "flip")[0]


def _checkpoints(out) -> list[dict]:
    docs = []
    for path in sorted(out.glob("checkpoint-*.json")):
        doc = json.loads(path.read_text())
        doc["health"].pop("wall_s")
        docs.append(doc)
    return docs


def test_stopped_and_resumed_equals_uninterrupted(tmp_path) -> None:
    whole = KfqRun(_config(), tmp_path / "whole").run(GAMES, EVERY)
    part = KfqRun(_config(), tmp_path / "part").run(GAMES, EVERY, stop_after=EVERY)
    assert part == {"games": EVERY, "stopped": True} and not (tmp_path / "part" / WEIGHTS).exists()
    again = KfqRun(_config(), tmp_path / "part").run(GAMES, EVERY, resume=True)
    assert again == whole
    assert _checkpoints(tmp_path / "part") == _checkpoints(tmp_path / "whole")
    assert (tmp_path / "part" / WEIGHTS).read_bytes() == (tmp_path / "whole" / WEIGHTS).read_bytes()
    with pytest.raises(InputError, match="checkpoint-300.json: key config: another run's"):
        KfqRun(_config(schedule="constant"), tmp_path / "part").run(GAMES, EVERY, resume=True)
    with pytest.raises(InputError, match="already holds checkpoints"):
        KfqRun(_config(), tmp_path / "part").run(GAMES, EVERY)


def test_a_killed_command_resumes_to_the_same_bits(tmp_path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cmd = [sys.executable, "-m", "cli", "kf-train", "--games", "40000", "--every", "2000",
           "--validation-games", "16"]
    proc = subprocess.Popen([*cmd, "--out", str(tmp_path / "k")], env=env, cwd=REPO,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while not (tmp_path / "k" / "checkpoint-4000.json").exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.005)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert not (tmp_path / "k" / WEIGHTS).exists()
    for out, extra in (("k", ["--resume"]), ("u", [])):
        subprocess.run([*cmd, "--out", str(tmp_path / out), *extra], env=env, cwd=REPO,
                       check=True, capture_output=True)
    assert (tmp_path / "k" / WEIGHTS).read_bytes() == (tmp_path / "u" / WEIGHTS).read_bytes()
    assert _checkpoints(tmp_path / "k") == _checkpoints(tmp_path / "u")


def test_one_and_two_workers_give_the_same_bits(tmp_path) -> None:
    KfqRun(_config(), tmp_path / "one", workers=1).run(EVERY, EVERY // 2)
    KfqRun(_config(), tmp_path / "two", workers=2).run(EVERY, EVERY // 2)
    assert _checkpoints(tmp_path / "one") == _checkpoints(tmp_path / "two")
    assert len(_checkpoints(tmp_path / "one")) == len(checkpoint_games(EVERY, EVERY // 2)) == 3


def test_the_slower_schedules_run_and_a_diverged_learner_is_not_frozen(tmp_path) -> None:
    """The harmonic schedule diverges, as the register's did (its weights went NaN): the run
    says so in one line and writes no weights; the constant schedule learns."""
    with pytest.raises(InputError, match="checkpoint-2000.json: key weights: the learner "
                                         "diverged"):
        KfqRun(_config(schedule="harmonic"), tmp_path / "h").run(2000, 1000)
    curve = json.loads((tmp_path / "h" / CURVE).read_text())["points"]
    assert curve[-1]["health"]["finite"] is False and not (tmp_path / "h" / WEIGHTS).exists()
    KfqRun(_config(schedule="constant"), tmp_path / "c").run(GAMES, EVERY)
    assert _learned(tmp_path / "c")[0]


# ---- pinned KF weights files in claims ---------------------------------------------------------

def _kf_claim(tmp_path, weights) -> tuple:
    doc = fair_depth_claim(block=60)
    doc["arms"]["fair-d2s7"] = {"play": "kf", "weights": weights}
    own = tmp_path / "mine"
    own.mkdir(exist_ok=True)
    return own, write_claim(own, doc)


def test_a_claim_plays_a_pinned_kf_weights_file(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.json").write_text(json.dumps(list(kf_weights("cem"))))
    digest = file_sha256(tmp_path / "w.json")
    own, _ = _kf_claim(tmp_path, {"file": "./w.json", "sha256": digest})
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(own)})
    arm = plan.claims["fair-depth-prefix"].arms["fair-d2s7"]
    assert arm.policy == f"kf:w={digest}:w.json" and arm.pinned.kind == "kf-file"
    assert plan.claims["fair-depth-prefix"].describe()["pinned"] == {
        "arms.fair-d2s7.weights": {"file": "w.json", "sha256": digest, "kind": "kf-file"}}
    before_any_job(plan)


@pytest.mark.parametrize(("content", "pin", "where", "message"), [
    (list(kf_weights("cem")), "0" * 64, "sha256", "is not the pinned|expected"),
    (list(kf_weights("cem"))[:5], None, "file", "a JSON list of 6 finite numbers"),
    ([*kf_weights("cem"), 1.0], None, "file", "a JSON list of 6 finite numbers"),
])
def test_a_bad_kf_weights_file_is_refused_before_any_job(tmp_path, monkeypatch, content, pin,
                                                         where, message) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.json").write_text(json.dumps(content))
    own, path = _kf_claim(tmp_path, {"file": "w.json", "sha256": pin or file_sha256(
        tmp_path / "w.json")})
    plan = load_plan(REPO, {"profile": "smoke", "claims_dir": str(own)})
    with pytest.raises(DeclarationError, match=message) as err:
        before_any_job(plan)
    text = str(err.value)
    assert text.startswith(f"{path}: key arms.fair-d2s7.weights.{where}: w.json")
    assert "\n" not in text


def test_the_page_section_flags_an_unhealthy_learner(tmp_path) -> None:
    """Healthy from a real run; a curve whose last point lives no longer than its start or
    random play, or whose weights are not finite, is named."""
    from analysis.report.kf_q_model import KfQSection

    KfqRun(_config(), tmp_path / "ok").run(GAMES, EVERY)
    curve = json.loads((tmp_path / "ok" / CURVE).read_text())
    record = json.loads((tmp_path / "ok" / "frozen.json").read_text())
    assert record["sha256"] == file_sha256(tmp_path / "ok" / WEIGHTS)
    assert KfQSection.from_json("ok", curve, record).problems == []
    last = curve["points"][-1]
    last.update(greedy_moves=curve["points"][0]["greedy_moves"], delta_moves=0.0)
    last["health"]["finite"] = False
    problems = KfQSection.from_json("bad", curve, record).problems
    assert len(problems) == 3 and "not finite at 300 games" in problems[0]


@pytest.mark.workflow
def test_the_claim_trains_its_weights_and_plays_them_in_smoke(tmp_path) -> None:
    """The shipped claim by name under smoke: both kf-q weights trained and frozen with their
    hash, the kf arms play them (checked against that hash), every reading read, the page
    shows the learner's section."""
    from workflow_support import games_rows, load, ok, plan_of, snakemake

    work = tmp_path / "run"
    work.mkdir()
    ok(snakemake(work, "--cores", "2", "--config", "profile=smoke", "--",
                 "kf_linear_q_transfer"))
    plan = plan_of("smoke")
    p, paths = plan.claims["kf-linear-q-transfer"], plan.paths
    for t in p.direct_trained.values():
        record = load(work / t.record)
        assert record["sha256"] == file_sha256(work / t.weights_file) and record["games"] == 400
    verdict = load(work / paths.path("verdict", claim=p.id))
    assert {r["name"] for r in verdict["readings"]} == set(p.claim.readings)
    assert all(r["outcome"] != "not-run" for r in verdict["readings"])
    policies = {row["policy"] for f in (work / paths.root).rglob("games.csv")
                for row in games_rows(f)}
    assert f"kf:w=trained:{p.direct_trained['relearned'].dir}" in policies
    page = (work / paths.path("page", claim=p.id)).read_text()
    assert "The Klein-Friedmann Q-learner" in page and record["sha256"] in page


def _kfq_claim(tmp_path, edit):
    from claims_support import claims_copy

    return claims_copy(tmp_path / "c", edit, claim="kf-linear-q-transfer")


@pytest.mark.parametrize(("edit", "key", "message"), [
    (lambda d: d["weights"]["relearned"]["train"].update(every=60000),
     "weights.relearned.train.every", "60,000 is larger than games = 50,000"),
    (lambda d: d["weights"].update(cem={"train": {"learner": "kf-q", "games": 10, "every": 5}}),
     "weights.cem", "'cem' is a named KF vector"),
    (lambda d: d["arms"]["kf-relearned"].update(weights="relearnt"), "arms.kf-relearned.weights",
     "'relearnt' is neither a named vector (transplanted, cem) nor kf weights this claim "
     "trains (relearned, relearned-constant)"),
    (lambda d: d["weights"]["relearned"]["train"].update(schedule="sqrt"),
     "weights.relearned.train", ""),
])
def test_kf_q_misuse_is_one_line_naming_the_file_and_key(tmp_path, edit, key, message) -> None:
    from protocol.declaration import load_claims

    with pytest.raises(DeclarationError) as err:
        load_claims(_kfq_claim(tmp_path, edit))
    text = str(err.value)
    assert "\n" not in text and f"kf-linear-q-transfer.yaml: key {key}" in text
    assert message in text


def test_trained_weights_play_only_as_their_record_says(tmp_path) -> None:
    from engines.play.arm_specs import KfSpec
    from engines.play.policy_grammar import parse_policy

    KfqRun(_config(), tmp_path / "t").run(EVERY, EVERY)
    spec = parse_policy(f"kf:w=trained:{tmp_path / 't'}")
    assert spec == KfSpec(None, None, str(tmp_path / "t")) and spec.format().endswith("/t")
    played = load_policy(spec)
    weights = json.loads((tmp_path / "t" / WEIGHTS).read_text())
    assert played.weights.tolist() == weights
    (tmp_path / "t" / WEIGHTS).write_text(json.dumps([w + 1e-9 for w in weights]))
    from engines.play.arm_specs import PolicyError

    with pytest.raises(PolicyError, match="weights.json") as err:
        load_policy(spec)
    assert "\n" not in str(err.value)


def test_training_and_curve_games_are_the_training_roles(tmp_path) -> None:
    """Every game the learner reads is of the seed bank's training role (never a screen block),
    and no declarable first game and budget reaches the curve's games."""
    from engines.learners.kf_q_train import MAX_GAMES, VALIDATION_GAME, validation_seeds
    from engines.seedbank import load_bank

    bank = load_bank()
    out = tmp_path / "cli"
    subprocess.run([sys.executable, "-m", "cli", "kf-train", "--games", "20", "--out", str(out),
                    "--validation-games", "8", "--first-game", "123"], env={
                        **os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO, check=True,
                   capture_output=True)
    cfg = json.loads((out / "frozen.json").read_text())["config"]
    assert cfg["seed_start"] == int(bank.roles["training"]["start"]) and cfg["first_game"] == 123
    last_training = cfg["seed_start"] + cfg["first_game"] + 19
    curve = validation_seeds(KfqConfig(**cfg))
    assert {bank.role_of(int(s)) for s in [cfg["seed_start"], last_training, *curve]} == {
        "training"}
    from engines.learners import get_learner

    limits = get_learner("kf-q").keys
    # the last game read is first_game + games - 1; the command takes what the schema does
    assert limits["games"]["maximum"] == MAX_GAMES
    assert limits["first_game"]["maximum"] == VALIDATION_GAME - MAX_GAMES
