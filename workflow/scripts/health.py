"""Adapter: the training health of one trained weights (analysis.health)."""

import sys

from analysis.health import training_health
from contracts.json_file import load_json, write_json
from protocol.jobs import log_to, run

S = snakemake  # noqa: F821


def main() -> None:
    health = training_health(S.wildcards.weights, [load_json(p) for p in S.input.points],
                             [load_json(p) for p in S.input.manifests])
    print(("HEALTHY: " if health["healthy"] else "UNHEALTHY: ")
          + ("; ".join(health["problems"]) or f"{len(health['points'])} checkpoints"),
          file=sys.stderr)
    write_json(S.output[0], health)


with log_to(S.log[0]):
    run(main)
