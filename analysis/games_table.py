"""Read and validate games tables, and pair two arms by seed.

A games table has one row per game with the project's columns
(:data:`contracts.games_table.GAMES_COLUMNS`); only ``arm``, ``seed`` and
``score`` are required.  Problems raise ``ValueError`` with one line naming the problem.

A file's layout is checked line by line before pandas sees it
(:func:`read_table`, by :mod:`contracts.games_table`'s reader, the one the
runner's merge uses too): the layout errors name the line, the value errors
(from :func:`validate_games`) the column and the (arm, seed) of the row.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.metrics import DEFAULT_METRIC, METRICS
from contracts.games_table import (
    FILTER_COLUMNS,
    REQUIRED_COLUMNS,
    USED_COLUMNS,
    read_text,
    table_lines,
    table_seed,
)

#: columns of whole numbers in a games file (counts; the seed is checked on its own)
WHOLE_COLUMNS = ("game", "score", "moves", "levels", "clears", "popped", "decisions",
                 "illegal", "unfinished")
#: largest whole number a games file may hold (exact in float64)
WHOLE_MAX = 2**53
#: fewest pairs a contrast accepts (a t bound and two halves of two games)
MIN_PAIRS = 4

_TRUE = {"true": 1.0, "false": 0.0}


def _examples(items: Sequence[object], limit: int = 3) -> str:
    shown = ", ".join(str(x) for x in items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def _refuse_rows(df: pd.DataFrame, bad: np.ndarray, texts: pd.Series, what: str,
                 source: str) -> None:
    """Raise naming how many rows are ``bad`` and a few of them by (arm, seed)."""
    if bad.any():
        rows = df.loc[bad]
        shown = [f"arm {a!r} seed {s} ({v!r})" for a, s, v in
                 zip(rows["arm"], rows["seed"], texts[bad].fillna("empty"), strict=True)]
        raise ValueError(f"{source}: {what}: {_examples(shown)}")


def _numeric(df: pd.DataFrame, name: str, source: str, whole: bool = False) -> pd.Series:
    """Column ``name`` as float64; any missing or non-numeric value is an error, and with
    ``whole`` any value that is not a whole number in 0..:data:`WHOLE_MAX`.  ``censored``
    must be 0 or 1 (True / False)."""
    raw = df[name]
    if raw.dtype == bool:
        return raw.astype(np.float64)
    text = raw.astype("string").str.strip()
    if pd.api.types.is_numeric_dtype(raw.dtype):
        values = raw.astype(np.float64)
    else:
        lowered = text.str.lower()
        values = pd.to_numeric(lowered.map(lambda s: _TRUE.get(s, s), na_action="ignore"),
                               errors="coerce").astype(np.float64)
    v = values.to_numpy()
    bad = ~np.isfinite(v)
    _refuse_rows(df, bad, text, f"column {name!r} has {int(bad.sum())} missing or "
                 "non-numeric value(s)", source)
    if name == "censored":
        bad = (v != 0) & (v != 1)
        _refuse_rows(df, bad, text, f"column 'censored' has {int(bad.sum())} value(s) "
                     "other than 0, 1, True, False", source)
    elif whole:
        bad = (v != np.floor(v)) | (v < 0) | (v > WHOLE_MAX)
        _refuse_rows(df, bad, text, f"column {name!r} has {int(bad.sum())} value(s) that "
                     f"are not whole numbers in 0..2**53", source)
    return values


def _seeds(df: pd.DataFrame, source: str) -> pd.Series:
    """Seeds as uint64 (the seed bank's 64-bit space); anything else is an error."""
    if df["seed"].dtype == np.uint64:
        return df["seed"]
    text = df["seed"].astype("string")
    parsed: list[int] = []
    bad: list[str] = []
    for value in text.fillna(""):
        seed = table_seed(value)
        parsed.append(0 if seed is None else seed)
        if seed is None:
            bad.append(repr(value))
    if bad:
        raise ValueError(f"{source}: {len(bad)} seed(s) are not integers in 0..2**64-1: "
                         f"{_examples(bad)}")
    return pd.Series(np.array(parsed, dtype=np.uint64), index=df.index)


def validate_games(df: pd.DataFrame, source: str = "games table",
                   whole: bool = False) -> pd.DataFrame:
    """A checked copy of ``df``: seeds uint64, scores and used columns float64, sorted.

    Errors: a required column missing, an empty arm name or one with spaces
    around it, a seed that is not a 64-bit unsigned integer (as text: plain
    decimal digits), a missing / NaN / non-numeric score (or used optional
    column), ``censored`` other than 0 / 1, duplicate (arm, seed) rows; with
    ``whole`` (a file's values), a score or count that is not a whole number
    in 0..2**53.
    """
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise ValueError(f"{source} lacks column(s) {', '.join(missing)} "
                         f"(has: {', '.join(map(str, df.columns)) or 'none'})")
    out = df.copy()
    arms = out["arm"].astype("string")
    empty = (arms.isna() | (arms.str.strip() == "")).to_numpy(bool)
    if empty.any():
        raise ValueError(f"{source}: {int(empty.sum())} row(s) have an empty arm name")
    padded = sorted(set(arms[arms != arms.str.strip()]))
    if padded:
        raise ValueError(f"{source}: arm name(s) with spaces around them: "
                         f"{_examples([repr(a) for a in padded])}")
    out["arm"] = arms.astype(object)
    out["seed"] = _seeds(out, source)
    for name in ("score", *USED_COLUMNS):
        if name in out.columns:
            out[name] = _numeric(out, name, source, whole and name in WHOLE_COLUMNS)
    dup = out.duplicated(["arm", "seed"], keep=False)
    if dup.any():
        pairs = out.loc[dup, ["arm", "seed"]].drop_duplicates()
        shown = [f"arm {a!r} seed {s}" for a, s in zip(pairs["arm"], pairs["seed"], strict=True)]
        raise ValueError(f"{source}: duplicate (arm, seed) rows: {_examples(shown)}")
    return out.sort_values(["arm", "seed"], kind="stable").reset_index(drop=True)


def read_table(path: str | Path) -> pd.DataFrame:
    """One games CSV, its layout checked line by line before pandas parses it.

    Refused, naming the file and the line or column: what
    :func:`contracts.games_table.read_text` and
    :func:`~contracts.games_table.table_lines` refuse (an unreadable file, a
    byte-order mark, not UTF-8, empty, a bad header name, a blank line, a row
    with more or fewer fields than the header, broken quoting), and a header
    with no games.  Values are left to :func:`validate_games`.
    """
    source = f"games table {path}"
    text = read_text(path, source)
    if sum(1 for _ in table_lines(text, source)) == 1:
        raise ValueError(f"{source} has a header but no games")
    return pd.read_csv(io.StringIO(text), index_col=False, skip_blank_lines=False,
                       keep_default_na=False, na_values=[""],
                       dtype={"arm": "string", "seed": "string", "policy": "string"})


def read_games(paths: str | Path | Sequence[str | Path]) -> pd.DataFrame:
    """Read one or more games CSVs (e.g. shards) strictly, concatenate and validate them."""
    items = [paths] if isinstance(paths, str | Path) else list(paths)
    if not items:
        raise ValueError("no games table given")
    frames = [validate_games(read_table(path), f"games table {path}", whole=True)
              for path in items]
    if len(frames) == 1:
        return frames[0]
    return validate_games(pd.concat(frames, ignore_index=True),
                          f"games tables {_examples(items)}", whole=True)


@dataclass(frozen=True)
class PairedGames:
    """Two arms' games matched by seed, in seed order.

    ``candidate_scores`` / ``baseline_scores`` hold the values of ``metric``
    (:data:`METRICS`; the final scores by default); ``extra_candidate`` /
    ``extra_baseline`` hold the used optional columns (moves, censored,
    illegal, unfinished) that the table has.
    """

    candidate: str
    baseline: str
    seeds: np.ndarray
    candidate_scores: np.ndarray
    baseline_scores: np.ndarray
    extra_candidate: dict[str, np.ndarray] = field(default_factory=dict)
    extra_baseline: dict[str, np.ndarray] = field(default_factory=dict)
    metric: str = DEFAULT_METRIC

    @property
    def n(self) -> int:
        """Number of pairs."""
        return int(self.seeds.size)


def metric_values(games: pd.DataFrame, metric: str, source: str = "games") -> np.ndarray:
    """Each game's value of ``metric`` (:data:`METRICS`) in ``games``' row order: its column,
    or for a rate the ratio of its two (refused naming ``source``: a game with none of the
    rate's denominator)."""
    m = METRICS[metric]
    try:
        return m.values(*(games[c].to_numpy(np.float64) for c in m.columns))
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


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


def pair_arms(df: pd.DataFrame, candidate: str, baseline: str,
              metric: str = DEFAULT_METRIC) -> PairedGames:
    """Pair arm ``candidate`` with arm ``baseline`` by seed (validates ``df`` first), on the
    values of ``metric`` (a key of :data:`METRICS`).

    Errors: an unknown metric or a table without its column, the same arm
    twice, an unknown arm, seeds present in one arm only, fewer than
    :data:`MIN_PAIRS` pairs.
    """
    if metric not in METRICS:
        raise ValueError(f"unknown metric {metric!r} (metrics: {', '.join(METRICS)})")
    games = validate_games(df)
    m = METRICS[metric]
    for column in m.columns:
        if column not in games.columns:
            raise ValueError(f"games table lacks column {column!r}, read by the contrast's "
                             f"metric {metric}")
        if column not in ("score", *USED_COLUMNS):
            games[column] = _numeric(games, column, "games table")
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
        candidate_scores=metric_values(cand, metric, f"games table, arm {candidate!r}"),
        baseline_scores=metric_values(base, metric, f"games table, arm {baseline!r}"),
        extra_candidate={**{c: cand[c].to_numpy(np.float64) for c in used},
                         **filter_counts(cand, candidate)},
        extra_baseline={**{c: base[c].to_numpy(np.float64) for c in used},
                        **filter_counts(base, baseline)},
        metric=metric,
    )


