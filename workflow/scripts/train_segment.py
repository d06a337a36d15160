"""Adapter: train one segment of a claim's weights (``drop7 train --start``).

Once the segment's checkpoint and state are written, the state it started from is
deleted here: Snakemake defers removing temp files while a checkpoint job (the gates) is
pending, which would keep every state of a long training on disk at once.  A later segment
never needs it (it resumes from this one's), and Snakemake accepts a missing temp input.
"""

import shutil
import subprocess
import sys

from contracts.json_file import load_json
from contracts.train_directory import resume_dir
from protocol.jobs import log_to, run

S = snakemake  # noqa: F821


def main() -> None:
    r = S.params.recipe
    cmd = ["drop7", "train", "--layout", r["layout"], "--moves", str(S.wildcards.end),
           "--every", str(r["every"]), "--first-game", str(r["first_game"]), "--out",
           S.params.out, "--start", str(S.params.start), "--log-every", "30",
           "--lanes", str(r.get("lanes", 1)), "--threads", str(S.threads)]
    if r["alpha"] is not None:
        cmd += ["--alpha", str(r["alpha"])]
    init = r.get("init")
    if init:  # a warm start: a pinned file's hash, or the one the artefact's freeze recorded
        sha = init.get("sha256") or load_json(init["record"])["sha256"]
        cmd += ["--init", init["path"], "--init-sha256", sha]
    print(" ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr, stderr=sys.stderr)
    if S.params.start:
        used = resume_dir(S.params.out, S.params.start)
        shutil.rmtree(used, ignore_errors=True)
        print(f"removed the state it started from, {used}", file=sys.stderr, flush=True)


with log_to(S.log[0]):
    run(main)
