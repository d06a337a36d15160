"""A root filter at a decision: the columns it refuses, and when it stands aside.

Each filter of :data:`engines.filters.kinds.ROOT_FILTERS` has its compiled
rule in :data:`KERNELS` (``(cols, disc) -> refused bit mask``).  The filter
must never leave the root without a move: when it would refuse every legal
column it refuses none (it *stands aside*) and the search chooses among all
of them, as the register's experiment did.
"""

from __future__ import annotations

import numpy as np

from engines.drop7.nibbles import legal_mask
from engines.filters.kinds import ROOT_FILTERS
from engines.filters.survival import survival_refused

#: a filter's name -> its compiled rule: bit ``c`` of the answer refuses legal column ``c``
KERNELS = {"survival": survival_refused}

if set(KERNELS) != set(ROOT_FILTERS):  # one entry in each: kinds (names) and here (rules)
    raise ImportError(f"root filters without a rule or a name: "
                      f"{sorted(set(KERNELS) ^ set(ROOT_FILTERS))}")


def refusals(name: str, cols: np.ndarray, disc: int) -> int:
    """The legal columns filter ``name`` refuses at this public state (bit ``c``: column ``c``
    of ``cols``); 0 when it refuses nothing, or would refuse every legal column (it stands
    aside)."""
    refused = int(KERNELS[name](cols, np.int64(disc)))
    return 0 if refused == int(legal_mask(cols)) else refused
