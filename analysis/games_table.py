"""Read and validate games tables, and pair two arms by seed.

A games table has one row per game with the project's columns (arm, policy,
seed, game, score, moves, levels, clears, censored, popped, decisions,
illegal, unfinished, wall_s); only ``arm``, ``seed`` and ``score`` are
required.  Problems raise ``ValueError`` with one line naming the problem.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from contracts.games_table import REQUIRED_COLUMNS, USED_COLUMNS

#: fewest pairs a contrast accepts (a t bound and two halves of two games)
MIN_PAIRS = 4

_TRUE = {"true": 1.0, "false": 0.0}


def _examples(items: Sequence[object], limit: int = 3) -> str:
    shown = ", ".join(str(x) for x in items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def _numeric(df: pd.DataFrame, name: str, source: str) -> pd.Series:
    """Column ``name`` as float64; any missing or non-numeric value is an error."""
    raw = df[name]
    if raw.dtype == bool:
        return raw.astype(np.float64)
    if pd.api.types.is_numeric_dtype(raw.dtype) and np.isfinite(raw.to_numpy(np.float64)).all():
        return raw.astype(np.float64)
    text = raw.astype("string").str.strip()
    lowered = text.str.lower()
    values = pd.to_numeric(lowered.map(lambda s: _TRUE.get(s, s), na_action="ignore"),
                           errors="coerce").astype(np.float64)
    bad = ~np.isfinite(values.to_numpy())
    if bad.any():
        rows = df.loc[bad]
        shown = [f"arm {a!r} seed {s} ({v!r})" for a, s, v in
                 zip(rows["arm"], rows["seed"], text[bad].fillna("empty"), strict=True)]
        raise ValueError(
            f"{source}: column {name!r} has {int(bad.sum())} missing or non-numeric "
            f"value(s): {_examples(shown)}"
        )
    return values


def _seeds(df: pd.DataFrame, source: str) -> pd.Series:
    """Seeds as uint64 (the seed bank's 64-bit space); anything else is an error."""
    if df["seed"].dtype == np.uint64:
        return df["seed"]
    text = df["seed"].astype("string").str.strip()
    parsed: list[int] = []
    bad: list[str] = []
    for value in text.fillna(""):
        try:
            seed = int(value, 10)
        except ValueError:
            seed = -1
        if 0 <= seed < 2**64:
            parsed.append(seed)
        else:
            bad.append(repr(value))
            parsed.append(0)
    if bad:
        raise ValueError(f"{source}: {len(bad)} seed(s) are not integers in 0..2**64-1: "
                         f"{_examples(bad)}")
    return pd.Series(np.array(parsed, dtype=np.uint64), index=df.index)


def validate_games(df: pd.DataFrame, source: str = "games table") -> pd.DataFrame:
    """A checked copy of ``df``: seeds uint64, scores and used columns float64, sorted.

    Errors: a required column missing, an empty arm name, a seed that is not a
    64-bit unsigned integer, a missing / NaN / non-numeric score (or used
    optional column), duplicate (arm, seed) rows.
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{source} lacks column(s) {', '.join(missing)} "
                         f"(has: {', '.join(map(str, df.columns)) or 'none'})")
    out = df.copy()
    arms = out["arm"].astype("string").str.strip()
    if arms.isna().any() or (arms == "").any():
        raise ValueError(f"{source}: {int((arms.isna() | (arms == '')).sum())} row(s) have "
                         "an empty arm name")
    out["arm"] = arms.astype(object)
    out["seed"] = _seeds(out, source)
    for name in ("score", *USED_COLUMNS):
        if name in out.columns:
            out[name] = _numeric(out, name, source)
    dup = out.duplicated(["arm", "seed"], keep=False)
    if dup.any():
        pairs = out.loc[dup, ["arm", "seed"]].drop_duplicates()
        shown = [f"arm {a!r} seed {s}" for a, s in zip(pairs["arm"], pairs["seed"], strict=True)]
        raise ValueError(f"{source}: duplicate (arm, seed) rows: {_examples(shown)}")
    return out.sort_values(["arm", "seed"], kind="stable").reset_index(drop=True)


def read_games(paths: str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """Read one or more games CSVs (e.g. shards), concatenate and validate them."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    if not items:
        raise ValueError("no games table given")
    frames = []
    for path in items:
        try:
            frame = pd.read_csv(path, dtype={"arm": "string", "seed": "string"},
                                keep_default_na=True)
        except pd.errors.EmptyDataError:
            raise ValueError(f"games table {path} is empty") from None
        except pd.errors.ParserError as exc:
            raise ValueError(f"games table {path} is not a valid CSV: "
                             f"{str(exc).splitlines()[0]}") from None
        frames.append(validate_games(frame, f"games table {path}"))
    if len(frames) == 1:
        return frames[0]
    return validate_games(pd.concat(frames, ignore_index=True), f"games tables {_examples(items)}")


@dataclass(frozen=True)
class PairedGames:
    """Two arms' games matched by seed, in seed order.

    ``extra_candidate`` / ``extra_baseline`` hold the used optional columns
    (moves, censored, illegal, unfinished) that the table has.
    """

    candidate: str
    baseline: str
    seeds: np.ndarray
    candidate_scores: np.ndarray
    baseline_scores: np.ndarray
    extra_candidate: dict[str, np.ndarray] = field(default_factory=dict)
    extra_baseline: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """Number of pairs."""
        return int(self.seeds.size)


def select_block(df: pd.DataFrame, arms: Sequence[str], start: int, count: int) -> pd.DataFrame:
    """The games of ``arms`` on seeds ``start .. start+count-1`` (validated), all of them.

    This is how a contrast reads a prefix of a block: explicitly, with the
    count it was planned for.  Errors: an arm missing any seed of the range.
    """
    games = validate_games(df)
    lo, hi = np.uint64(start), np.uint64(start + count)
    inside = games[(games["seed"] >= lo) & (games["seed"] < hi) & games["arm"].isin(list(arms))]
    for arm in arms:
        have = int((inside["arm"] == arm).sum())
        if have != count:
            raise ValueError(f"arm {arm!r} has {have} of the {count} games on seeds "
                             f"{start}..{start + count - 1}")
    return inside.reset_index(drop=True)


def pair_arms(df: pd.DataFrame, candidate: str, baseline: str) -> PairedGames:
    """Pair arm ``candidate`` with arm ``baseline`` by seed (validates ``df`` first).

    Errors: the same arm twice, an unknown arm, seeds present in one arm only,
    fewer than :data:`MIN_PAIRS` pairs.
    """
    games = validate_games(df)
    if candidate == baseline:
        raise ValueError(f"candidate and baseline are the same arm {candidate!r}")
    arms = sorted(games["arm"].unique())
    for role, arm in (("candidate", candidate), ("baseline", baseline)):
        if arm not in arms:
            raise ValueError(f"unknown {role} arm {arm!r} (arms in table: "
                             f"{', '.join(arms) or 'none'})")
    cand = games[games["arm"] == candidate].set_index("seed")
    base = games[games["arm"] == baseline].set_index("seed")
    only_c = sorted(set(cand.index) - set(base.index))
    only_b = sorted(set(base.index) - set(cand.index))
    if only_c or only_b:
        parts = [f"{len(s)} only in {arm!r} (e.g. seed {_examples(s)})"
                 for s, arm in ((only_c, candidate), (only_b, baseline)) if s]
        raise ValueError("unpaired games: seeds present in one arm only: " + "; ".join(parts))
    if len(cand) < MIN_PAIRS:
        raise ValueError(f"too few pairs: {len(cand)} paired games of {candidate!r} and "
                         f"{baseline!r}, need at least {MIN_PAIRS}")
    seeds = np.sort(cand.index.to_numpy(dtype=np.uint64))
    cand, base = cand.loc[seeds], base.loc[seeds]
    used = [c for c in USED_COLUMNS if c in games.columns]
    return PairedGames(
        candidate=candidate,
        baseline=baseline,
        seeds=seeds,
        candidate_scores=cand["score"].to_numpy(np.float64),
        baseline_scores=base["score"].to_numpy(np.float64),
        extra_candidate={c: cand[c].to_numpy(np.float64) for c in used},
        extra_baseline={c: base[c].to_numpy(np.float64) for c in used},
    )
