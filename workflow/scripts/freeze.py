"""Adapter: freeze the selected validation checkpoint and record its SHA-256."""

import sys

from contracts.json_file import load_json
from protocol.jobs import log_to, run
from protocol.stages import freeze

S = snakemake  # noqa: F821


def main() -> None:
    record = freeze(load_json(S.input.curve), load_json(S.input.gates), S.params.select,
                    S.params.frozen, S.output.record,
                    f"{S.wildcards.claim}/{S.wildcards.weights}")
    print(f"frozen {record['weights']} step {record['step']} sha256 {record['sha256']}",
          file=sys.stderr)


with log_to(S.log[0]):
    run(main)
