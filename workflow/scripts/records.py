"""Adapter: write a claim's register record bundle (protocol/records.py) and check it."""

from contracts.games_table import read_rows
from contracts.hashing import file_sha256
from protocol.jobs import log_to, run
from protocol.provenance import job_times, run_source, stage_times
from protocol.records import RecordError, check_bundle, write_bundle
from protocol.stages import load_json

S = snakemake  # noqa: F821


def main() -> None:
    inputs = dict(S.input.items())
    opened = "table" in inputs
    closed = load_json(S.input.closed) if opened else {}
    # the run that played the games (as its closing job saw it), else this checkout
    played = closed.get("played") or run_source(S.params.repo, S.params.ledger)
    provenance = {"commit": played["commit"], "dirty": played["dirty"],
                  "stages": stage_times(job_times(S.params.benchmarks))}
    write_bundle(S.output[0], S.params.plan, load_json(S.input.verdict), provenance,
                 opened=load_json(S.input.opened) if opened else None,
                 closed=closed or None,
                 preregistered=load_json(S.input.preregistered) if opened else None,
                 table=read_rows(S.input.table) if opened else (),
                 table_sha256=file_sha256(S.input.table) if opened else None,
                 command=played["command"])
    problems = check_bundle(S.output[0])
    if problems:
        raise RecordError("; ".join(problems))


with log_to(S.log[0]):
    run(main)
