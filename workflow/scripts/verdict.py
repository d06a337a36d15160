"""Adapter: a claim's readings and its verdict rule."""

from pathlib import Path

from analysis.learner_readings import learner_sources
from analysis.panel_faults import fault_errors
from analysis.readings import evaluate_all, integrity_errors
from analysis.sequential.screen import exceeded_errors
from contracts.json_file import load_json, write_json
from protocol.jobs import log_to, run
from protocol.ledger_readings import replay_errors
from protocol.verdict import decide, methodological_errors

S = snakemake  # noqa: F821


def main() -> None:
    inputs = dict(S.input.items())
    gate = load_json(S.input.gates)
    curves = {Path(p).stem: load_json(p) for p in S.input.curves}
    health = {Path(p).stem: load_json(p) for p in S.input.health}
    contrasts = {Path(p).stem: load_json(p) for p in inputs.get("contrasts", [])}
    opened = load_json(inputs["opened"]) if "opened" in inputs else None
    frozen = {r["artefact"]: r for r in map(load_json, inputs.get("frozen", []))}
    panel = load_json(inputs["panel"]) if "panel" in inputs else None
    readings = evaluate_all(S.params.readings, contrasts, curves, health, panel=panel,
                            learners=learner_sources(S.params.learners))
    closed = load_json(inputs["closed"]) if "closed" in inputs else None
    errors = methodological_errors(integrity=integrity_errors(contrasts) + fault_errors(panel),
                                   gate=gate,
                                   screened=opened is not None,
                                   reused=bool(opened and opened["reused"]), frozen=frozen,
                                   replayed=replay_errors(closed["entries"]) if closed else ())
    write_json(S.output[0], decide(S.params.rule, readings, errors, S.params.tier,
                                   S.params.lowered_by, exceeded_errors(contrasts)))


with log_to(S.log[0]):
    run(main)
