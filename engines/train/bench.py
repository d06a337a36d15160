"""``drop7 bench train``: TC-TD training throughput, engine work and table work apart.

Prints one JSON object.  With full-size tables of the chosen layout (A by
default: 4.8e8 entries, 5.76 GB with the accumulators) it

1. allocates values + accumulators (12 bytes an entry) and touches every
   page (``touch_s``: the one-time cost of a fresh table; first-touch faults
   are slow on this VM),
2. warms numba up and trains ``--warm-moves`` moves (untimed),
3. times ``--repeat`` blocks of ``--moves`` training moves, one after the
   other: ``moves_per_s`` (wall) and ``moves_per_cpu_s`` (process CPU time,
   less disturbed by other jobs) are the median block's, and
   ``moves_per_s_blocks`` lists every block (a shared host moves them);
   then as many moves of the same greedy play on the trained tables with no
   update (``play_moves_per_s``), so ``update_us_per_move`` is the TC-TD
   update's share of a training move (its 74 value and accumulator writes);
   ``huge_page_fraction``: the process's anonymous memory then held in
   transparent huge pages over the tables' bytes, capped at 1 (Linux; a
   low share means many more TLB misses),
4. times the same greedy play with no tables (layout ``null``):
   ``engine_moves_per_s``, the engine's share,
5. records the decision states of greedy play with the trained tables and
   times, per move (CPU time), the engine half of the choice alone
   (``engine_us_per_move``: every column's strata, no tables) and the whole
   choice (``choice_us_per_move``: with entries and values), beside the
   whole training move (``train_us_per_move``),
6. records the afterstate boards the move choices evaluate and times their
   feature extraction (``boards_per_s``) and their table lookups alone
   (``lookups_per_s``, in the recorded order, so cache reuse among the
   afterstates of a move is kept).

With ``--lanes L [--threads T]`` it times the lane trainer
(:mod:`engines.train.lanes`) instead: the same tables, warm-up and blocks,
``moves_per_s`` over every lane's moves, and the threads' time per move
choosing, learning and waiting (``choose_us_per_move``, ``learn_us_per_move``,
``wait_us_per_move``, and sitting out, ``sit_us_per_move``: summed over the
threads, from the kernel's cycle counts; ``sat_out_share``, the worker rounds
sat out per round).  A block is played in the trainer's calls of the kernel,
about ``CALL_S`` (half a second) each, so what a call costs as it starts and
ends is timed as a training pays it.  ``--threads 1,2`` times each thread
count in turn, block by block on the same tables, and adds ``by_threads`` (each count's figures) and
``speedup`` (each count's rate over the first's): a ratio measured in one
run, which the VM's drift between runs cannot fake.  ``--busy`` adds the
busy case, interleaved: after each round of blocks the same round again
while a competing process holds one core (:mod:`engines.held_core`), its
figures under ``busy`` (``by_threads``, ``speedup``).

``--treestrap dDsS`` adds, beside either, the TreeStrap trainer's figures on fresh tables of
the same layout in as many lanes (:mod:`engines.train.treestrap`; numba's threads):
``--treestrap-moves`` moves timed after one untimed round, under ``treestrap``: its
``moves_per_s``, the targets it trained a move and ``tc_td_ratio``, TC-TD's moves per second
over its own (a search move costs a whole dDsS decision).
"""

from __future__ import annotations

import argparse
import json
import resource
import time

import numba
import numpy as np

from contracts.cli_numbers import SEED_SPACE, int_option, seed_option
from contracts.machine_facts import machine_facts
from engines.drop7 import core
from engines.held_core import held_core
from engines.ntuple.layouts import INITIAL_VALUE, get_layout
from engines.train import bench_kernels as drivers
from engines.train import kernel as kern
from engines.train.lanes import (
    T_CHOOSE,
    T_LEARN,
    T_SAT,
    T_SIT,
    T_WAIT,
    TICKS_LEN,
    learn_parts,
    new_sitting,
    train_rounds,
)
from engines.train.trainer import FIRST_CALL_MOVES, next_call
from engines.weights_files import alloc_zeroed, anon_huge_bytes

