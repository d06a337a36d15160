"""Adapter: one checkpoint played one ply and randomly on the health seeds (``drop7 evaluate``)."""

import subprocess
import sys
from pathlib import Path

from protocol.jobs import log_to, run

S = snakemake  # noqa: F821


def main() -> None:
    cmd = ["drop7", "evaluate", str(Path(S.input.manifest).parent),
           "--games", str(S.params.games), "--no-verify", "--out", S.output[0]]
    print(" ".join(cmd), file=sys.stderr, flush=True)
    subprocess.run(cmd, check=True, stdout=sys.stderr, stderr=sys.stderr)


with log_to(S.log[0]):
    run(main)
