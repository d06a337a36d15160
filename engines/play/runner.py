"""Paired games in shards: several arms on one seed block, merged into one table.

Game ``i`` of a block ``START:COUNT`` is played on seed ``START + i`` by every
arm (game ``i`` of arm A and of arm B are a pair).  Shard ``k`` of ``K``
(1-based) plays the games ``i`` with ``i mod K == k - 1``; each game is a pure
function of (policy, seed), so the merged table is the same for every ``K``
and any number of worker processes (``wall_s`` aside).

An arm is a name and its typed spec (:class:`engines.play.arm_specs.Arm`): a
worker process is handed the specs, never a string to parse again.  Rows
are ordered arm by arm (the order the arms were given), then by game.
A shard's CSV is written atomically (:func:`contracts.games_table.write_rows`):
it either exists whole or not at all, so a failed shard is simply rerun.
Per-game errors are recorded in the row (see :mod:`engines.play.games`),
never fatal.
"""

from __future__ import annotations

import atexit
import os
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

from contracts.cli_numbers import INT64_MAX, parse_int, parse_seed_block
from contracts.errors import InputError, clip
from contracts.games_table import GamesTableError, read_rows
from engines.play.arm_specs import Arm
from engines.play.games import Log, _stderr, play_game, warm_up_driver
from engines.play.players import Policy
from engines.play.policy import load_policy


class RunError(ValueError):
    """Bad runner input (arms, seeds, shard, shard files): one clear line."""


def check_arms(arms: Sequence[Arm]) -> None:
    """At least one arm and no name twice."""
    if not arms:
        raise RunError("no arms given")
    seen: set[str] = set()
    for arm in arms:
        if arm.name in seen:
            raise RunError(f"arm name {arm.name!r} given twice")
        seen.add(arm.name)


def parse_seeds(text: str) -> tuple[int, int]:
    """Parse a seed block ``START:COUNT`` (seeds START .. START+COUNT-1; decimal or 0x hex)."""
    try:
        return parse_seed_block(text, "--seeds")
    except InputError as exc:
        raise RunError(str(exc)) from None


def parse_shard(text: str) -> tuple[int, int]:
    """Parse ``k/K`` with ``1 <= k <= K``."""
    k_text, sep, total_text = text.partition("/")
    try:
        if not sep:
            raise InputError(f"shard {clip(text)!r} must be k/K with 1 <= k <= K")
        total = parse_int(total_text, "shard K", 1, INT64_MAX)
        k = parse_int(k_text, f"shard k (of {total})", 1, total)
    except InputError as exc:
        raise RunError(str(exc)) from None
    return k, total


def shard_games(count: int, shard: int, shards: int) -> range:
    """Game indices of shard ``shard`` of ``shards`` (1-based): ``i mod K == k - 1``."""
    return range(shard - 1, count, shards)


class Progress:
    """Progress lines on stderr: games done, rate and ETA, at most every ``every_s``."""

    def __init__(self, total: int, label: str, log: Log = _stderr,
                 every_s: float = 30.0) -> None:
        self.total, self.label, self.log, self.every_s = total, label, log, every_s
        self.t0 = self.last = time.perf_counter()
        self.done = 0

    def step(self, n: int = 1) -> None:
        """Count ``n`` finished games; log when due and at the end."""
        self.done += n
        now = time.perf_counter()
        if self.every_s < 0 or (now - self.last < self.every_s and self.done < self.total):
            return
        self.last = now
        elapsed = now - self.t0
        rate = self.done / elapsed if elapsed > 0 else float("inf")
        eta = (self.total - self.done) / rate if rate > 0 else float("inf")
        self.log(f"{self.label}: {self.done}/{self.total} games, {rate:.3g} games/s, "
                 f"elapsed {_hms(elapsed)}, ETA {_hms(eta)}")


def _hms(seconds: float) -> str:
    if seconds != seconds or seconds == float("inf"):
        return "?"
    s = int(round(seconds))
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def _game_row(arm: Arm, policy: Policy, start: int, game: int, budget_s: float | None,
              log: Log) -> dict:
    seed = start + game
    row = {"arm": arm.name, "policy": arm.policy, "seed": seed, "game": game}
    row.update(play_game(policy, seed, budget_s, log))
    return row


_WORKER: dict = {}


def _close_all(policies: Sequence[Policy]) -> None:
    for policy in policies:
        policy.close()


def _worker_init(arms: Sequence[Arm], budget_s: float | None) -> None:
    _WORKER["arms"] = list(arms)
    _WORKER["policies"] = [load_policy(arm.spec, verify=False) for arm in arms]
    atexit.register(_close_all, _WORKER["policies"])
    for policy in _WORKER["policies"]:
        policy.warm_up()
    warm_up_driver()
    _WORKER["budget_s"] = budget_s


def _worker_game(a: int, start: int, game: int) -> dict:
    return _game_row(_WORKER["arms"][a], _WORKER["policies"][a], start, game,
                     _WORKER["budget_s"], _stderr)


