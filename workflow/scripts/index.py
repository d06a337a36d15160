"""Adapter: reports/index.html, every declared claim and every report under reports/."""

from pathlib import Path

from analysis.report.page import find_summaries, render_index, write_public
from protocol.jobs import log_to, run
from protocol.ledger import opened_blocks

S = snakemake  # noqa: F821


def main() -> None:
    index = Path(S.output[0])
    ledgers = {p: opened_blocks(p) for p in S.params.ledgers if Path(p).exists()}
    write_public(index, render_index(S.params.claims, find_summaries(index.parent), ledgers))


with log_to(S.log[0]):
    run(main)
