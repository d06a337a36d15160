"""Adapter: one declared contrast on its seeds of the block (and its operating characteristic)."""

from analysis.contrast import contrast_interaction, contrast_paired
from analysis.games_table import pair_arms, read_games, select_block
from analysis.power import operating_characteristic
from protocol.jobs import log_to, run
from protocol.stages import load_json, write_json

S = snakemake  # noqa: F821


def main() -> None:
    p = S.params
    games = select_block(read_games(S.input.table), p.arms, *p.seeds)
    known = load_json(S.input.hashes)
    hashes = {k: (known[k]["expected"], known[k]["actual"]) for k in p.artefacts}
    pairs = [pair_arms(games, a, b) for a, b in zip(p.arms[::2], p.arms[1::2], strict=True)]
    if p.kind == "difference":
        result = contrast_paired(pairs[0], hashes=hashes, n_resamples=p.resamples).to_dict()
    else:
        result = contrast_interaction(*pairs, hashes=hashes, n_resamples=p.resamples).to_dict()
    if p.oc_sims:
        oc = operating_characteristic(pairs[0].candidate_scores, pairs[0].baseline_scores,
                                      n_sims=p.oc_sims)
        result["oc"] = oc.to_dict()
    write_json(S.output[0], result)


with log_to(S.log[0]):
    run(main)
