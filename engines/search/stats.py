"""The slots of a searcher's ``stats`` counters (int64, :data:`STAT_LEN` of them).

``STAT_NODES`` counts moves applied (chance samples played), ``STAT_LEAVES`` leaf
values used (a disc-free base counts once), ``STAT_DECISIONS`` root decisions,
``STAT_NODE_HITS`` and ``STAT_LEAF_HITS`` values taken from the node table and the
leaf cache (:mod:`engines.search.value_table`).  A pruned search (``prune``,
:mod:`engines.search.prune`) adds ``STAT_PRUNED`` nodes ranked by its prior,
``STAT_PRIOR_EVALS`` column values the prior computed and ``STAT_PRIOR_NODES`` and
``STAT_PRIOR_LEAVES``, the moves and leaves of the one-ply prior, or of the q prior's
features (the same samples, counted alike; kept out of the first two).  The kernels
read these as compile-time constants.
"""

from __future__ import annotations

STAT_NODES, STAT_LEAVES, STAT_DECISIONS, STAT_NODE_HITS, STAT_LEAF_HITS = range(5)
#: a pruned search's counts (docs/search.md, "Pruned search"): nodes the prior ranked (and
#: pruned), column values it computed, and the moves applied and leaf values used by a
#: ``searched`` prior (``oneply``), which STAT_NODES and STAT_LEAVES leave out
STAT_PRUNED, STAT_PRIOR_EVALS, STAT_PRIOR_NODES, STAT_PRIOR_LEAVES = range(5, 9)
STAT_LEN = 10
