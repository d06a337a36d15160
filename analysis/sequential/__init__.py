"""Group-sequential screens: :mod:`~analysis.sequential.design` (the design, its boundaries,
the decision at a look), :mod:`~analysis.sequential.recursion` (the joint law of the z
statistics), :mod:`~analysis.sequential.estimate` (the estimate after a stop),
:mod:`~analysis.sequential.sim` (operating characteristics by resampling) and
:mod:`~analysis.sequential.screen` (a claim's screen: its design, looks and page section)."""
