"""Adapter: a sequential screen's looks up to the one that stopped it, the seeds it read and the
seeds of its block it never read."""

from protocol.jobs import log_to, run
from protocol.stages import load_json, write_json

S = snakemake  # noqa: F821


def main() -> None:
    looks = [load_json(path) for path in S.input]
    start, count = S.params.seeds
    n = looks[-1]["n"]
    write_json(S.output[0], {"design": S.params.design, "looks": looks, "stop": looks[-1],
                             "read": [start, n],
                             "unread": [start + n, count - n] if n < count else None})


with log_to(S.log[0]):
    run(main)
