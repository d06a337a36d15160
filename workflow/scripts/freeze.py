"""Adapter: freeze the best validation checkpoint and record its SHA-256."""

import sys

from adapter import log_to, run
from protocol import freeze, load_json

S = snakemake  # noqa: F821


def main() -> None:
    record = freeze(load_json(S.input.curve), load_json(S.input.gate), S.params.frozen_dir,
                    S.output.record, require_gate=S.params.require_gate)
    print(f"frozen {record['weights']} step {record['step']} sha256 {record['sha256']}",
          file=sys.stderr)


with log_to(S.log[0]):
    run(main)
