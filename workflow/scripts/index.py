"""Adapter: reports/index.html, every screen run found under reports/ with its verdict."""

from pathlib import Path

from adapter import log_to, run

from analysis.ledger import opened_blocks
from analysis.report.page import find_summaries, render_index, write_public

S = snakemake  # noqa: F821


def main() -> None:
    index = Path(S.output[0])
    ledgers = {p: opened_blocks(p) for p in S.params.ledgers if Path(p).exists()}
    write_public(index, render_index(find_summaries(index.parent), ledgers))


with log_to(S.log[0]):
    run(main)
