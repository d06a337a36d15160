"""Adapter: ask the ledger to open the claim's screen block for its frozen hashes."""

import sys

from protocol.jobs import log_to, run
from protocol.ledger import Opener, open_blocks
from protocol.provenance import config_hash, git_state
from protocol.stages import check_artefact, load_json, write_json

S = snakemake  # noqa: F821


def main() -> None:
    p = S.params
    hashes = {}
    for key, art in sorted(p.artefacts.items()):
        record = load_json(art["record"])
        check_artefact(record, key, art["pin"], p.source)
        hashes[key] = record["sha256"]
    opener = Opener(S.wildcards.claim, hashes, p.shares)
    answer = open_blocks(p.ledger, p.blocks, opener, profile=S.config["profile"],
                         seeds=p.seeds, allow_reuse=p.allow_reuse,
                         config_hash=config_hash(S.config),
                         commit=git_state(p.repo)["commit"])
    note = " (REUSED: read before by another opener)" if answer["reused"] else ""
    print(f"screen blocks {p.blocks} opened for {S.wildcards.claim}{note}", file=sys.stderr)
    write_json(S.output[0], {"claim": S.wildcards.claim, "hashes": hashes,
                             "shares": p.shares, **answer})


with log_to(S.log[0]):
    run(main)
