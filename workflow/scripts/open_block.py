"""Adapter: preregister the claim's experiment (its register record, protocol hash), then ask
the ledger to open the claim's screen block for its frozen hashes and that hash."""

import sys
from datetime import UTC, datetime

from contracts.json_file import load_json, write_json
from protocol.disclosure import declaration_sha256
from protocol.jobs import log_to, run
from protocol.ledger import Opener, open_blocks, read_ledger
from protocol.plan import load_plan
from protocol.provenance import config_hash, git_state
from protocol.records.experiment import experiment_record
from protocol.records.ids import stamp
from protocol.stages import check_artefact

S = snakemake  # noqa: F821


def main() -> None:
    p = S.params
    hashes = {}
    for key, art in sorted(p.artefacts.items()):
        record = load_json(art["record"])
        check_artefact(record, key, art["pin"], p.source)
        hashes[key] = record["sha256"]
    opener = Opener(S.wildcards.claim, hashes, p.shares)
    now = datetime.now(UTC)
    prior = [e["opened_utc"] for b in p.blocks
             for e in read_ledger(p.ledger)["blocks"].get(str(b), []) if opener.same(e)]
    plan = load_plan(p.repo, S.config).claims[S.wildcards.claim].describe()
    experiment = experiment_record(plan, min(prior, default=stamp(now)), [])
    if experiment["protocolSha256"] != p.protocol:
        raise ValueError(f"claim {S.wildcards.claim}: the plan's protocol hash changed while "
                         "the workflow ran (a declaration edited mid-run): rerun")
    write_json(S.output.preregistered, experiment)
    print(f"preregistered {experiment['experimentId']} (protocol "
          f"{experiment['protocolSha256']})", file=sys.stderr)
    answer = open_blocks(p.ledger, p.blocks, opener, profile=S.config["profile"],
                         seeds=p.seeds, allow_reuse=p.allow_reuse,
                         config_hash=config_hash(S.config),
                         commit=git_state(p.repo)["commit"], now=now,
                         protocol_sha256=experiment["protocolSha256"],
                         declaration_sha256=declaration_sha256(plan["declaration"]))
    note = " (REUSED: read before by another opener)" if answer["reused"] else ""
    print(f"screen blocks {p.blocks} opened for {S.wildcards.claim}{note}", file=sys.stderr)
    for b, a in answer["blocks"].items():
        if a["no_protocol_hash"]:
            print(f"screen block {b}: its ledger entry predates protocol hashes: accepted, "
                  "flagged (no protocol hash)", file=sys.stderr)
    write_json(S.output[0], {"claim": S.wildcards.claim, "hashes": hashes,
                             "shares": p.shares, **answer})


with log_to(S.log[0]):
    run(main)
