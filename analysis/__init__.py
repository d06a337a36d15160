"""Paired-screen statistics over tables of games (no numba, no engine imports).

Modules: :mod:`analysis.games_table` (read and validate games CSVs),
:mod:`analysis.bootstrap` (the counter-based percentile bootstrap),
:mod:`analysis.contrast` (one paired contrast and its pass criteria),
:mod:`analysis.readings` (what a claim concludes from a contrast or a curve),
:mod:`analysis.power` (the screen's operating characteristic),
:mod:`analysis.oc_plot` (its figure) and :mod:`analysis.cli` (``drop7 stats``).
See docs/statistics.md for the formulas and decisions.
"""
