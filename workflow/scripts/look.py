"""Adapter: one look of a sequential screen: the paired t of the contrast it stops on (on its
metric) over the seeds read so far, the design's decision, recorded in the ledger before
anything else reads it."""

import sys

from analysis.games_table import pair_arms, read_games, select_block
from analysis.sequential.screen import look_record
from contracts.json_file import load_json, write_json
from protocol.jobs import log_to, run
from protocol.ledger import Opener, record_look

S = snakemake  # noqa: F821


def main() -> None:
    p, k = S.params, int(S.wildcards.look)
    design = p.design  # the plan's, built once
    n = design.looks[k - 1]
    games = select_block(read_games(S.input.games), p.arms, p.start, n)
    pair = pair_arms(games, *p.arms, p.metric)
    look = look_record(pair.candidate_scores - pair.baseline_scores, k, design, p.start)
    opened = load_json(S.input.opened)
    record_look(p.ledger, [int(b) for b in opened["blocks"]],
                Opener(opened["claim"], opened["hashes"], opened["shares"]), look)
    print(f"look {k}: n {n}, t {look['statistic']}, bound {look['efficacy_bound']}: "
          f"{look['decision']}", file=sys.stderr)
    write_json(S.output[0], look)


with log_to(S.log[0]):
    run(main)
