"""Adapter: a panel's readings (analysis/panel_report.py) from its closed table and its roots."""

from analysis.panel_report import read_panel
from contracts.hashing import file_sha256
from contracts.json_file import write_json
from contracts.panel_roots import read_roots
from contracts.panel_table import read_rows
from protocol.jobs import log_to, run

S = snakemake  # noqa: F821


def main() -> None:
    doc = read_panel(read_rows(S.input.table), read_roots(S.input.roots), S.params.declaration,
                     S.params.resamples, file_sha256(S.input.table))
    write_json(S.output[0], doc)


with log_to(S.log[0]):
    run(main)