#: the benchmark's games read seeds ``--seed-start .. --seed-start + BENCH_SEEDS - 1``
BENCH_SEEDS = 1 << 40


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``drop7 bench train``."""
    parser.add_argument("--layout", default="A", help="n-tuple layout A-E (default A)")
    parser.add_argument("--moves", type=int_option(1), default=200_000,
                        help="timed training moves per block")
    parser.add_argument("--repeat", type=int_option(1), default=3,
                        help="timed blocks (default 3; the median is reported)")
    parser.add_argument("--warm-moves", type=int_option(0), default=100_000,
                        help="untimed training moves first (default 100000)")
    parser.add_argument("--boards", type=int_option(1), default=300_000,
                        help="afterstate boards for the lookup timing")
    parser.add_argument("--states", type=int_option(1), default=50_000,
                        help="decision states for the engine and choice timings")
    parser.add_argument("--seed-start", type=seed_option(0, SEED_SPACE - BENCH_SEEDS),
                        default=1_000_000_000)
    parser.add_argument("--no-touch", action="store_true",
                        help="do not pre-fault the table pages")
    parser.add_argument("--lanes", type=int, default=None,
                        help="time the lane trainer with this many lanes instead")
    parser.add_argument("--threads", type=_thread_counts, default=(1,),
                        help="threads of the lane trainer (default 1); a list such as 1,2 "
                             "times each in turn on the same tables, block by block")
    parser.add_argument("--busy", action="store_true",
                        help="with --lanes: time every block again while a competing process "
                             "holds one core (interleaved)")
    parser.add_argument("--treestrap", default=None, metavar="dDsS",
                        help="also time TreeStrap with this search as the actor (e.g. d3s7)")
    parser.add_argument("--treestrap-moves", type=int_option(1), default=200,
                        help="TreeStrap moves timed (default 200; whole rounds of the lanes)")
    parser.add_argument("--json", action="store_true", help="print JSON (the default format)")


def _thread_counts(text: str) -> tuple[int, ...]:
    """``--threads``: one thread count or a comma-separated list of them."""
    try:
        counts = tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a thread count or a list such as 1,2") from None
    if len(set(counts)) != len(counts):
        raise argparse.ArgumentTypeError(f"{text!r} names a thread count twice")
    return counts


def _timed(fn, *args):
    """``(result, wall seconds, cpu seconds)`` of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    result = fn(*args)
    return result, time.perf_counter() - w0, time.process_time() - c0


def _huge_share(huge: int | None, table_bytes: int) -> float | None:
    """Anonymous memory in transparent huge pages over the tables' bytes, capped at 1 (None
    where the OS does not tell, or with no tables: layout ``null``)."""
    if huge is None or table_bytes == 0:
        return None
    return round(min(huge / table_bytes, 1.0), 3)


def _play(tables, layout, carry, state, cols, moves, learn, seed_start):
    vals, acc = tables
    fstats = np.zeros(kern.F_LEN)
    return kern.train_moves(vals, acc, INITIAL_VALUE, layout.spec, 1.0, np.uint64(seed_start),
                         BENCH_SEEDS, carry, state, cols, moves, learn, fstats)


def _choice_times(rec, layout, null, seed_start: int, nstates: int) -> tuple[int, float, float]:
    """``(states, engine us/move, choice us/move)`` in CPU time on decision states of greedy
    play with the trained tables."""
    states = np.zeros((nstates, 9), dtype=np.int64)
    seeds = np.arange(seed_start + 200_000, seed_start + 300_000, dtype=np.uint64)
    ns = int(drivers.collect_states(rec[0], INITIAL_VALUE, layout.spec, seeds, states))
    states = states[:ns]
    none = np.zeros(1, dtype=np.float32)
    drivers.choose_all(none, 0.0, null.spec, states[:10], True)
    drivers.choose_all(rec[0], INITIAL_VALUE, layout.spec, states[:10], False)
    _, _, ecpu = _timed(drivers.choose_all, none, 0.0, null.spec, states, True)
    _, _, ccpu = _timed(drivers.choose_all, rec[0], INITIAL_VALUE, layout.spec, states, False)
    return ns, 1e6 * ecpu / ns, 1e6 * ccpu / ns


