"""Adapter: one trained weights' validation curve (paired margin per checkpoint)."""

from contracts.json_file import write_json
from protocol.jobs import log_to, run
from protocol.stages import validation_curve

S = snakemake  # noqa: F821


def main() -> None:
    curve = validation_curve(S.wildcards.weights, S.params.comparator, S.input.comparator,
                             S.params.points, tuple(S.params.seeds), S.params.resamples)
    write_json(S.output[0], curve)


with log_to(S.log[0]):
    run(main)
