"""Adapter: one paired contrast of the screen (and, for the primary, its operating characteristic).

The weights-hash criterion compares the frozen record's SHA-256 with the hash
of the frozen tables file the screen's candidate arms read.
"""

from adapter import log_to, run
from protocol import load_json, write_json

from analysis.contrast import contrast_paired
from analysis.games_table import pair_arms, read_games
from analysis.power import operating_characteristic
from engines.ntuple.storage import file_sha256

S = snakemake  # noqa: F821


def main() -> None:
    p = S.params
    paired = pair_arms(read_games(list(S.input.games)), p.candidate, p.baseline)
    hashes = {}
    if p.candidate_weights is not None:
        hashes = {"expected_hash": load_json(S.input.frozen)["sha256"],
                  "actual_hash": file_sha256(S.input.tables)}
    result = contrast_paired(paired, n_resamples=p.resamples, **hashes).to_dict()
    if p.oc_sims:
        oc = operating_characteristic(paired.candidate_scores, paired.baseline_scores,
                                      n_sims=p.oc_sims)
        result["oc"] = oc.to_dict()
    write_json(S.output[0], result)


with log_to(S.log[0]):
    run(main)
