"""Adapter: criterion 1 (training signal) from the candidate layout's validation curve."""

import sys

from adapter import log_to, run
from protocol import gate_decision, load_json, write_json

S = snakemake  # noqa: F821


def main() -> None:
    decision = gate_decision(load_json(S.input[0]))
    print(("PASSED: " if decision["passed"] else "FAILED: ") + decision["reason"],
          file=sys.stderr)
    write_json(S.output[0], decision)


with log_to(S.log[0]):
    run(main)
