"""``drop7 stats GAMES.csv [...] --candidate ARM --baseline ARM [--metric moves] [--json]``.

Pairs two arms of one or more games CSVs by seed and prints the paired
contrast of their scores (with ``--metric moves``, of their games' lengths) as
text, or one JSON object with ``--json``; ``--out`` also writes the JSON
atomically.  ``--oc`` adds the screen's operating characteristic to the
JSON and ``--oc-png`` saves its figure.  Bad input raises ``ValueError``
(the dispatcher prints one line and exits 2); nothing is written then.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from analysis.bootstrap import BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED
from analysis.contrast import CRITERIA, Contrast, contrast_paired
from analysis.games_table import DEFAULT_METRIC, METRICS, pair_arms, read_games
from analysis.metrics import figure_text
from analysis.power import OC_SEED, OC_SIMS, operating_characteristic
from contracts.atomic import atomic_write
from contracts.cli_numbers import SEED_SPACE, int_option
from contracts.json_file import json_text

#: most bootstrap resamples or simulated screens a run may ask for
MAX_DRAWS = 10_000_000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register the ``stats`` options."""
    parser.add_argument("games", nargs="+", help="games CSV file(s), e.g. the shards of one block")
    parser.add_argument("--candidate", required=True, help="candidate arm name")
    parser.add_argument("--baseline", required=True, help="comparator arm name")
    parser.add_argument("--metric", choices=list(METRICS), default=DEFAULT_METRIC,
                        help=f"what the contrast compares game by game (default {DEFAULT_METRIC})")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--out", help="also write the JSON object to this file")
    parser.add_argument("--expected-hash", help="frozen SHA-256 of the candidate's weights")
    parser.add_argument("--actual-hash", help="SHA-256 of the weights that were screened")
    parser.add_argument("--resamples", type=int_option(100, MAX_DRAWS),
                        default=BOOTSTRAP_RESAMPLES,
                        help=f"bootstrap resamples (default {BOOTSTRAP_RESAMPLES})")
    parser.add_argument("--bootstrap-seed", type=int_option(0, SEED_SPACE - 1),
                        default=BOOTSTRAP_SEED,
                        help=f"bootstrap generator seed (default {BOOTSTRAP_SEED})")
    parser.add_argument("--oc", action="store_true",
                        help="add the operating characteristic under key 'oc'")
    parser.add_argument("--oc-sims", type=int_option(100, MAX_DRAWS), default=OC_SIMS,
                        help=f"simulated screens for the OC (default {OC_SIMS})")
    parser.add_argument("--oc-png", help="save the OC figure (PNG) to this file")


def stats_payload(args: argparse.Namespace) -> tuple[Contrast, dict[str, Any], bytes | None]:
    """Compute the contrast (and OC if asked): (contrast, JSON payload, PNG or None)."""
    paired = pair_arms(read_games(args.games), args.candidate, args.baseline, args.metric)
    hashes = None
    if args.expected_hash or args.actual_hash:
        hashes = {args.candidate: (args.expected_hash, args.actual_hash)}
    result = contrast_paired(paired, hashes=hashes, n_resamples=args.resamples,
                             seed=args.bootstrap_seed)
    payload = result.to_dict()
    png = None
    if args.oc or args.oc_png:
        oc = operating_characteristic(paired.candidate_scores, paired.baseline_scores,
                                      n_sims=args.oc_sims, seed=OC_SEED)
        payload["oc"] = oc.to_dict()
        if args.oc_png:
            from analysis.oc_plot import oc_figure_png

            png = oc_figure_png(oc, f"{args.candidate} vs {args.baseline}: screen operating "
                                    f"characteristic (n = {oc.n})")
    return result, payload, png


def format_text(c: Contrast) -> str:
    """A short human-readable summary of a contrast."""
    def f(x: float | None, signed: bool = False, metric: str | None = None) -> str:
        """At least one decimal, more where the metric's precision asks (analysis.metrics)."""
        return figure_text(x, metric or c.metric, signed, at_least=1)

    lines = [
        f"{c.candidate} vs {c.baseline}: n = {c.n} pairs, metric {c.metric} "
        f"({METRICS[c.metric].unit})",
        f"  mean        {f(c.mean_candidate):>14} {f(c.mean_baseline):>14}",
        f"  median      {f(c.median_candidate):>14} {f(c.median_baseline):>14}",
        f"  Q25 / Q75   {f(c.q25_candidate):>14} {f(c.q25_baseline):>14}  /"
        f" {f(c.q75_candidate)} {f(c.q75_baseline)}",
        f"  moves/game  {f(c.mean_moves_candidate, metric='moves'):>14} "
        f"{f(c.mean_moves_baseline, metric='moves'):>14}",
        f"  mean delta {f(c.mean_delta, True)}  sd {f(c.sd_delta)}  "
        f"detection floor {f(c.detection_floor)}",
        f"  bootstrap 95% LB {f(c.bootstrap_lb, True)}  UB {f(c.bootstrap_ub, True)}  "
        f"({c.n_bootstrap} resamples, seed {c.bootstrap_seed})",
        f"  t LB {f(c.t_lb, True)} (t_0.95({c.n - 1}) = {c.t_critical:.4f})",
        f"  halves {f(c.halves[0], True)} / {f(c.halves[1], True)}   "
        f"W-T-L {c.wins}-{c.ties}-{c.losses}",
        "  criteria: " + ", ".join(f"{k} {c.criteria[k]}" for k in CRITERIA),
        f"  {'PASS' if c.passed else 'FAIL (' + ', '.join(c.failed) + ')'}",
    ]
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``drop7 stats``: 0 whether the contrast passes or not; bad input raises."""
    result, payload, png = stats_payload(args)
    text = json_text(payload, indent=None)
    if args.out:
        atomic_write(args.out, text)
    if png is not None:
        atomic_write(args.oc_png, png)
    print(text.rstrip("\n") if args.json else format_text(result), file=sys.stdout)
    return 0
