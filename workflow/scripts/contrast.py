"""Adapter: one declared contrast, on its metric, on its seeds of the block (and its operating
characteristic); a sequential screen's contrast reads the seeds up to its stopping look, and the
contrast it stops on gets its looks, the corrected estimate and the simulated error rates
(analysis/block_contrast.py)."""

from analysis.block_contrast import block_contrast
from analysis.games_table import read_games
from contracts.json_file import load_json, write_json
from protocol.jobs import log_to, run

S = snakemake  # noqa: F821


def main() -> None:
    p = S.params
    start, count = p.seeds
    given = dict(S.input.items()).get("looks")
    looks = load_json(given) if given else None
    known = load_json(S.input.hashes)
    hashes = {k: (known[k]["expected"], known[k]["actual"]) for k in p.artefacts}
    result = block_contrast(
        read_games(S.input.table), kind=p.kind, arms=p.arms, start=start, count=count,
        hashes=hashes, resamples=p.resamples, oc_sims=p.oc_sims, looks=looks,
        stops_on=looks is not None and S.wildcards.contrast == looks["design"]["contrast"],
        effect=p.effect, metric=p.metric, design=p.design)
    write_json(S.output[0], result)


with log_to(S.log[0]):
    run(main)
