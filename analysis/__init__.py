"""Paired-screen statistics over tables of games (no numba, no engine imports).

Modules: :mod:`analysis.games_table` (read and validate games CSVs),
:mod:`analysis.bootstrap` (the counter-based percentile bootstrap),
:mod:`analysis.contrast` (one paired contrast and its pass criteria),
:mod:`analysis.reading_kinds` (the one registry of reading kinds),
:mod:`analysis.readers` (what each kind concludes from a contrast, a curve or
the training health), :mod:`analysis.readings` (a claim's readings
evaluated), :mod:`analysis.health` (does a learner learn, checkpoint after
checkpoint), :mod:`analysis.power` (the screen's operating
characteristic), :mod:`analysis.oc_plot` (its figure), the group-sequential
design (:mod:`analysis.sequential.design`, :mod:`analysis.sequential.recursion`,
:mod:`analysis.sequential.estimate`, :mod:`analysis.sequential.sim`) and
:mod:`analysis.cli` (``drop7 stats``).
See docs/statistics.md for the formulas and decisions.
"""