def filter_counts(games: pd.DataFrame, arm: str) -> dict[str, np.ndarray]:
    """An arm's per-game ``decisions`` and root filter counts (:data:`FILTER_COLUMNS`) when
    its games carry them (an arm with a root filter), else nothing; a filter count missing
    in some of its games only, or larger than the game's decisions, is refused."""
    if not set(FILTER_COLUMNS) <= set(games.columns) or "decisions" not in games.columns:
        return {}
    counts = {c: pd.to_numeric(games[c], errors="coerce").to_numpy(np.float64)
              for c in ("decisions", *FILTER_COLUMNS)}
    given = [np.isfinite(counts[c]) for c in FILTER_COLUMNS]
    if not any(g.any() for g in given):
        return {}
    if not all(g.all() for g in given) or not np.isfinite(counts["decisions"]).all():
        raise ValueError(f"arm {arm!r}: root filter counts ({', '.join(FILTER_COLUMNS)}) or "
                         "decisions missing in some of its games only")
    applied, changed = counts["filter_applied"], counts["filter_changed"]
    if ((changed > applied) | (applied > counts["decisions"]) | (changed < 0)).any():
        raise ValueError(f"arm {arm!r}: a game whose filter_changed exceeds its filter_applied "
                         "or whose filter_applied exceeds its decisions")
    return counts
