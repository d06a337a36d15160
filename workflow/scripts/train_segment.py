"""Adapter: train one segment of a claim's weights (``drop7 train --start``)."""

import subprocess
import sys

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
    print(" ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr, stderr=sys.stderr)


with log_to(S.log[0]):
    run(main)