def train_bench(layout_name: str, moves: int, warm: int, nboards: int, seed_start: int,
                touch: bool = True, nstates: int = 50_000, repeat: int = 3) -> dict:
    """Run the benchmark; returns the JSON-ready dict."""
    if moves < 1 or warm < 0 or nboards < 1 or nstates < 1 or repeat < 1:
        raise ValueError("--moves, --boards, --states and --repeat must be positive, "
                         "--warm-moves >= 0")
    layout = get_layout(layout_name)
    rec, touch_s = _tables(layout, touch)
    carry = np.zeros(kern.C_LEN, dtype=np.int64)
    state = np.zeros(core.ST_LEN, dtype=np.int64)
    cols = np.zeros(7, dtype=np.int64)
    _play(rec, layout, carry, state, cols, 20, True, seed_start)  # compile
    _play(rec, layout, carry, state, cols, warm, True, seed_start)
    look0 = int(carry[kern.C_LOOKUPS])
    blocks = [_timed(_play, rec, layout, carry, state, cols, moves, True, seed_start)
              for _ in range(repeat)]
    played, wall, cpu = sorted(blocks, key=lambda b: b[1])[len(blocks) // 2]  # the median
    lookups_per_move = (int(carry[kern.C_LOOKUPS]) - look0) / sum(b[0] for b in blocks)
    games_trained = int(carry[kern.C_GAMES_DONE])
    pplayed, pwall, pcpu = _timed(_play, rec, layout, carry, state, cols, moves, False, seed_start)
    huge = anon_huge_bytes()
    table_bytes = int(rec[0].nbytes + rec[1].nbytes)

    null = get_layout("null")
    nrec = (np.zeros(1, dtype=np.float32), np.zeros((1, 2), dtype=np.float32))
    ncarry = np.zeros(kern.C_LEN, dtype=np.int64)
    _play(nrec, null, ncarry, state.copy(), cols.copy(), 20, False, seed_start)
    nstate = np.zeros(core.ST_LEN, dtype=np.int64)
    ncols = np.zeros(7, dtype=np.int64)
    ncarry[:] = 0
    eplayed, ewall, ecpu = _timed(_play, nrec, null, ncarry, nstate, ncols, moves, False,
                                  seed_start)
    nrec, engine_us, choice_us = _choice_times(rec, layout, null, seed_start, nstates)

    boards = np.zeros((nboards, 7), dtype=np.int64)
    mrs = np.zeros(nboards, dtype=np.int64)
    seeds = np.arange(seed_start, seed_start + 100_000, dtype=np.uint64)
    nb = int(drivers.collect_boards(rec[0], INITIAL_VALUE, layout.spec, seeds, boards, mrs))
    boards, mrs = boards[:nb], mrs[:nb]
    idx = np.zeros((nb, layout.n_active), dtype=np.int64)
    idx.fill(1)  # fault the pages in before the clock starts (first touch is slow here)
    drivers.indices_of(boards[:10], mrs[:10], layout.spec, idx[:10])
    _, iwall, icpu = _timed(drivers.indices_of, boards, mrs, layout.spec, idx)
    drivers.gather_all(rec[0], INITIAL_VALUE, idx[:10], layout.n_active)
    _, gwall, gcpu = _timed(drivers.gather_all, rec[0], INITIAL_VALUE, idx, layout.n_active)
    nlook = nb * layout.n_active
    return {
        "benchmark": "train",
        "layout": layout.name,
        "entries": layout.entries,
        "n_active": layout.n_active,
        "table_bytes": table_bytes,
        "touch_s": round(touch_s, 2),
        "huge_page_fraction": _huge_share(huge, table_bytes),
        "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "moves": int(played),
        "repeat": repeat,
        "seconds": round(wall, 3),
        "moves_per_s": round(played / wall),
        "moves_per_s_blocks": [round(b[0] / b[1]) for b in blocks],
        "moves_per_cpu_s": round(played / max(cpu, 1e-9)),
        "train_us_per_move": round(1e6 * cpu / played, 2),
        "play_moves_per_s": round(pplayed / pwall),
        "update_us_per_move": round(1e6 * (cpu / played - pcpu / pplayed), 2),
        "states": nrec,
        "engine_us_per_move": round(engine_us, 2),
        "choice_us_per_move": round(choice_us, 2),
        "lookups_per_move": round(lookups_per_move, 1),
        "training_lookups_per_s": round(lookups_per_move * played / wall),
        "engine_moves_per_s": round(eplayed / ewall),
        "engine_moves_per_cpu_s": round(eplayed / max(ecpu, 1e-9)),
        "boards": nb,
        "boards_per_s": round(nb / iwall),
        "lookups_per_s": round(nlook / gwall),
        "lookups_per_cpu_s": round(nlook / max(gcpu, 1e-9)),
        "ns_per_lookup": round(1e9 * gwall / nlook, 2),
        "games_trained": games_trained,
        **machine_facts(),
    }


def _tables(layout, touch: bool) -> tuple[tuple[np.ndarray, np.ndarray], float]:
    """Fresh values and accumulators of ``layout``, every page touched unless not ``touch``;
    and the seconds the touching took."""
    rec = (alloc_zeroed((layout.entries,)), alloc_zeroed((layout.entries, 2)))
    t0 = time.perf_counter()
    if touch:
        for arr in rec:
            arr.reshape(-1).view(np.uint8)[::4096] = 0
    return rec, time.perf_counter() - t0 if touch else 0.0


def _cycles_per_s() -> float:
    """The cycle counter's rate (it counts at a constant rate on x86)."""
    drivers.cycles()
    c0, t0 = drivers.cycles(), time.perf_counter()
    time.sleep(0.2)
    return (drivers.cycles() - c0) / (time.perf_counter() - t0)


#: the competing process of ``--busy`` ends by itself after this long, whatever happens
_HOLD_S = 3600.0


def lanes_bench(layout_name: str, lanes: int, threads: tuple[int, ...], moves: int, warm: int,
                seed_start: int, touch: bool = True, repeat: int = 3, busy: bool = False) -> dict:
    """Time the lane trainer at each thread count of ``threads``; returns the JSON-ready dict.

    The thread counts take turns, block by block, on the same tables (``repeat`` blocks
    each, the order of a turn reversed every other turn), so their ratio is measured in one
    run, under the same load and table state; with
    ``busy`` each turn is followed by the same turn with one core held by a competing
    process, started before and stopped after it.
    """
    if lanes < 1 or moves < 1 or warm < 0 or repeat < 1:
        raise ValueError("--lanes, --moves and --repeat must be positive, --warm-moves >= 0")
    for t in threads:
        if not 1 <= t <= numba.config.NUMBA_NUM_THREADS:
            raise ValueError(f"--threads must be in 1..{numba.config.NUMBA_NUM_THREADS}")
    layout = get_layout(layout_name)
    (vals, acc), touch_s = _tables(layout, touch)
    carry = np.zeros((lanes, kern.C_LEN), dtype=np.int64)
    carry[:, kern.C_GAME] = np.arange(lanes)
    state = np.zeros((lanes, core.ST_LEN), dtype=np.int64)
    cols = np.zeros((lanes, 7), dtype=np.int64)
    fstats = np.zeros(kern.F_LEN)
    ticks = np.zeros(TICKS_LEN, dtype=np.int64)

    def rounds(n: int, t: int, sitting: np.ndarray | None = None) -> int:
        numba.set_num_threads(t)
        return train_rounds(vals, acc, INITIAL_VALUE, layout.spec, 1.0, np.uint64(seed_start),
                            1 << 40, carry, state, cols, n, learn_parts(), fstats, ticks,
                            sitting=sitting)

    # a block is played in the trainer's calls (about CALL_S each, each case and thread count
    # keeping its own pace): what a call costs at its start and end is timed as in a training
    calls = {(held, t): FIRST_CALL_MOVES for held in (False, True) for t in threads}

    def block(n: int, t: int, held: bool) -> int:
        played = 0
        while played < n:
            m = min(max(calls[held, t] // lanes, 1), n - played)
            t0 = time.perf_counter()
            played += rounds(m, t, sittings[held]) // lanes
            calls[held, t] = next_call(m * lanes, time.perf_counter() - t0)
        return played * lanes

    # each case's threads keep what they learnt of the machine from block to block, as a
    # training's do from call to call (not from the other case: the case changes between
    # blocks here, rarely in a training)
    sittings = {False: new_sitting(), True: new_sitting()}

    def turn(times: dict, order: tuple[int, ...], held: bool = False) -> None:
        for t in order:
            ticks[:] = 0
            played, wall, cpu = _timed(block, max(moves // lanes, 1), t, held)
            times[t].append((played, wall, cpu, *(ticks[k] / hz for k in
                                                  (T_CHOOSE, T_LEARN, T_WAIT, T_SIT)),
                             int(ticks[T_SAT]) / max(played // lanes, 1)))

    for t in threads:
        rounds(1, t)  # compile, and start each thread pool
    rounds(warm // lanes, max(threads))
    hz = _cycles_per_s()
    blocks: dict[int, list] = {t: [] for t in threads}
    busy_blocks: dict[int, list] = {t: [] for t in threads}
    for r in range(repeat):
        # the thread counts go first and last in turn (1, 2 then 2, 1 ...), so a drift within
        # a turn (the competitor just started, the host) favours none of them
        order = threads if r % 2 == 0 else threads[::-1]
        turn(blocks, order)
        if busy:
            with held_core(_HOLD_S):
                turn(busy_blocks, order, held=True)
    figures = [_lane_figures(t, blocks[t]) for t in threads]
    huge = anon_huge_bytes()
    table_bytes = int(vals.nbytes + acc.nbytes)
    result = {
        "benchmark": "train-lanes",
        "layout": layout.name,
        "entries": layout.entries,
        "lanes": lanes,
        "table_bytes": table_bytes,
        "touch_s": round(touch_s, 2),
        "huge_page_fraction": _huge_share(huge, table_bytes),
        "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "repeat": repeat,
        **figures[0],
        "games_trained": int(carry[:, kern.C_GAMES_DONE].sum()),
        **machine_facts(),
    }
    if len(threads) > 1:
        result["by_threads"] = figures
        result["speedup"] = _speedup(figures)
    if busy:
        held = [_lane_figures(t, busy_blocks[t]) for t in threads]
        result["busy"] = {"competitor": "one busy-looping process (engines/held_core.py)",
                          "by_threads": held, "speedup": _speedup(held)}
    return result


def _speedup(figures: list[dict]) -> dict[str, float]:
    """Each thread count's rate over the first's."""
    return {str(f["threads"]): round(f["moves_per_s"] / figures[0]["moves_per_s"], 3)
            for f in figures[1:]}


def _lane_figures(threads: int, blocks: list) -> dict:
    """The figures of one thread count: the median block's (by wall time), and every block."""
    played, wall, cpu, choose_s, learn_s, wait_s, sit_s, sat = sorted(
        blocks, key=lambda b: b[1])[len(blocks) // 2]
    return {
        "threads": threads,
        "moves": played,
        "seconds": round(wall, 3),
        "moves_per_s": round(played / wall),
        "moves_per_s_blocks": [round(b[0] / b[1]) for b in blocks],
        "moves_per_cpu_s": round(played / max(cpu, 1e-9)),
        "choose_us_per_move": round(1e6 * choose_s / played, 3),
        "learn_us_per_move": round(1e6 * learn_s / played, 3),
        "wait_us_per_move": round(1e6 * wait_s / played, 3),
        "sit_us_per_move": round(1e6 * sit_s / played, 3),
        "sat_out_share": round(sat, 4),
        "learn_share": round(learn_s / max(choose_s + learn_s, 1e-12), 3),
    }


def treestrap_bench(layout_name: str, search: str, lanes: int, moves: int, seed_start: int,
                    tc_td_moves_per_s: float) -> dict:
    """TreeStrap's throughput on fresh tables of ``layout_name`` in ``lanes`` lanes: ``moves``
    timed (whole rounds) after one untimed round; beside TC-TD's rate, measured by the caller."""
    from engines.train.cli import parse_search
    from engines.train.trainer import SeedRange
    from engines.train.treestrap import TreestrapLearner

    depth, strata = parse_search(search)
    learner = TreestrapLearner(get_layout(layout_name), 1.0, lanes, depth, strata)
    carry = np.zeros((lanes, kern.C_LEN), dtype=np.int64)
    carry[:, kern.C_GAME] = np.arange(lanes)
    state = np.zeros((lanes, core.ST_LEN), dtype=np.int64)
    cols = np.zeros((lanes, 7), dtype=np.int64)
    seeds = SeedRange(seed_start, BENCH_SEEDS)
    fstats = np.zeros(kern.F_LEN)
    learner.play(seeds, carry, state, cols, lanes, fstats)  # compile and warm
    timed = max(moves // lanes, 1) * lanes
    before = learner.targets_applied
    t0, c0 = time.perf_counter(), time.process_time()
    learner.play(seeds, carry, state, cols, timed, fstats)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    rate = timed / wall
    return {"search": search, "targets": learner.targets, "lanes": lanes,
            "threads": numba.get_num_threads(), "moves": timed, "seconds": round(wall, 3),
            "moves_per_s": round(rate, 1), "moves_per_cpu_s": round(timed / max(cpu, 1e-9), 1),
            "targets_per_move": round((learner.targets_applied - before) / timed, 1),
            "tc_td_ratio": round(tc_td_moves_per_s / rate, 1)}


def run(args: argparse.Namespace) -> int:
    """``drop7 bench train``."""
    if args.lanes is not None:
        result = lanes_bench(args.layout, args.lanes, args.threads, args.moves,
                             args.warm_moves, args.seed_start, touch=not args.no_touch,
                             repeat=args.repeat, busy=args.busy)
    else:
        if args.busy:
            raise ValueError("--busy times the lane trainer: give --lanes too")
        result = train_bench(args.layout, args.moves, args.warm_moves, args.boards,
                             args.seed_start, touch=not args.no_touch, nstates=args.states,
                             repeat=args.repeat)
    if args.treestrap is not None:
        numba.set_num_threads(max(args.threads))
        result["treestrap"] = treestrap_bench(args.layout, args.treestrap, args.lanes or 1,
                                              args.treestrap_moves, args.seed_start,
                                              result["moves_per_s"])
    print(json.dumps(result))
    return 0
