"""Adapter: ask the ledger to open the screen block for the frozen candidate."""

import sys

from adapter import log_to, run
from protocol import load_json, write_json

from analysis.ledger import open_block
from analysis.provenance import config_hash, git_state

S = snakemake  # noqa: F821


def main() -> None:
    frozen = load_json(S.input[0])
    opening = open_block(S.params.ledger, S.params.block, frozen["sha256"],
                         candidate=S.params.candidate, profile=S.params.profile,
                         seeds=S.params.seeds, reuse_blocks=S.params.reuse,
                         config_hash=config_hash(S.config),
                         commit=git_state(S.params.repo)["commit"])
    note = " (REUSED: another candidate opened it first)" if opening.reused else ""
    print(f"screen block {S.params.block} opened for {frozen['sha256']}{note}", file=sys.stderr)
    write_json(S.output[0], opening.to_dict())


with log_to(S.log[0]):
    run(main)
