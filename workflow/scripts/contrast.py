"""Adapter: one declared contrast, on its metric, on its seeds of the block (and its operating
characteristic); a sequential screen's contrast reads the seeds up to its stopping look, and the
contrast it stops on gets its looks, the corrected estimate and the simulated error rates."""

from analysis.contrast import contrast_interaction, contrast_paired
from analysis.games_table import pair_arms, read_games, select_block
from analysis.power import operating_characteristic
from analysis.sequential_screen import design_from_spec, screen_section
from protocol.jobs import log_to, run
from protocol.stages import load_json, write_json

S = snakemake  # noqa: F821


def main() -> None:
    p = S.params
    start, count = p.seeds
    given = dict(S.input.items()).get("looks")
    looks = load_json(given) if given else None
    if looks is not None:  # a sequential screen reads the seeds up to the look that stopped it
        count = min(count, looks["stop"]["n"])
    games = select_block(read_games(S.input.table), p.arms, start, count)
    known = load_json(S.input.hashes)
    hashes = {k: (known[k]["expected"], known[k]["actual"]) for k in p.artefacts}
    pairs = [pair_arms(games, a, b, p.metric)
             for a, b in zip(p.arms[::2], p.arms[1::2], strict=True)]
    if p.kind == "difference":
        result = contrast_paired(pairs[0], hashes=hashes, n_resamples=p.resamples).to_dict()
    else:
        result = contrast_interaction(*pairs, hashes=hashes, n_resamples=p.resamples).to_dict()
    if p.oc_sims:
        oc = operating_characteristic(pairs[0].candidate_scores, pairs[0].baseline_scores,
                                      n_sims=p.oc_sims)
        result["oc"] = oc.to_dict()
    if looks is not None and S.wildcards.contrast == looks["design"]["contrast"]:
        d = pairs[0].candidate_scores - pairs[0].baseline_scores
        effect, source = p.effect
        result["sequential"] = screen_section(
            d, result, design_from_spec(looks["design"]), looks["looks"], effect=effect,
            effect_source=source, n_sims=p.oc_sims, n_resamples=p.resamples)
    write_json(S.output[0], result)


with log_to(S.log[0]):
    run(main)
