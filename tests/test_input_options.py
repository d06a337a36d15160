"""Numbers out of range on the command lines: one line naming the flag, exit 2, before any
work (no output, nothing trained, played or benchmarked)."""

from __future__ import annotations

import pytest

from cli.main import main
from contracts.cli_numbers import INT64_MAX, SEED_SPACE, parse_seed_block

BIG = str(2**64)
HUGE = "9" * 5000  # past Python's 4300-digit int conversion limit
TRAIN = ["train", "--layout", "T1", "--seeds", "0x1000000000000000:1000"]
BANK_TRAIN = ["train", "--layout", "T1"]
PLAY = ["play", "--policy", "random"]
ARMS = ["run-arms", "--arm", "a=random"]
STATS = ["stats", "no-such-games.csv", "--candidate", "a", "--baseline", "b"]

CASES = [
    # drop7 train: every integer flag
    (BANK_TRAIN + ["--moves", "10", "--first-game", BIG], "--first-game"),
    (BANK_TRAIN + ["--moves", "10", "--first-game", str(2**63)], "--first-game"),
    (BANK_TRAIN + ["--moves", "10", "--first-game", str(2**56)], "past the training role"),
    (BANK_TRAIN + ["--moves", "10", "--first-game", "-1"], "--first-game"),
    (BANK_TRAIN + ["--moves", str(INT64_MAX), "--first-game", "5"], "64-bit game counter"),
    (TRAIN + ["--moves", "0"], "--moves"),
    (TRAIN + ["--moves", "-5"], "--moves"),
    (TRAIN + ["--moves", BIG], "--moves"),
    (TRAIN + ["--moves", HUGE], "--moves"),
    (TRAIN + ["--moves", "1e6"], "--moves"),
    (TRAIN + ["--moves", "10", "--every", "0"], "--every"),
    (TRAIN + ["--moves", "10", "--every", BIG], "--every"),
    (TRAIN + ["--moves", str(10**12), "--every", "1"], "checkpoints"),
    (TRAIN + ["--moves", "10", "--start", BIG], "--start"),
    (TRAIN + ["--moves", "10", "--start", "-1"], "--start"),
    (TRAIN + ["--moves", "10", "--log-every", "nan"], "--log-every"),
    (TRAIN + ["--moves", "10", "--alpha", "nan"], "--alpha"),
    (["train", "--layout", "T1", "--moves", "10", "--seeds", "0x10000000000000000:1"],
     "START must"),
    (["train", "--layout", "T1", "--moves", "10", "--seeds", "0xffffffffffffffff:2"],
     "must not pass 2**64"),
    (["train", "--layout", "T1", "--moves", "10", "--seeds", "0:0x8000000000000000"],
     "COUNT must"),
    (["train", "--layout", "T1", "--moves", "10", "--seeds", f"0:{HUGE}"], "COUNT must"),
    # drop7 play and run-arms: seeds, shard, workers, budgets
    (PLAY + ["--seeds", "18446744073709551615:2"], "must not pass 2**64"),
    (PLAY + ["--seeds", "0xffffffffffffffff:0x2"], "must not pass 2**64"),
    (PLAY + ["--seeds", f"{HUGE}:1"], "START must"),
    (PLAY + ["--seeds", "1:0"], "COUNT must"),
    (PLAY + ["--seeds=-1:3"], "START must"),
    (PLAY + ["--seeds", "1:2", "--shard", f"1/{HUGE}"], "shard K"),
    (PLAY + ["--seeds", "1:2", "--shard", "0/0"], "shard K"),
    (PLAY + ["--seeds", "1:2", "--shard", "3/2"], "shard k"),
    (PLAY + ["--seeds", "1:2", "--workers", "0"], "--workers"),
    (PLAY + ["--seeds", "1:2", "--workers", BIG], "--workers"),
    (PLAY + ["--seeds", "1:2", "--budget-s", "inf"], "--budget-s"),
    (PLAY + ["--seeds", "1:2", "--progress-s", "nan"], "--progress-s"),
    (ARMS + ["--seeds", f"0:{BIG}"], "--seeds"),
    (ARMS + ["--seeds", "1:2", "--shard", f"{BIG}/{BIG}"], "shard K"),
    (ARMS + ["--seeds", "1:2", "--workers", "1000000"], "--workers"),
    # drop7 stats: bootstrap and OC sizes, the generator seed (before the tables are read)
    (STATS + ["--bootstrap-seed=-1"], "--bootstrap-seed"),
    (STATS + ["--bootstrap-seed", BIG], "--bootstrap-seed"),
    (STATS + ["--resamples", str(10**14)], "--resamples"),
    (STATS + ["--oc", "--oc-sims", str(10**14)], "--oc-sims"),
    (STATS + ["--resamples", HUGE], "--resamples"),
    # drop7 bench: counts and seeds (refused before any table is allocated)
    (["bench", "engine", "--games", "0"], "--games"),
    (["bench", "engine", "--games", "1", "--repeats", "0"], "--repeats"),
    (["bench", "engine", "--games", "2", "--seed-start", str(SEED_SPACE - 1)], "--seed-start"),
    (["bench", "engine", "--games", "1", "--seed-start", "-1"], "--seed-start"),
    (["bench", "train", "--moves", "0"], "--moves"),
    (["bench", "train", "--repeat", "0"], "--repeat"),
    (["bench", "train", "--moves", BIG], "--moves"),
    (["bench", "train", "--seed-start", str(SEED_SPACE - 5)], "--seed-start"),
    (["bench", "leaf", "--games", "-3"], "--games"),
    (["bench", "memory", "--reads", "0"], "--reads"),
    (["bench", "search", "--positions", "0"], "--positions"),
]


