"""Adapter: train one arm with checkpoints (``drop7 train --resume``), then write its record."""

import subprocess
import sys

from adapter import log_to, run
from protocol import drop_resume_state, prepare_training, trained_record, write_json

S = snakemake  # noqa: F821


def main() -> None:
    req, out = S.params.request, S.params.out
    resumes = prepare_training(out, req, S.params.steps)
    cmd = ["drop7", "train", "--layout", req["layout"], "--moves", str(req["moves"]),
           "--every", str(req["every"]), "--first-game", str(req["first_game"]),
           "--out", out, "--resume", "--log-every", "30"]
    print(("resuming: " if resumes else "") + " ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr, stderr=sys.stderr)
    record = trained_record(out, req, S.params.steps)
    if not S.config["training"]["keep_resume"]:  # the schema's default: true
        drop_resume_state(out)
    write_json(S.output[0], record)


with log_to(S.log[0]):
    run(main)
