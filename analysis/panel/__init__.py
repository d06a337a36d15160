"""A ranking panel's statistics: :mod:`~analysis.panel.readings` (the figures of a ranker
against the reference, resampled by game), :mod:`~analysis.panel.faults` (a ranker's faults,
counted) and :mod:`~analysis.panel.report` (a panel table read into its readings file)."""