@pytest.mark.parametrize(("argv", "fragment"), CASES,
                         ids=[" ".join(a[:1] + a[-2:])[:60] for a, _ in CASES])
def test_out_of_range_numbers_are_one_line(tmp_path, capsys, argv, fragment) -> None:
    out = tmp_path / "out"
    full = [*argv, "--out", str(out)] if argv[0] in ("train", "play", "run-arms") else argv
    assert main(full) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and not out.exists()
    assert captured.err.count("\n") == 1 and len(captured.err) < 300, captured.err[:300]
    assert captured.err.startswith("drop7 ") and fragment in captured.err, captured.err


@pytest.mark.parametrize(("argv", "fragment"), [
    (["--games", "0"], "--games"),
    (["--games", "-1"], "--games"),
    (["--games", BIG], "--games"),
    (["--first-game", "-1"], "--first-game"),
    (["--first-game", BIG], "--first-game"),
    (["--first-game", str(2**56)], "training role"),
    (["--first-game", str(2**56 - 2), "--games", "5"], "training role"),
])
def test_evaluate_numbers_are_one_line(tmp_path, capsys, argv, fragment) -> None:
    assert main(["evaluate", str(tmp_path / "no-weights"), *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("drop7 evaluate: error:"), err
    assert fragment in err, err


def test_seed_blocks_accept_hex_and_the_last_seed() -> None:
    assert parse_seed_block("0x3000000000000000:256") == (0x3000000000000000, 256)
    assert parse_seed_block(f"{SEED_SPACE - 1}:1") == (SEED_SPACE - 1, 1)


def test_a_seed_flag_takes_hex_as_the_seed_bank_writes_it() -> None:
    import argparse

    from contracts.cli_numbers import seed_option

    convert = seed_option()
    assert convert("0x3000000000000000") == convert(str(0x3000000000000000))
    assert convert("0xFFFFFFFFFFFFFFFF") == SEED_SPACE - 1
    for bad in ("0x10000000000000000", "0x", "0xg1", "-0x1"):
        with pytest.raises(argparse.ArgumentTypeError, match="decimal or 0x hex"):
            convert(bad)


@pytest.mark.parametrize("argv", [["bench", "engine", "--seed-start", "0x10000000000000000"],
                                  ["bench", "train", "--seed-start", "0xffffffffffffffff"]])
def test_bench_seed_start_in_hex_is_checked(capsys, argv) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--seed-start" in err and "0x hex" in err, err
