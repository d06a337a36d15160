"""Adapter: write a claim's register record bundle (protocol/records/bundle.py) and check it."""

from datetime import UTC, datetime
from pathlib import Path

from analysis.health import TrainingHealth
from analysis.learner_readings import learner_sources
from contracts.games_table import read_rows
from contracts.hashing import file_sha256
from contracts.json_file import load_json
from protocol.jobs import log_to, run
from protocol.ledger import entries_now
from protocol.provenance import jobs_written, run_source
from protocol.records.bundle import write_bundle
from protocol.records.check import check_bundle
from protocol.records.ids import RecordError, stamp
from protocol.records.metrics import panel_metrics
from protocol.records.training import training_metrics

S = snakemake  # noqa: F821


def main() -> None:
    inputs = dict(S.input.items())
    opened = "table" in inputs
    # the block's ledger entry as it is now: a replay appended since it closed is counted
    closed = (entries_now(load_json(S.input.closed), S.params.ledger, S.params.plan["id"])
              if opened else {})
    # the run that played the games (as its closing job saw it), else this checkout
    played = closed.get("played") or run_source(S.params.repo, S.params.ledger)
    provenance = {"commit": played["commit"], "dirty": played["dirty"],
                  "diff_sha256": played.get("diff_sha256"),
                  "jobs": jobs_written(S.params.benchmarks)}
    # when the verdict was decided: the time of a claim whose screen was never opened
    decided = stamp(datetime.fromtimestamp(Path(S.input.verdict).stat().st_mtime, UTC))
    # the trained weights' figures: the validation curves and health the page reads (health
    # read back through its dataclass, so a malformed file stops here) and the direct records
    training = training_metrics(
        S.params.plan, curves={c["weights"]: c for c in map(load_json, inputs["curves"])},
        health={n: TrainingHealth.from_json(load_json(p)).to_json()
                for n, p in S.params.health.items()},
        direct={n: (S.params.direct[n], s["curve"], s["record"])
                for n, s in learner_sources(S.params.direct).items()})
    write_bundle(S.output[0], S.params.plan, load_json(S.input.verdict), provenance,
                 opened=load_json(S.input.opened) if opened else None,
                 closed=closed or None,
                 preregistered=load_json(S.input.preregistered) if opened else None,
                 table=read_rows(S.input.table) if opened else (),
                 table_sha256=file_sha256(S.input.table) if opened else None,
                 command=played["command"],
                 contrasts={Path(p).stem: load_json(p) for p in inputs.get("contrasts", [])},
                 decided_utc=decided,
                 panel=(panel_metrics(load_json(S.input.panel), S.params.plan["block"])
                        if "panel" in inputs else None),
                 training=training)
    problems = check_bundle(S.output[0])
    if problems:
        raise RecordError("; ".join(problems))


with log_to(S.log[0]):
    run(main)
