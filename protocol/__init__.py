"""The harness's protocol: claims as data, from declaration to verdict (no Snakemake here).

Modules: :mod:`protocol.schema` (YAML checked against the shipped schemas,
one-line errors), :mod:`protocol.declaration` (claim files, checked part by
part), :mod:`protocol.claim` (one checked declaration), :mod:`protocol.parts`
(one module per claim part: its check, its plan, its planned type),
:mod:`protocol.profile` (profiles and overrides), :mod:`protocol.plan_model`
(every claim's arms, blocks, sizes and names) and :mod:`protocol.plan` (which
builds it from them), :mod:`protocol.records` (the register's records),
:mod:`protocol.paths` (every
file), :mod:`protocol.costs` (estimated job costs), :mod:`protocol.checks`
(what is refused before any job), :mod:`protocol.stages` (validation curves,
gates, selection, freeze), :mod:`protocol.ledger` (opened screen blocks),
:mod:`protocol.verdict` (verdict rules), :mod:`protocol.provenance` and
:mod:`protocol.jobs` (what every workflow script shares).  The readings are
statistics and live in :mod:`analysis.reading_kinds`.  docs/claims.md describes
the declaration format.
"""
