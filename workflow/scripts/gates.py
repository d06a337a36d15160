"""Adapter: a claim's gates, read on its validation curves, training health and learners' curves."""

import sys
from pathlib import Path

from analysis.learner_readings import learner_sources
from contracts.json_file import load_json, write_json
from protocol.jobs import log_to, run
from protocol.stages import gates

S = snakemake  # noqa: F821


def main() -> None:
    curves = {Path(p).stem: load_json(p) for p in S.input.curves}
    health = {Path(p).stem: load_json(p) for p in S.input.health}
    decision = gates(S.wildcards.claim, S.params.gates, S.params.readings, curves,
                     S.params.enforced, health, learner_sources(S.params.learners))
    print(("PASSED: " if decision["passed"] else "FAILED: ") + decision["reason"],
          file=sys.stderr)
    write_json(S.output[0], decision)


with log_to(S.log[0]):
    run(main)