def run_shard(arms: Sequence[Arm], start: int, count: int, shard: int = 1, shards: int = 1,
              budget_s: float | None = None, workers: int = 1, log: Log = _stderr,
              progress_s: float = 30.0) -> list[dict]:
    """Play shard ``shard`` of ``shards`` of the block for every arm; rows in table order.

    Policies are loaded before any game is played, so a bad policy (or an external
    program that cannot start) fails fast; they are closed when the shard is done.
    ``workers > 1`` plays games in that many processes (same rows).
    """
    check_arms(arms)
    if workers < 1:
        raise RunError("workers must be at least 1")
    games = shard_games(count, shard, shards)
    policies: list[Policy] = []
    try:
        for arm in arms:
            policies.append(load_policy(arm.spec))
        return _run_games(arms, policies, start, games, (shard, shards), budget_s,
                          workers, log, progress_s)
    finally:
        _close_all(policies)


def _run_games(arms: Sequence[Arm], policies: list[Policy], start: int, games: range,
               part: tuple[int, int], budget_s: float | None, workers: int, log: Log,
               progress_s: float) -> list[dict]:
    shard, shards = part
    tasks = [(a, g) for g in games for a in range(len(arms))]
    sequential = workers == 1 or len(tasks) <= 1
    if sequential:
        for policy in policies:
            policy.warm_up()
        warm_up_driver()
    label = f"shard {shard}/{shards} ({len(arms)} arm{'s' if len(arms) > 1 else ''})"
    progress = Progress(len(tasks), label, log, progress_s)
    rows: dict[tuple[int, int], dict] = {}
    if sequential:
        for a, g in tasks:
            rows[a, g] = _game_row(arms[a], policies[a], start, g, budget_s, log)
            progress.step()
    else:
        _close_all(policies)
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"),
                                 initializer=_worker_init,
                                 initargs=(list(arms), budget_s)) as pool:
            futures = {pool.submit(_worker_game, a, start, g): (a, g) for a, g in tasks}
            for future in as_completed(futures):
                rows[futures[future]] = future.result()
                progress.step()
    return [rows[a, g] for a in range(len(arms)) for g in games]


def merge_shards(paths: Sequence[str | os.PathLike],
                 seeds: tuple[int, int] | None = None) -> list[dict[str, str]]:
    """Merge shard tables into the block's table (arm by arm, then by game).

    Checks every arm has every game exactly once, on the same seeds, with one
    policy per arm; with ``seeds = (START, COUNT)`` the block must be exactly
    that.
    """
    if not paths:
        raise RunError("no shard files to merge")
    order: list[str] | None = None
    policy: dict[str, str] = {}
    rows: dict[tuple[str, int], dict[str, str]] = {}
    for path in paths:
        try:
            table = read_rows(path)
        except GamesTableError as exc:
            raise RunError(str(exc)) from None
        arms_here = list(dict.fromkeys(r["arm"] for r in table))
        if table and order is None:
            order = arms_here
        elif table and arms_here != order:
            raise RunError(f"{path}: arms {arms_here} differ from {order}")
        for r in table:
            if policy.setdefault(r["arm"], r["policy"]) != r["policy"]:
                raise RunError(f"{path}: arm {r['arm']!r} has two policies")
            key = (r["arm"], int(r["game"]))
            if key in rows:
                raise RunError(f"{path}: arm {key[0]!r} game {key[1]} appears twice")
            rows[key] = r
    if order is None:
        raise RunError("the shard files hold no games")
    games = sorted({g for _, g in rows})
    expected = list(range(seeds[1])) if seeds else list(range(len(games)))
    for arm in order:
        have = sorted(g for a, g in rows if a == arm)
        if have != expected:
            missing = sorted(set(expected) - set(have))
            extra = sorted(set(have) - set(expected))
            raise RunError(f"arm {arm!r}: games missing {missing[:5]} extra {extra[:5]} "
                           f"(a shard is missing or from another block)")
    offsets = {int(r["seed"]) - int(r["game"]) for r in rows.values()}
    if len(offsets) != 1 or (seeds and offsets != {seeds[0]}):
        raise RunError("shard files disagree on the seed block")
    return [rows[arm, g] for arm in order for g in expected]


def summarise(rows: Sequence[dict]) -> list[str]:
    """One line per arm: games and mean score (for logs)."""
    lines = []
    for arm in dict.fromkeys(r["arm"] for r in rows):
        scores = [float(r["score"]) for r in rows if r["arm"] == arm]
        lines.append(f"{arm}: {len(scores)} games, mean score {sum(scores) / len(scores):,.0f}")
    return lines


def log_summary(rows: Sequence[dict], log: Log = _stderr) -> None:
    """Log :func:`summarise`."""
    for line in summarise(rows):
        log(line)


__all__ = ["Progress", "RunError", "check_arms", "log_summary", "merge_shards", "parse_seeds",
           "parse_shard", "run_shard", "shard_games", "summarise"]
