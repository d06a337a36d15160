"""``drop7 bench train`` runs on a small layout and reports engine and table work apart."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from cli.main import main
from engines.held_core import held_core
from engines.weights_files import anon_huge_bytes


def test_bench_train_small_layout(capsys) -> None:
    code = main(["bench", "train", "--layout", "T1", "--moves", "1500", "--warm-moves", "300",
                 "--boards", "800", "--no-touch", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("moves_per_s", "lookups_per_s", "engine_moves_per_s", "boards_per_s",
                "moves_per_cpu_s", "lookups_per_move", "table_bytes", "play_moves_per_s"):
        assert result[key] > 0, key
    assert "update_us_per_move" in result
    assert result["layout"] == "T1" and result["moves"] == 1500
    assert result["boards"] == 800 and result["n_active"] == 2
    assert result["huge_page_fraction"] is None or 0.0 <= result["huge_page_fraction"] <= 1.0
    blocks = result["moves_per_s_blocks"]
    assert result["repeat"] == 3 and len(blocks) == 3
    assert result["moves_per_s"] == sorted(blocks)[1]  # the median block


def test_bench_train_rejects_no_timed_block(capsys) -> None:
    assert main(["bench", "train", "--layout", "T1", "--repeat", "0", "--no-touch"]) == 2
    assert "--repeat" in capsys.readouterr().err


def test_huge_page_bytes_are_read_from_smaps_rollup() -> None:
    text = ("00400000-7ffd [rollup]\nRss:             4814904 kB\n"
            "Anonymous:       4720280 kB\nAnonHugePages:   4648960 kB\nShmemHugePages: 0 kB\n")
    assert anon_huge_bytes(text) == 4648960 * 1024
    assert anon_huge_bytes("Rss: 10 kB\n") is None  # a kernel without THP accounting


def test_bench_train_unknown_layout_exits_2(capsys) -> None:
    assert main(["bench", "train", "--layout", "Q"]) == 2
    assert "unknown layout" in capsys.readouterr().err


def test_bench_train_lanes_times_both_phases(capsys) -> None:
    code = main(["bench", "train", "--layout", "T1", "--lanes", "4", "--threads", "1",
                 "--moves", "400", "--warm-moves", "40", "--repeat", "1", "--no-touch", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["benchmark"] == "train-lanes" and result["lanes"] == 4
    assert result["threads"] == 1 and result["moves"] == 400
    assert result["moves_per_s"] > 0 and result["choose_us_per_move"] > 0
    assert result["learn_us_per_move"] > 0 and 0.0 < result["learn_share"] < 1.0
    assert result["wait_us_per_move"] >= 0 and "busy" not in result


def test_bench_train_lanes_times_thread_counts_in_turn(capsys) -> None:
    code = main(["bench", "train", "--layout", "T1", "--lanes", "4", "--threads", "1,2",
                 "--moves", "400", "--warm-moves", "40", "--repeat", "2", "--no-touch", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert [f["threads"] for f in result["by_threads"]] == [1, 2]
    assert all(len(f["moves_per_s_blocks"]) == 2 for f in result["by_threads"])
    two = result["by_threads"][1]["moves_per_s"] / result["by_threads"][0]["moves_per_s"]
    assert result["speedup"]["2"] == pytest.approx(two, abs=1e-3)


def test_bench_train_lanes_busy_times_both_cases_interleaved(capsys) -> None:
    """``--busy``: every thread count idle and with a core held, the competitor gone after."""
    code = main(["bench", "train", "--layout", "T1", "--lanes", "4", "--threads", "1,2",
                 "--moves", "400", "--warm-moves", "40", "--repeat", "2", "--no-touch", "--busy",
                 "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    for case in (result, result["busy"]):
        figures = case["by_threads"]
        assert [f["threads"] for f in figures] == [1, 2]
        assert all(len(f["moves_per_s_blocks"]) == 2 and f["moves"] == 400 for f in figures)
        two = figures[1]["moves_per_s"] / figures[0]["moves_per_s"]
        assert case["speedup"]["2"] == pytest.approx(two, abs=1e-3)
    assert result["busy"]["by_threads"] != result["by_threads"]  # timed apart


def test_the_competitor_runs_inside_the_block_only() -> None:
    """It busy-loops (uses CPU) while the block runs, and is gone when it ends."""
    with held_core(20, nice=10) as proc:
        assert proc.poll() is None
        stat = Path(f"/proc/{proc.pid}/stat")
        if stat.exists():  # Linux: its user + system clock ticks

            def used() -> int:
                return sum(int(x) for x in stat.read_text().rsplit(")", 1)[1].split()[11:13])

            start, t0 = used(), time.monotonic()
            while used() == start and time.monotonic() - t0 < 5:
                time.sleep(0.05)
            assert used() > start
    assert proc.poll() is not None


def test_bench_train_busy_needs_lanes(capsys) -> None:
    assert main(["bench", "train", "--layout", "T1", "--busy", "--no-touch"]) == 2
    err = capsys.readouterr().err.strip()
    assert "--busy" in err and "--lanes" in err and "\n" not in err


@pytest.mark.parametrize("threads", ["1,x", "2,2"])
def test_bench_train_lanes_refuses_a_bad_thread_list(capsys, threads) -> None:
    assert main(["bench", "train", "--layout", "T1", "--lanes", "4", "--threads", threads]) == 2
    assert "argument --threads" in capsys.readouterr().err


def test_bench_train_lanes_refuses_too_many_threads(capsys) -> None:
    assert main(["bench", "train", "--layout", "T1", "--lanes", "4", "--threads", "100000",
                 "--no-touch"]) == 2
    assert "--threads" in capsys.readouterr().err
