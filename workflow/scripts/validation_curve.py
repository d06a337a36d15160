"""Adapter: one trained arm's validation curve (paired margin vs the fair leaf per checkpoint)."""

from adapter import log_to, run
from protocol import validation_curve, write_json

S = snakemake  # noqa: F821


def main() -> None:
    curve = validation_curve(S.wildcards.weights, S.params.fair_arm, S.input.fair,
                             S.params.checkpoints, S.params.resamples)
    write_json(S.output[0], curve)


with log_to(S.log[0]):
    run(main)
