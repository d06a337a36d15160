"""Adapter: a sequential screen's looks up to the one that stopped it, the seeds it read and the
seeds of its block it never read."""

from analysis.sequential.design import CONTINUE
from contracts.json_file import load_json, write_json
from protocol.jobs import log_to, run

S = snakemake  # noqa: F821


def main() -> None:
    looks = [load_json(path) for path in S.input]
    declared = len(S.params.design["looks"])
    if [x["look"] for x in looks] != list(range(1, len(looks) + 1)) or (
            looks[-1]["decision"] == CONTINUE and len(looks) < declared):
        raise RuntimeError(f"looks {[x['look'] for x in looks]} of {declared}: look "
                           f"{looks[-1]['look']} said {looks[-1]['decision']}, so the screen "
                           "has not stopped (no summary is written)")
    start, count = S.params.seeds
    n = looks[-1]["n"]
    write_json(S.output[0], {"design": S.params.design, "looks": looks, "stop": looks[-1],
                             "read": [start, n],
                             "unread": [start + n, count - n] if n < count else None})


with log_to(S.log[0]):
    run(main)
