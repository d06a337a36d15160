"""Adapter: the SHA-256 of every frozen file the screen's arms read, against its record."""

from contracts.hashing import file_sha256
from contracts.json_file import load_json, write_json
from protocol.jobs import log_to, run

S = snakemake  # noqa: F821


def main() -> None:
    out = {}
    for key, art in sorted(S.params.artefacts.items()):
        out[key] = {"expected": load_json(art["record"])["sha256"],
                    "actual": file_sha256(art["tables"]), "pin": art["pin"]}
    write_json(S.output[0], out)


with log_to(S.log[0]):
    run(main)
